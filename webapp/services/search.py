"""The search service: SearchParams in, SearchResult out; the only place that talks to Elasticsearch.

It works with the read-only web identity (search, count and index metadata on the alias).
Elasticsearch failures surface as SearchUnavailable (cluster, timeouts, missing alias) or BadQuery.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from elasticsearch import (
    ApiError,
    AuthenticationException,
    AuthorizationException,
    BadRequestError,
    Elasticsearch,
    NotFoundError,
    TransportError,
)

from papersearch import concepts, index_definition
from papersearch.taxonomy import Taxonomy
from webapp import metrics
from webapp.domain import BadQuery, Expansion, Hit, SearchParams, SearchResult, SearchUnavailable, Suggestion
from webapp.services import expansion as xp
from webapp.services import query_builders as qb
from webapp.services import request_parts as rp
from webapp.services.concept_suggest import ConceptSuggester
from webapp.services.facets import facets
from webapp.services.hits import to_hit
from webapp.services.query_parser import ParsedQuery, parse_query

log = logging.getLogger(__name__)

# Names in SearchResult.fallbacks (see webapp/domain.py).
TYPO, DID_YOU_MEAN = "typo", "did_you_mean"
FUZZY_BELOW = 3  # see DECISIONS.md "Typo fallback only below 3 hits (always on core)"
CONCEPT_SUGGESTIONS = 3  # glossary concepts offered first among the completions
PROFILE_TTL = 60.0  # seconds: how long the live index's analysis profile is trusted after a look-up

@contextmanager
def es_errors(alias: str, kind: str) -> Iterator[None]:
    """Translate client errors into the two errors the controllers know; time the request(s) as `kind`
    (the label of papersearch_es_request_duration_seconds)."""
    try:
        with metrics.es_request(kind):
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
                 taxonomy: Taxonomy | None = None, matcher: concepts.ConceptMatcher | None = None) -> None:
        self.client = client
        self.alias = alias
        self.config = config or index_definition.search_config()
        # Completions are indexed from the first max_input_length characters: a longer prefix cannot match more.
        completion = index_definition.load()["mappings"]["properties"][self.config["suggest_field"]]
        self.prefix_limit: int = completion.get("max_input_length", 50)
        self.taxonomy = taxonomy or Taxonomy.load()
        self.matcher = matcher or concepts.matcher()  # config/concepts.tsv, read once per process
        self.concept_suggester = ConceptSuggester(self.matcher.glossary)
        self._profile: tuple[float, str | None] = (0.0, None)

    # --- search ------------------------------------------------------------------------------------

    def search(self, params: SearchParams) -> SearchResult:
        parsed = parse_query(params.q)
        xl = self.config["cross_lingual"]
        found = (xp.expansions(parsed.terms, self.matcher, xl["max_forms"], xl["max_concepts"], xl["max_term_length"])
                 if params.xl else [])
        always = self._profile_of_live_index() == "core"
        response = self._search(qb.search_body(parsed, params, self.config, fuzzy=always, expansions=found))
        total = response["hits"]["total"]["value"]
        fallbacks: list[str] = []
        if not always and total < FUZZY_BELOW and qb.has_typo_fallback(parsed, self.config):
            tolerant = self._search(qb.search_body(parsed, params, self.config, fuzzy=True, expansions=found))
            if tolerant["hits"]["total"]["value"] > total:
                response, total = tolerant, tolerant["hits"]["total"]["value"]
                fallbacks.append(TYPO)
        window = self.config["max_result_window"]
        too_deep = params.is_too_deep(window)
        did_you_mean = self._did_you_mean(parsed, params, response)
        if did_you_mean:
            fallbacks.append(DID_YOU_MEAN)
        return SearchResult(
            params=params,
            total=total,
            took_ms=response.get("took", 0),
            hits=[] if too_deep else [to_hit(h, self.taxonomy) for h in response["hits"]["hits"]],
            facets=facets(response.get("aggregations", {}), params, self.config, self.taxonomy),
            did_you_mean=did_you_mean,
            expansions=[Expansion(typed=e.typed, concepts=list(e.ids), also_searched=list(e.shown),
                                  forms=[*e.en, *e.zh]) for e in found],
            page_count=params.page_count(total, window),
            too_deep=too_deep,
            fallbacks=fallbacks,
        )

    def _profile_of_live_index(self) -> str | None:
        checked, profile = self._profile
        if time.monotonic() - checked > PROFILE_TTL:
            try:
                with es_errors(self.alias, "mapping"):
                    mappings = self.client.indices.get_mapping(index=self.alias).body
                profile = next(iter(mappings.values()))["mappings"].get("_meta", {}).get("analysis_profile")
            except SearchUnavailable:
                return None  # not cached: the search itself reports the outage
            self._profile = (time.monotonic(), profile)
        return profile

    def _search(self, body: dict) -> dict:
        with es_errors(self.alias, "search"):
            return self.client.search(index=self.alias, body=body).body

    def _did_you_mean(self, parsed: ParsedQuery, params: SearchParams, response: dict) -> str | None:
        """The query with unknown words corrected, only if that query finds something."""
        corrections = _corrections(rp.spelling_words(parsed.terms), response)
        if not corrections:
            return None
        corrected = parsed.replace_terms(corrections)
        try:
            with es_errors(self.alias, "count"):
                count = self.client.count(index=self.alias, body=qb.count_body(corrected, params, self.config))
        except (SearchUnavailable, BadQuery):
            return None  # a suggestion is optional; the results page must not fail because of it
        return corrected.to_string() if count["count"] else None

    # --- single papers -----------------------------------------------------------------------------

    def get_paper(self, paper_id: str) -> Hit | None:
        """One paper with its whole abstract (escaped) in snippet_html, or None if there is no such id."""
        with es_errors(self.alias, "get"):
            response = self.client.search(
                index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                source_excludes=[self.config["suggest_field"]],
            ).body
        hits = response["hits"]["hits"]
        return to_hit(hits[0], self.taxonomy, full_abstract=True) if hits else None

    def similar(self, paper_id: str, size: int = 5) -> list[Hit]:
        """Papers like this one (more_like_this over similar_fields); [] for an unknown id."""
        with es_errors(self.alias, "mlt"):  # the liked paper's index, then more_like_this
            index = self._index_of(paper_id)
            if index is None:
                return []
            response = self.client.search(
                index=self.alias, query=rp.more_like_this(index, paper_id, self.config), size=size,
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
        """Glossary concepts in both languages, then title and author completions, without repeats."""
        prefix = prefix[:self.prefix_limit]
        if not prefix:
            return []
        out: list[Suggestion] = [Suggestion(text=c.text, kind="concept", other=c.other)
                                 for c in self.concept_suggester.suggest(prefix, min(size, CONCEPT_SUGGESTIONS))]
        with es_errors(self.alias, "suggest"):
            response = self.client.search(
                index=self.alias, suggest=rp.completion_suggest(prefix, size, self.config), size=0,
                source=["authors", "title", "title_zh", "heading"],
            ).body
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


def _corrections(words: list[str], response: dict) -> dict[str, str]:
    """word -> correction, for the query words no paper contains (best option over all spelling fields)."""
    counts = response.get("aggregations", {}).get(rp.KNOWN_WORDS_AGG, {}).get("words", {}).get("buckets", {})
    unknown = {w for i, w in enumerate(words) if counts.get(str(i), {}).get("doc_count", 1) == 0}
    best: dict[str, dict] = {}
    for entries in response.get("suggest", {}).values():
        for entry in entries:
            word = entry["text"].casefold()
            for option in entry.get("options", []) if word in unknown else []:
                if word not in best or (option["score"], option["freq"]) > (best[word]["score"], best[word]["freq"]):
                    best[word] = option
    return {word: option["text"] for word, option in best.items()}
