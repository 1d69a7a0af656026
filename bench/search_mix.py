"""The search benchmark's query mix, and the request bodies our service sends for it (bench/search.py).

QUERY_MIX covers the kinds of search people make; cheap_mix() keeps the queries without a fuzzy
multi_match (their Elasticsearch cost is small, so they show the web stack's own overhead). The bodies
are built by the webapp's own functions (controllers/params.py → query/parser.py → plan/ladder.py → bodies/render.py),
imported, not re-implemented.
"""

from __future__ import annotations

import functools
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson

from bench.common import WEB_USER, es_url, identity, session

# (name, URL parameters). Repeated parameters are lists.
QUERY_MIX: list[tuple[str, dict[str, Any]]] = [
    ("term", {"q": "diffusion"}),
    ("term", {"q": "convergence"}),
    ("terms", {"q": "language models"}),
    ("terms", {"q": "transformer attention scaling"}),
    ("phrase", {"q": '"large language models"'}),
    ("phrase", {"q": '"gradient descent"'}),
    ("author", {"q": "author:Müller"}),
    ("author", {"q": 'author:"Søren Hauberg"'}),
    ("author-fuzzy", {"q": "author:Soren"}),
    ("chinese", {"q": "深度学习"}),
    ("chinese", {"q": "图神经网络 方法"}),
    ("chinese", {"q": "大语言模型"}),
    ("mixed", {"q": "Transformer模型"}),
    ("facet", {"q": "reinforcement", "area": "Reinforcement Learning"}),
    ("facet", {"q": "", "area": "Deep Learning", "year": "2024"}),
    ("facet", {"q": "neural", "subarea": "Deep Learning > Large Language Models", "year": ["2023", "2024"]}),
    ("deep-page", {"q": "optimization", "page": "50"}),
    ("deep-page", {"q": "learning", "page": "99", "size": "100"}),
    ("sort-year", {"q": "neural", "sort": "year"}),
    ("sort-title", {"q": "models", "sort": "title"}),
    ("exclude", {"q": "sampling -diffusion"}),
    ("field", {"q": "title:scaling"}),
    ("typo", {"q": "stochastik optimisation"}),
    ("browse", {"q": ""}),
]


def search_body(params: dict[str, Any], fuzzy: bool = True, relaxed: bool = False) -> dict:
    """A page's body SearchService.search sends for these URL parameters, without concept expansions (the
    service's own plan and renderer)."""
    from webapp.services.bodies import render
    from webapp.services.plan import ladder as plan
    from webapp.services.query.parser import parse_query
    from webapp.services.search_settings import search_config

    search, config = parsed_params(params, api=False), search_config()
    s = plan.Search(parse_query(search.q), search, config)
    return render.body(s.relaxed(fuzzy) if relaxed else s.page("as_typed", s.words.text(fuzzy)), config)


def parsed_params(params: dict[str, Any], api: bool = True) -> Any:
    """SearchParams for these URL parameters, as the controller makes them (controllers/params.py)."""
    from werkzeug.datastructures import MultiDict

    from webapp.controllers.params import RequestArgs
    from webapp.services.search_settings import search_config

    args = MultiDict([(k, v) for k, vs in params.items() for v in (vs if isinstance(vs, list) else [vs])])
    return RequestArgs(search_config()).search(args, api=api)


def service_requests(alias: str, params: dict[str, Any]) -> list[Request]:
    """Every request SearchService.search sends for these parameters on this alias, in order (service_search)."""
    return service_search(alias, params)[0]


def service_search(alias: str, params: dict[str, Any]) -> tuple[list[Request], Any]:
    """Every request SearchService.search sends for these parameters on this alias, in order (the words as
    typed; the relaxed form when they find too few papers; a "did you mean" count), and the result it made:
    recorded from the service itself on a client that passes them on to the node, so the direct baseline sends
    exactly the same bodies (concept expansions included). The live index's look-up (its analysis profile and
    size, once a minute per process) is left out: recorded from the service's second search, as a process
    sends it."""
    service, sent = _recording_service(alias, es_url())
    service.search(parsed_params(params))
    sent.clear()
    result = service.search(parsed_params(params))
    return list(sent), result


@dataclass
class Request:
    method: str
    path: str  # /<alias>/_search, /<alias>/_count, /<alias>/_msearch
    body: Any  # a JSON object, or a list of them (NDJSON)

    def encoded(self) -> tuple[bytes, str]:
        """The body as sent, and its content type."""
        if isinstance(self.body, list):
            lines = b"".join(orjson.dumps(line) + b"\n" for line in self.body)
            return lines, "application/x-ndjson"
        return orjson.dumps(self.body), "application/json"


