"""The search service: SearchParams in, SearchResult out; the only place that talks to Elasticsearch.

It works with the read-only web identity (search, count and index metadata on the alias).
Elasticsearch failures surface as SearchUnavailable (cluster, timeouts, missing alias) or BadQuery.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from dataclasses import dataclass
from http import HTTPStatus

from elasticsearch import Elasticsearch

from papersearch import concepts, index_definition
from papersearch.taxonomy import Taxonomy
from webapp.domain import (
    BadQuery,
    Expansion,
    Hit,
    PartialMatch,
    SearchParams,
    SearchResult,
    SearchUnavailable,
)
from webapp.services import expansion as xp
from webapp.services import plan, render
from webapp.services import relaxation as rx
from webapp.services import word_queries as wq
from webapp.services.concept_suggest import ConceptSuggester
from webapp.services.es_errors import es_errors
from webapp.services.facets import facets
from webapp.services.hits import to_hit
from webapp.services.labels import TopicLabels
from webapp.services.papers import PaperLookups
from webapp.services.query_parser import ParsedQuery, parse_query

log = logging.getLogger(__name__)

# Names in SearchResult.fallbacks (see webapp/domain.py): results that are typo-tolerant and for most of
# the words (the relaxation ladder's last step), a correction offered.
RELAXED, DID_YOU_MEAN = "relaxed", "did_you_mean"
LIVE_TTL = 60.0  # seconds: how long what is known of the live index (profile, papers) is trusted
MIN_REQUEST_TIME = 0.05  # seconds: with less of the budget left, a request is not worth sending
_deadline: ContextVar[float | None] = ContextVar("search_deadline", default=None)
Spelled = tuple[frozenset[str], ParsedQuery | None]  # the words no paper contains; the query with them corrected


@dataclass(frozen=True)
class LiveIndex:
    profile: str | None = None  # analysis profile: "plugin", "core"
    papers: int = 0

class SearchService(PaperLookups):
    def __init__(self, client: Elasticsearch, alias: str, config: dict | None = None,
                 taxonomy: Taxonomy | None = None, matcher: concepts.ConceptMatcher | None = None,
                 budget: float | None = None) -> None:
        self.client = client
        # Seconds for all of one search's requests together (None: each request has the client's timeout), so
        # a slow or frozen cluster costs a visitor one budget, not one per round trip (DECISIONS.md "Search
        # cost: one time budget per search").
        self.budget = budget
        self.alias = alias
        self.config = config or index_definition.search_config()
        # Completions are indexed from the first max_input_length characters: a longer prefix cannot match more.
        completion = index_definition.load()["mappings"]["properties"][self.config["suggest_field"]]
        self.prefix_limit: int = completion.get("max_input_length", 50)
        self.taxonomy = taxonomy or Taxonomy.load()
        self.labels = TopicLabels(self.taxonomy)
        self.matcher = matcher or concepts.matcher()  # config/concepts.tsv, read once per process
        self.concept_suggester = ConceptSuggester(self.matcher.glossary)
        self._live: tuple[float, LiveIndex] = (0.0, LiveIndex())

    # --- search ------------------------------------------------------------------------------------

    def search(self, params: SearchParams) -> SearchResult:
        _deadline.set(time.monotonic() + self.budget if self.budget else None)
        parsed = parse_query(params.q)
        xl = self.config["cross_lingual"]
        found = (xp.expansions(parsed.terms, self.matcher, xl["max_forms"], xl["max_concepts"], xl["max_term_length"])
                 if params.xl else [])
        live = self.live_index()
        always = live.profile == "core"
        big = live.papers > self.config["large_index"]["above"]  # facets apart (render.hits_body, facets_body)
        shown = first = plan.first(parsed, params, self.config, found, fuzzy=always, as_typed_fuzzy=always)
        # On a core index the first request is typo-tolerant and may find enough papers for a misspelt word:
        # its spelling is checked with it (DECISIONS.md "Search cost: the spelling check only when it can help").
        response, as_typed, spelled = self._first(first, parsed, big, with_spelling=always)
        fallbacks: list[str] = []
        partial: PartialMatch | None = None
        did_you_mean: str | None = None
        too_few = as_typed < self.config["relaxation"]["below"]
        if too_few or (spelled and spelled[1]):
            # Which words no paper contains, and their corrections; typo tolerance on those words (all words on
            # a core index) and most of the words when too few were found; a correction is offered when it
            # finds something.
            unknown, corrected = spelled or self._spelling(parsed, list(first.spelling))
            typos = True if always else wq.typo_words(parsed.terms, unknown, self.config)
            check = self._body(plan.check(corrected, params, self.config)) if corrected else None
            if too_few and rx.can_relax(parsed.terms, bool(typos)):
                wider = plan.relaxed(parsed, params, self.config, found, typos, as_typed_fuzzy=always)
                relaxed, confirmed = self._relaxed(self._body(wider, big), check)
                if relaxed and _more(relaxed, response):
                    partial = PartialMatch(all_words=as_typed)  # the papers with every word, as typed, come first
                    response, shown = relaxed, wider
                    fallbacks.append(RELAXED)
            else:
                confirmed = self._finds_any(check) if check else False
            did_you_mean = corrected.to_string() if corrected and confirmed else None
        if did_you_mean:
            fallbacks.append(DID_YOU_MEAN)
        total = response["hits"]["total"]
        aggregations, sampled = self._facets(shown, total, live) if big else (response.get("aggregations", {}), False)
        window = self.config["max_result_window"]
        too_deep = params.is_too_deep(window)
        return SearchResult(
            params=params,
            total=total["value"],
            total_is_exact=total["relation"] == "eq",
            took_ms=response.get("took", 0),
            hits=[] if too_deep else [self._hit(h, parsed, partial) for h in response["hits"]["hits"]],
            facets=facets(aggregations, params, self.config, self.labels),
            facets_are_estimates=sampled,
            did_you_mean=did_you_mean,
            partial_match=partial,
            expansions=[Expansion(typed=e.typed, concepts=list(e.ids), also_searched=list(e.shown),
                                  forms=[*e.en, *e.zh]) for e in found],
            page_count=params.page_count(total["value"], window),
            too_deep=too_deep,
            fallbacks=fallbacks,
        )

    def _facets(self, shown: plan.Plan, total: dict, live: LiveIndex) -> tuple[dict, bool]:
        """The facets of the page shown, in a request of their own (an index above large_index.above papers):
        exact when the search matches fewer than max_result_window papers, else estimated from a random
        sample of about large_index.sample papers of the index. Whether they are estimates."""
        settings = self.config["large_index"]
        exact = total["relation"] == "eq" or live.papers <= settings["sample"]
        probability = 1.0 if exact else min(0.5, settings["sample"] / live.papers)
        with es_errors(self.alias, "facets"):
            answer = self._es().search(index=self.alias, body=render.facets_body(shown, self.config, probability)).body
        aggregations = answer.get("aggregations", {})
        return (aggregations, False) if exact else (aggregations.get(render.SAMPLE_AGG, {}), True)

    def _body(self, p: plan.Plan, big: bool = False) -> dict:
        """The plan's request (logged at DEBUG): a whole results page, or on a large index its hits only."""
        if log.isEnabledFor(logging.DEBUG):
            log.debug("search plan\n%s", plan.describe(p))
        return render.hits_body(p, self.config) if big and p.tier != "check" else render.body(p, self.config)

    def _first(self, p: plan.Plan, parsed: ParsedQuery, big: bool, with_spelling: bool = False
               ) -> tuple[dict, int, Spelled | None]:
        """The first request; how many papers the words as typed find: its total, or, when concepts also let
        papers in the other language in, a count of its own that stops at the ladder's threshold (all the
        ladder needs to know); with_spelling, also the spelling check (_spelling) in the same _msearch."""
        body = self._body(p, big)
        spelling = render.spelling_bodies(list(p.spelling), self.config) if with_spelling and p.spelling else []
        if not p.count_as_typed and not spelling:
            response = self._search(body, cache=p.cacheable)
            return response, response["hits"]["total"]["value"], None
        count = [render.count_as_typed(p, self.config)] if p.count_as_typed else []
        response, *rest = self._msearch([body, *count, *spelling], "search")
        for item in (response, *rest[:len(count)]):
            if "error" in item:
                log.error("search failed: %s", item["error"])
                raise (BadQuery("This query could not be run; please simplify it.")
                       if item.get("status") == HTTPStatus.BAD_REQUEST else SearchUnavailable("search failed"))
        as_typed = rest[0]["hits"]["total"]["value"] if count else response["hits"]["total"]["value"]
        spelled = _spelled(parsed, list(p.spelling), rest[len(count):]) if spelling else None
        return response, as_typed, spelled

    def _spelling(self, parsed: ParsedQuery, words: list[str]) -> Spelled:
        """The checked words no paper contains, and the query with those corrected (when the term suggesters
        have a correction): a suggestion request and one count per word that stops at the first paper, in one
        _msearch. A failed request or item counts as a known word / no suggestion (a correction is optional)."""
        if not words:
            return frozenset(), None
        try:
            responses = self._msearch(render.spelling_bodies(words, self.config), "spelling")
        except (SearchUnavailable, BadQuery):
            return frozenset(), None
        return _spelled(parsed, words, responses)

    def _msearch(self, bodies: list[dict], kind: str) -> list[dict]:
        with es_errors(self.alias, kind):
            answer = self._es().msearch(index=self.alias, searches=[x for b in bodies for x in ({}, b)]).body
        return answer["responses"]

    def _relaxed(self, body: dict, check: dict | None) -> tuple[dict | None, bool]:
        """The relaxed search, or None when Elasticsearch refuses it (a pasted page of Chinese can exceed
        the clause limit twice over): the words as typed already have their results. With a did-you-mean
        check, both in one _msearch, and whether the check found anything."""
        try:
            if check is None:
                return self._search(body), False
            relaxed, checked = self._msearch([body, check], "msearch")
        except BadQuery:
            return None, False
        if "error" in relaxed and relaxed.get("status") != HTTPStatus.BAD_REQUEST:
            log.error("relaxed search failed: %s", relaxed["error"])
            raise SearchUnavailable("search failed")
        if "error" in relaxed:
            log.warning("relaxed query rejected by Elasticsearch: %s", relaxed["error"])
        return (None if "error" in relaxed else relaxed), _found(checked)

    def _hit(self, raw: dict, parsed: ParsedQuery, partial: PartialMatch | None) -> Hit:
        hit = to_hit(raw, self.labels)
        matched = raw.get("matched_queries", [])
        # In place: the hit is ours alone, so no model_copy (a second model per hit).
        hit.score = rx.relevance_score(hit.score, matched, self.config)
        hit.missing = rx.missing_words(matched, parsed.terms) if partial else []
        return hit

    def _es(self) -> Elasticsearch:
        """The client, with what is left of this search's time budget as its timeout."""
        deadline = _deadline.get()
        if deadline is None:
            return self.client
        left = deadline - time.monotonic()
        if left <= MIN_REQUEST_TIME:
            log.error("search budget of %.1f s used up", self.budget or 0)
            raise SearchUnavailable("search is too slow right now")
        return self.client.options(request_timeout=left)

    def live_index(self) -> LiveIndex:
        """The live index's analysis profile and size, looked up at most once a minute per process; not kept
        when the cluster does not answer (the search itself then reports the outage)."""
        checked, live = self._live
        if time.monotonic() - checked > LIVE_TTL:
            try:
                with es_errors(self.alias, "mapping"):
                    mappings = self._es().indices.get_mapping(index=self.alias).body
                    papers = self._es().count(index=self.alias).body["count"]
            except SearchUnavailable:
                return LiveIndex()
            profile = next(iter(mappings.values()))["mappings"].get("_meta", {}).get("analysis_profile")
            live = LiveIndex(profile, papers)
            self._live = (time.monotonic(), live)
        return live

    def _search(self, body: dict, cache: bool = False) -> dict:
        """One search; `cache`: kept in the shard request cache (only requests without words: the browse page
        and filter-only pages are the same for everyone, and pages of hits are not cached by default)."""
        with es_errors(self.alias, "search"):
            return self._es().search(index=self.alias, body=body, request_cache=True if cache else None).body

    def _finds_any(self, check: dict) -> bool:
        """Whether a did-you-mean check finds a paper; False when it fails (a suggestion is optional)."""
        try:
            with es_errors(self.alias, "count"):
                return _found(self._es().search(index=self.alias, body=check).body)
        except (SearchUnavailable, BadQuery):
            return False


