"""The search service: SearchParams in, SearchResult out; the only place that talks to Elasticsearch.

It works with the read-only web identity (search, count and index metadata on the alias).
Elasticsearch failures surface as SearchUnavailable (cluster, timeouts, missing alias) or BadQuery.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from elasticsearch import (
    ApiError,
    AuthenticationException,
    AuthorizationException,
    BadRequestError,
    Elasticsearch,
    NotFoundError,
    TransportError,
)

from papersearch.index_definition import search_config
from papersearch.taxonomy import PATH_SEPARATOR, Taxonomy
from webapp.domain import (
    BadQuery,
    Facet,
    FacetValue,
    Hit,
    SearchParams,
    SearchResult,
    SearchUnavailable,
    Suggestion,
)
from webapp.services import query_builders as qb
from webapp.services.hits import to_hit
from webapp.services.query_parser import ParsedQuery, parse_query

log = logging.getLogger(__name__)

# The typo fallback (fuzzy matching) costs several times the exact query, so it runs only when the
# words as typed find fewer papers than this — or always on a core-profile index, where it is also
# the only way "model" finds "models" (no stemming there).
FUZZY_BELOW = 3
PROFILE_TTL = 60.0  # seconds: how long the live index's analysis profile is trusted after a look-up

@contextmanager
def es_errors(alias: str) -> Iterator[None]:
    """Translate client errors into the two errors the controllers know."""
    try:
        yield
    except NotFoundError as exc:
        log.error("alias %s not found: %s", alias, exc)
        raise SearchUnavailable(f"the index {alias!r} does not exist") from exc
    except BadRequestError as exc:
        log.warning("query rejected by Elasticsearch: %s", exc)
        raise BadQuery("This query could not be run; please simplify it.") from exc
    except (AuthenticationException, AuthorizationException) as exc:
        log.error("search identity refused: %s", exc)
        raise SearchUnavailable("search is misconfigured") from exc
    except ApiError as exc:
        # 5xx and anything else unexpected from the cluster (e.g. 429 when overloaded).
        log.error("search failed: %s", exc)
        raise SearchUnavailable("search failed") from exc
    except TransportError as exc:  # ConnectionError, ConnectionTimeout, SSLError, ...
        log.error("cluster unreachable: %s", exc)
        raise SearchUnavailable("search is unavailable") from exc


class SearchService:
    def __init__(self, client: Elasticsearch, alias: str, config: dict | None = None,
                 taxonomy: Taxonomy | None = None) -> None:
        self.client = client
        self.alias = alias
        self.config = config or search_config()
        self.taxonomy = taxonomy or Taxonomy.load()
        self._profile: tuple[float, str | None] = (0.0, None)

    # --- search ------------------------------------------------------------------------------------

    def search(self, params: SearchParams) -> SearchResult:
        parsed = parse_query(params.q, self.config["max_query_length"])
        always = self._profile_of_live_index() == "core"
        response = self._search(qb.search_body(parsed, params, self.config, fuzzy=always))
        total = response["hits"]["total"]["value"]
        if not always and total < FUZZY_BELOW and qb.has_typo_fallback(parsed, self.config):
            tolerant = self._search(qb.search_body(parsed, params, self.config, fuzzy=True))
            if tolerant["hits"]["total"]["value"] > total:
                response, total = tolerant, tolerant["hits"]["total"]["value"]
        too_deep = qb.is_too_deep(params, self.config)
        reachable = min(total, self.config["max_result_window"])
        did_you_mean = self._did_you_mean(parsed, params, response)
        return SearchResult(
            params=params,
            total=total,
            took_ms=response.get("took", 0),
            hits=[] if too_deep else [to_hit(h, self.taxonomy) for h in response["hits"]["hits"]],
            facets=self._facets(response.get("aggregations", {}), params),
            did_you_mean=did_you_mean,
            page_count=math.ceil(reachable / params.size),
            too_deep=too_deep,
        )

    def _profile_of_live_index(self) -> str | None:
        checked, profile = self._profile
        if time.monotonic() - checked > PROFILE_TTL:
            try:
                with es_errors(self.alias):
                    mappings = self.client.indices.get_mapping(index=self.alias).body
                profile = next(iter(mappings.values()))["mappings"].get("_meta", {}).get("analysis_profile")
            except SearchUnavailable:
                return None  # not cached: the search itself reports the outage
            self._profile = (time.monotonic(), profile)
        return profile

    def _search(self, body: dict) -> dict:
        with es_errors(self.alias):
            return self.client.search(index=self.alias, body=body).body

    def _did_you_mean(self, parsed: ParsedQuery, params: SearchParams, response: dict) -> str | None:
        """The query with unknown words corrected, only if that query finds something."""
        corrections = _corrections(qb.spelling_words(parsed.terms), response)
        if not corrections:
            return None
        corrected = parsed.replace_terms(corrections)
        try:
            with es_errors(self.alias):
                count = self.client.count(index=self.alias, body=qb.count_body(corrected, params, self.config))
        except (SearchUnavailable, BadQuery):
            return None  # a suggestion is optional; the results page must not fail because of it
        return corrected.to_string() if count["count"] else None

    def _facets(self, aggs: dict[str, Any], params: SearchParams) -> list[Facet]:
        facets = []
        for facet in self.config["facets"]:
            buckets = aggs.get(facet["name"], {}).get("values", {}).get("buckets", [])
            if facet["type"] == "hierarchy":
                facets.append(self._topic_facet(facet, buckets, params))
            else:
                facets.append(_terms_facet(facet, buckets, [str(y) for y in params.years]))
        return facets

    def _topic_facet(self, facet: dict, buckets: list[dict], params: SearchParams) -> Facet:
        values: list[FacetValue] = []
        for bucket in buckets:
            area = str(bucket["key"])
            children = [
                self._subarea_value(str(b["key"]), b["doc_count"], params)
                for b in bucket.get("children", {}).get("buckets", [])
                if PATH_SEPARATOR in str(b["key"])  # "Area" alone = no subarea
            ]
            values.append(self._area_value(area, bucket["doc_count"], params, children))
        # A selected value with no hits under the other filters stays visible, so it can be unselected.
        shown = {v.value for v in values}
        for area in params.areas:
            if area not in shown:
                values.append(self._area_value(area, 0, params, []))
                shown.add(area)
        for path in params.subareas:
            area = path.split(PATH_SEPARATOR, 1)[0]
            parent = next((v for v in values if v.value == area), None)
            if parent is None:
                parent = self._area_value(area, 0, params, [])
                values.append(parent)
            if all(c.value != path for c in parent.children):
                parent.children.append(self._subarea_value(path, 0, params))
        return Facet(name=facet["name"], param=facet["levels"][0]["param"], values=values)

    def _area_value(self, area: str, count: int, params: SearchParams, children: list[FacetValue]) -> FacetValue:
        known = self.taxonomy.canonical(area)
        label_zh = self.taxonomy.areas[known.area] if known else area
        return FacetValue(value=area, label=area, label_zh=label_zh, count=count,
                          selected=area in params.areas, children=children)

    def _subarea_value(self, path: str, count: int, params: SearchParams) -> FacetValue:
        area, _, subarea = path.partition(PATH_SEPARATOR)
        known = self.taxonomy.canonical(area, subarea)
        label_zh = self.taxonomy.subareas[(known.area, known.subarea)] if known and known.subarea else subarea
        return FacetValue(value=path, label=subarea, label_zh=label_zh, count=count,
                          selected=path in params.subareas)

    # --- single papers -----------------------------------------------------------------------------

    def get_paper(self, paper_id: str) -> Hit | None:
        """One paper with its whole abstract (escaped) in snippet_html, or None if there is no such id."""
        with es_errors(self.alias):
            response = self.client.search(
                index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                source_excludes=[self.config["suggest_field"]],
            ).body
        hits = response["hits"]["hits"]
        return to_hit(hits[0], self.taxonomy, full_abstract=True) if hits else None

    def similar(self, paper_id: str, size: int = 5) -> list[Hit]:
        """Papers like this one (more_like_this over similar_fields); [] for an unknown id."""
        with es_errors(self.alias):
            index = self._index_of(paper_id)
            if index is None:
                return []
            response = self.client.search(
                index=self.alias, query=qb.more_like_this(index, paper_id, self.config), size=size,
                source_excludes=[self.config["suggest_field"]],
            ).body
        return [to_hit(h, self.taxonomy) for h in response["hits"]["hits"]]

    def _index_of(self, paper_id: str) -> str | None:
        # more_like_this needs the concrete index of the liked document (the alias may span versions).
        response = self.client.search(index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                                      source=False).body
        hits = response["hits"]["hits"]
        return hits[0]["_index"] if hits else None

    # --- autocomplete ------------------------------------------------------------------------------

    def suggest(self, prefix: str, size: int = 8) -> list[Suggestion]:
        """Title and author completions for a prefix, without repeats."""
        prefix = " ".join(prefix.split())[:100]
        if not prefix:
            return []
        with es_errors(self.alias):
            response = self.client.search(
                index=self.alias, suggest=qb.completion_suggest(prefix, size, self.config), size=0,
                source=["authors", "title", "title_zh", "heading"],
            ).body
        out: list[Suggestion] = []
        seen: set[tuple[str, str]] = set()
        for entry in response.get("suggest", {}).get("paper", []):
            for option in entry.get("options", []):
                text = option["text"]
                source = option.get("_source", {})
                kind = "author" if text in (source.get("authors") or []) else "title"
                key = (kind, text.casefold())
                if key in seen:
                    continue
                seen.add(key)
                out.append(Suggestion(text=text, kind=kind, id=option.get("_id") if kind == "title" else None))
        return out[:size]

    # --- health ------------------------------------------------------------------------------------

    def ready(self) -> bool:
        """The cluster answers and the alias exists (GET / is not allowed on every distribution)."""
        try:
            return bool(self.client.indices.exists_alias(name=self.alias))
        except (ApiError, TransportError) as exc:
            log.warning("readiness check failed: %s", exc)
            return False


def _terms_facet(facet: dict, buckets: list[dict], selected: list[str]) -> Facet:
    values = [FacetValue(value=str(b["key"]), label=str(b["key"]), label_zh=str(b["key"]),
                         count=b["doc_count"], selected=str(b["key"]) in selected) for b in buckets]
    values += [FacetValue(value=v, label=v, label_zh=v, count=0, selected=True)
               for v in selected if v not in {x.value for x in values}]
    # Numbers (years) read best newest first; other values keep Elasticsearch's count order.
    if values and all(v.value.isdigit() for v in values):
        values.sort(key=lambda v: int(v.value), reverse=True)
    return Facet(name=facet["name"], param=facet["param"], values=values)


def _corrections(words: list[str], response: dict) -> dict[str, str]:
    """word -> correction, for the query words no paper contains (best option over all spelling fields)."""
    counts = response.get("aggregations", {}).get(qb.KNOWN_WORDS_AGG, {}).get("words", {}).get("buckets", {})
    unknown = {w for i, w in enumerate(words) if counts.get(str(i), {}).get("doc_count", 1) == 0}
    best: dict[str, dict] = {}
    for entries in response.get("suggest", {}).values():
        for entry in entries:
            word = entry["text"].casefold()
            for option in entry.get("options", []) if word in unknown else []:
                if word not in best or (option["score"], option["freq"]) > (best[word]["score"], best[word]["freq"]):
                    best[word] = option
    return {word: option["text"] for word, option in best.items()}