@functools.cache
def _recording_service(alias: str, url: str) -> tuple[Any, list[Request]]:
    """Per alias and cluster (one process may run the mix on several)."""
    from papersearch.es import make_client
    from papersearch.settings import Settings
    from webapp.services.search import SearchService

    user, password = identity(WEB_USER)
    settings = Settings(ES_URL=url, ES_WEB_USERNAME=user, ES_WEB_PASSWORD=password, PAPERSEARCH_ALIAS=alias)
    client = make_client("web", settings)
    sent: list[Request] = []
    forward = client.perform_request

    def record(method: str, path: str, **kwargs: Any) -> Any:
        params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in (kwargs.get("params") or {}).items()}
        query = f"?{urlencode(params)}" if params else ""  # as the client sends them (true, not True)
        sent.append(Request(method, path + query, kwargs.get("body")))
        return forward(method, path, **kwargs)

    client.perform_request = record  # type: ignore[method-assign]
    return SearchService(client, alias), sent


def check_mix(alias: str) -> list[dict]:
    """Per query: the requests the service sends, hits found and ES 'took' of the first, so the mix is
    known to be meaningful."""
    s = session(WEB_USER)
    out = []
    for name, params in QUERY_MIX:
        sent = service_requests(alias, params)
        data, content_type = sent[0].encoded()
        r = s.post(f"{es_url()}{sent[0].path}", data=data, headers={"Content-Type": content_type}, timeout=30)
        r.raise_for_status()
        body = r.json()
        body = {**body.get("responses", [body])[0], "took": body["took"]}  # an _msearch: its first search
        out.append({"kind": name, "params": params, "requests": [f"{q.method} {q.path}" for q in sent],
                    # an author: look-up (its first request) counts no papers
                    "total": body["hits"].get("total", {}).get("value"), "took_ms": body["took"]})
    return out


def strip_fuzzy(query: Any) -> Any:
    """The query without its fuzzy alternatives (fuzzy multi_match, intervals with fuzzy rules)."""
    if isinstance(query, list):
        kept = [strip_fuzzy(q) for q in query]
        return [q for q in kept if q is not None]
    if not isinstance(query, dict):
        return query
    if "multi_match" in query and "fuzziness" in query["multi_match"]:
        return None
    if "intervals" in query and "fuzzy" in json.dumps(query):
        return None
    if "bool" in query:
        inner = {k: strip_fuzzy(v) if k in ("must", "should", "filter", "must_not") else v
                 for k, v in query["bool"].items()}
        return {"bool": inner}
    return query


def highlight_cost(alias: str, repeats: int = 3) -> list[dict]:
    """Per query: ES 'took' of the service's body vs the same body with highlight_query = the query
    minus its fuzzy alternatives (best of `repeats`). Diagnostic only: shows what highlighting costs."""
    s = session(WEB_USER)
    out = []
    for name, params in QUERY_MIX:
        body = search_body(params)
        variants = {"as_sent": body}
        if "highlight" in body:
            stripped = strip_fuzzy(body["query"])
            if stripped != body["query"]:
                variants["highlight_query_without_fuzzy"] = {
                    **body, "highlight": {**body["highlight"], "highlight_query": stripped}}
            variants["no_highlight"] = {k: v for k, v in body.items() if k != "highlight"}
        row: dict[str, Any] = {"kind": name, "params": params}
        for label, b in variants.items():
            data = json.dumps(b, ensure_ascii=False).encode()
            row[label] = min(s.post(f"{es_url()}/{alias}/_search", data=data, timeout=60).json()["took"]
                             for _ in range(repeats))
        out.append(row)
    return out


def cheap_mix() -> list[tuple[str, dict[str, Any]]]:
    """The queries of the mix without a fuzzy multi_match (the clause whose highlighting is expensive)."""
    def fuzzy_multi_match(q: Any) -> bool:
        if isinstance(q, list):
            return any(fuzzy_multi_match(x) for x in q)
        if isinstance(q, dict):
            if "fuzziness" in q.get("multi_match", {}):
                return True
            return any(fuzzy_multi_match(v) for v in q.values())
        return False

    return [(n, p) for n, p in QUERY_MIX if not fuzzy_multi_match(search_body(p)["query"])]


def without_result_cache(copy: Path) -> Path:
    """A copy of the config folder in which no results page with words asks for the request cache (result_cache
    within 0, DECISIONS.md D-228): the webapp reading it sends what a search nobody made before costs."""
    from papersearch.paths import config_dir

    shutil.copytree(config_dir(), copy)
    index = json.loads((copy / "index.json").read_text(encoding="utf-8"))
    index["search"]["result_cache"]["within"] = 0
    (copy / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    return copy
