"""What each part of a search costs (bench/query_cost.py --parts): our requests for a query, each time
without one part of the plan (webapp/services/plan/ladder.py), so the difference in `took` is that part's price.

Parts, as they show in the request bodies the service sends:
  highlight      the highlight section (the lean highlight query on the highlighted fields)
  facets         the facets request's aggregations (every facet of config/index.json, sampled or not); not the
                 author look-up's nor the typo count's, which aggregate too
  chart          the papers-per-year histogram inside the year facet's aggregation (issue 34)
  exact total    track_total_hits true → counted up to 10,000 (what a capped "10,000+" would save)
  closeness      the rescore of the first results (closeness of the words)
  typo fallback  the fuzzy alternatives (search_mix.strip_fuzzy)
  topic lift     each word's constant for a match in the topic labels (clauses.topic_lift)
  concept tag    each concept's tag clause beside its words (clauses.concept_tag)
  concepts       the glossary's concepts in the other language (the same search with xl=0)
A part the query's requests do not have is not listed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from bench.search_mix import Request, service_requests, strip_fuzzy
from webapp.services.bodies.render import SAMPLE_AGG
from webapp.services.facets.kind import KNOWN
from webapp.services.facets.numbers import HISTOGRAM
from webapp.services.search_settings import search_config

Body = dict[str, Any]


def _bodies(request: Request) -> list[Body]:
    return request.body[1::2] if isinstance(request.body, list) else [request.body]


def _with(request: Request, change: Callable[[Body], Body]) -> Request:
    if isinstance(request.body, list):
        lines = [line if i % 2 == 0 else change(copy.deepcopy(line)) for i, line in enumerate(request.body)]
        return Request(request.method, request.path, lines)
    return Request(request.method, request.path, change(copy.deepcopy(request.body)))


def _without(key: str) -> Callable[[Body], Body]:
    def change(body: Body) -> Body:
        body.pop(key, None)
        return body
    return change


def _is_facets(body: Body) -> bool:
    """A body with the facets' aggregations (by the facets' names, the sample holding them, the known values)."""
    names = {SAMPLE_AGG, KNOWN, *(f.name for f in search_config().faceted)}
    return bool(names & set(body.get("aggs", {})))


def _no_facets(body: Body) -> Body:
    return _without("aggs")(body) if _is_facets(body) else body


def _capped(body: Body) -> Body:
    if body.get("track_total_hits") is True:
        body["track_total_hits"] = 10_000
    return body


def _no_fuzzy(body: Body) -> Body:
    if "query" in body:
        body["query"] = strip_fuzzy(body["query"])
    return body


def _has_chart(node: Any) -> bool:
    return isinstance(node, dict) and (HISTOGRAM in node.get("aggs", {}) or any(map(_has_chart, node.values())))


def _no_chart(body: Body) -> Body:
    """The body without any facet's histogram (webapp/services/facets/numbers.py HISTOGRAM), wherever its
    aggregations nest."""
    def strip(node: Any) -> None:
        if isinstance(node, dict):
            node.get("aggs", {}).pop(HISTOGRAM, None)
            for value in node.values():
                strip(value)
    strip(body)
    return body


def _drop(is_part: Callable[[Any], bool]) -> Callable[[Body], Body]:
    """The body without the clauses is_part picks out of any should list (the rest of the query unchanged)."""
    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {k: walk(v) for k, v in node.items()}
        b = out.get("bool")
        if isinstance(b, dict) and isinstance(b.get("should"), list):
            kept = [c for c in b["should"] if not is_part(c)]
            if len(kept) < len(b["should"]):
                if len(kept) == 1 and set(b) <= {"should", "minimum_should_match"}:
                    return kept[0]
                b["should"] = kept
        return out

    def change(body: Body) -> Body:
        if "query" in body:
            body["query"] = walk(body["query"])
        return body
    return change


def _is_lift(c: Any) -> bool:
    return isinstance(c, dict) and "constant_score" in c and "multi_match" in c["constant_score"].get("filter", {}) \
        and c["constant_score"]["filter"]["multi_match"].get("type") == "best_fields"


def _is_tag(c: Any) -> bool:
    return isinstance(c, dict) and (("term" in c and "concepts" in c["term"]) or
                                    ("dis_max" in c and all("term" in q for q in c["dis_max"]["queries"])))


PARTS: dict[str, tuple[Callable[[Body], bool], Callable[[Body], Body]]] = {
    "highlight": (lambda b: "highlight" in b, _without("highlight")),
    "facets": (_is_facets, _no_facets),
    "chart": (_has_chart, _no_chart),
    "exact total": (lambda b: b.get("track_total_hits") is True, _capped),
    "closeness": (lambda b: "rescore" in b, _without("rescore")),
    "typo fallback": (lambda b: "fuzziness" in str(b.get("query", "")), _no_fuzzy),
    "topic lift": (lambda b: "constant_score" in str(b.get("query", "")), _drop(_is_lift)),
    "concept tag": (lambda b: "'concepts'" in str(b.get("query", "")), _drop(_is_tag)),
}


def without_each_part(alias: str, params: dict[str, Any]) -> dict[str, list[Request]]:
    """For each part the query's requests have: the same requests without it."""
    sent = service_requests(alias, params)
    out: dict[str, list[Request]] = {}
    for name, (has, change) in PARTS.items():
        if any(has(b) for r in sent for b in _bodies(r)):
            out[name] = [_with(r, change) for r in sent]
    if params.get("q") and params.get("xl") != "0":
        as_typed = service_requests(alias, {**params, "xl": "0"})
        if [r.body for r in as_typed] != [r.body for r in sent]:
            out["concepts"] = as_typed
    return out