def _spelled(parsed: ParsedQuery, words: list[str], responses: list[dict]) -> Spelled:
    """From the spelling check's answers (render.spelling_bodies): the unknown words, the corrected query."""
    suggested, *checks = responses
    unknown = frozenset(w for w, c in zip(words, checks, strict=True) if "error" not in c and not _found(c))
    corrections = _corrections(unknown, suggested) if "error" not in suggested else {}
    return unknown, parsed.replace_terms(corrections) if corrections else None


def _more(relaxed: dict, first: dict) -> bool:
    """Whether the relaxed request found more papers (when both totals stop at the count limit, it is shown:
    the words as typed found too few in their own language)."""
    a, b = relaxed["hits"]["total"], first["hits"]["total"]
    return a["value"] > b["value"] or a["relation"] == b["relation"] == "gte"


def _found(response: dict) -> bool:
    """Whether a search (or an _msearch item) found a paper; False for a failed item."""
    return "error" not in response and response["hits"]["total"]["value"] > 0


def _corrections(unknown: frozenset[str], response: dict) -> dict[str, str]:
    """word -> correction, for the query words no paper contains (best option over all spelling fields)."""
    best: dict[str, dict] = {}
    for entries in response.get("suggest", {}).values():
        for entry in entries:
            word = entry["text"].casefold()
            for option in entry.get("options", []) if word in unknown else []:
                if word not in best or (option["score"], option["freq"]) > (best[word]["score"], best[word]["freq"]):
                    best[word] = option
    return {word: option["text"] for word, option in best.items()}
