"""The search service: SearchParams in, SearchResult out; the only place that talks to Elasticsearch.

It sends what the plan (plan.py) lists, rendered by render.py, and reads the answers back into the numbers the
plan decides the next round on. It works with the read-only web identity (search, count and index metadata on
the alias). Elasticsearch failures surface as SearchUnavailable (cluster, timeouts, missing alias) or BadQuery.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextvars import ContextVar
from http import HTTPStatus
from typing import Any

from elasticsearch import Elasticsearch

from papersearch import concepts, index_definition
from papersearch.taxonomy import Taxonomy
from papersearch.text import plain_spelling
from webapp.domain import (
    BadQuery,
    Expansion,
    Hit,
    PartialMatch,
    SearchParams,
    SearchResult,
    SearchUnavailable,
)
from webapp.services import author_names, plan, render
from webapp.services import expansion as xp
from webapp.services.concept_suggest import ConceptSuggester
from webapp.services.es_errors import es_errors
from webapp.services.facet_queries import KNOWN
from webapp.services.facets import facets
from webapp.services.hits import missing_words, relevance_score, to_hit
from webapp.services.labels import TopicLabels
from webapp.services.papers import PaperLookups
from webapp.services.query_parser import ParsedQuery, parse_query
from webapp.services.search_settings import WebSearchConfig, search_config

log = logging.getLogger(__name__)

# Names in SearchResult.fallbacks (see webapp/domain.py): results that are typo-tolerant and for most of
# the words (the relaxation ladder's last step), a correction offered, the corrected query's results shown.
RELAXED, DID_YOU_MEAN, CORRECTED = "relaxed", "did_you_mean", "corrected"
SIMILAR_AUTHORS = "similar_authors"  # an author: name no paper has: similar names searched (author_names.py)
LIVE_TTL = 60.0  # seconds: how long what is known of the live index (profile, papers) is trusted
MIN_REQUEST_TIME = 0.05  # seconds: with less of the budget left, a request is not worth sending
_deadline: ContextVar[float | None] = ContextVar("search_deadline", default=None)
Spelled = tuple[frozenset[str], ParsedQuery | None]  # the words no paper contains; the query with them corrected
# Called with each request of a search, its body, and the answer (the explain command shows them).
Trace = Callable[[plan.Request, Any, Any], None]
Answer = dict[str, Any]


class SearchService(PaperLookups):
    def __init__(self, client: Elasticsearch, alias: str, config: WebSearchConfig | None = None,
                 taxonomy: Taxonomy | None = None, matcher: concepts.ConceptMatcher | None = None,
                 budget: float | None = None) -> None:
        self.client = client
        # Seconds for all of one search's requests together (None: each request has the client's timeout), so
        # a slow or frozen cluster costs a visitor one budget, not one per round trip (DECISIONS.md D-103).
        self.budget = budget
        self.alias = alias
        self.config = config or search_config()
        # Completions are indexed from the first max_input_length characters: a longer prefix cannot match more.
        completion = index_definition.load()["mappings"]["properties"][self.config.suggest_field]
        self.prefix_limit: int = completion.get("max_input_length", 50)
        self.taxonomy = taxonomy or Taxonomy.load()
        self.labels = TopicLabels(self.taxonomy)
        self.matcher = matcher or concepts.matcher()  # config/concepts.tsv, read once per process
        self.concept_suggester = ConceptSuggester(self.matcher.glossary)
        self._live: tuple[float, plan.Live] = (0.0, plan.Live())

    # --- search ------------------------------------------------------------------------------------

    def search(self, params: SearchParams, trace: Trace | None = None) -> SearchResult:
        self.start_budget()
        s = self.plan(params)
        found = list(s.found)
        send = _Sender(self, trace)
        # Round 1: the words as typed (with the count apart and, on a core index, the spelling check).
        first, count, spelling = s.first()
        response, as_typed, spelled = send.first(first, count, spelling, s)
        shown, fallbacks, partial, showing_for = first, [], None, None
        # Round 2: the spelling check, when too few papers were found.
        if check_spelling := s.second(as_typed, bool(spelled and spelled[1])):
            spelled = send.spelling(check_spelling, s)
        unknown, corrected = spelled or (frozenset(), None)
        # Round 3: the corrected query's results when nothing has the words; else most of the words, and
        # whether the corrected query finds anything.
        third = s.third(as_typed, unknown, corrected)
        if third.corrected:
            fixed = plan.Search(third.corrected, params, self.config, tuple(self._expansions(third.corrected, params)),
                                s.live)
            page = fixed.page("as_typed", fixed.text(fixed.core))
            answer = send.page(page)
            if _total(answer)[0]:
                response, shown, found, showing_for = answer, page, list(fixed.found), third.corrected.to_string()
                fallbacks.append(CORRECTED)
            else:
                third = s.third(as_typed, unknown, None)
        confirmed = False
        if third.relaxed:
            relaxed, confirmed = send.relaxed(third.relaxed, third.check)
            if relaxed and s.show_relaxed(*_total(relaxed), *_total(response)):
                partial = PartialMatch(all_words=as_typed)  # the papers with every word, as typed, come first
                response, shown = relaxed, third.relaxed
                fallbacks.append(RELAXED)
        elif third.check:
            confirmed = send.finds_any(third.check)
        did_you_mean = corrected.to_string() if corrected and confirmed and not showing_for else None
        if did_you_mean:
            fallbacks.append(DID_YOU_MEAN)
        similar = [c.text for c in s.parsed.clauses if c.fuzzy]
        if similar:
            fallbacks.append(SIMILAR_AUTHORS)
        total = response["hits"]["total"]
        facets_request = s.facets(shown, total["relation"] == "eq")
        aggregations = send.facets(facets_request) if facets_request else response.get("aggregations", {})
        window = self.config.max_result_window
        too_deep = params.too_deep_for(total["value"], window, total["relation"] == "eq")
        return SearchResult(
            params=params,
            total=total["value"],
            total_is_exact=total["relation"] == "eq",
            took_ms=response.get("took", 0),
            hits=[] if too_deep else [self._hit(h, shown, partial) for h in response["hits"]["hits"]],
            facets=facets(aggregations, params, self.config, self.labels),
            facets_are_estimates=bool(facets_request and facets_request.probability < 1),
            did_you_mean=did_you_mean,
            showing_for=showing_for,
            searched=s.parsed.to_string() if s.parsed.cut else None,
            partial_match=partial,
            expansions=[Expansion(typed=e.typed, concepts=list(e.ids), also_searched=list(e.shown),
                                  forms=[*e.en, *e.zh]) for e in found],
            page_count=params.page_count(total["value"], window),
            too_deep=too_deep,
            fallbacks=fallbacks,
            similar_authors=similar,
        )

    def plan(self, params: SearchParams) -> plan.Search:
        """The search's inputs: the parsed query (author: names looked up), the glossary concepts recognised in it
        (unless xl=0), what is known of the live index."""
        parsed = author_names.resolve(self, parse_query(params.q))
        return plan.Search(parsed, params, self.config, tuple(self._expansions(parsed, params)), self.live_index())

    def cost(self, params: SearchParams) -> int:
        """What the search will weigh in the rate limit (plan.cost), without asking Elasticsearch anything."""
        parsed = parse_query(params.q)  # BadQuery for too many clauses: answered 400 without searching
        return plan.cost(parsed, self._expansions(parsed, params), params.size, self.config)

    def _expansions(self, parsed: ParsedQuery, params: SearchParams) -> list[xp.Expansion]:
        xl = self.config.cross_lingual
        if not params.xl:
            return []
        terms = [plain_spelling(t) for t in parsed.terms]  # ℓ1 regularization is the concept L1 regularization
        found = xp.expansions(terms, self.matcher, xl.max_forms, xl.max_concepts, xl.max_term_length)
        groups = parsed.term_groups  # a word typed with OR is searched as typed: no concept spans an alternative
        return [e for e in found if not any(groups[k] for k in range(e.first, e.last + 1))]

    def _hit(self, raw: dict, shown: plan.Page, partial: PartialMatch | None) -> Hit:
        hit = to_hit(raw, self.labels)
        matched = raw.get("matched_queries", [])
        # In place: the hit is ours alone, so no model_copy (a second model per hit).
        hit.score = relevance_score(hit.score, matched, self.config)
        words = [(w.index, w.text) for w in shown.text.words] if partial and shown.text else []
        hit.missing = missing_words(matched, words) if partial else []
        return hit

    def start_budget(self) -> None:
        """Start one search's (or one page's) time budget: the requests after it share what is left."""
        _deadline.set(time.monotonic() + self.budget if self.budget else None)

    def es(self) -> Elasticsearch:
        """The client, with what is left of this search's time budget as its timeout."""
        deadline = _deadline.get()
        if deadline is None:
            return self.client
        left = deadline - time.monotonic()
        if left <= MIN_REQUEST_TIME:
            log.error("search budget of %.1f s used up", self.budget or 0)
            raise SearchUnavailable("search is too slow right now")
        return self.client.options(request_timeout=left)

    def live_index(self) -> plan.Live:
        """The live index's analysis profile and size, looked up at most once a minute per process; not kept
        when the cluster does not answer (the search itself then reports the outage)."""
        checked, live = self._live
        if time.monotonic() - checked > LIVE_TTL:
            try:
                with es_errors(self.alias, "mapping"):
                    mappings = self.es().indices.get_mapping(index=self.alias).body
                    papers = self.es().count(index=self.alias).body["count"]
            except SearchUnavailable:
                return plan.Live()
            profile = next(iter(mappings.values()))["mappings"].get("_meta", {}).get("analysis_profile")
            live = plan.Live(profile, papers)
            self._live = (time.monotonic(), live)
        return live


class _Sender:
    """One search's round trips: renders each request, sends a round as one search or one _msearch, and reads
    each answer back (which failures end the search and which only cost a suggestion)."""

    def __init__(self, service: SearchService, trace: Trace | None) -> None:
        self.service, self.config, self.alias, self.trace = service, service.config, service.alias, trace

    def _bodies(self, requests: list[plan.Request]) -> list[tuple[plan.Request, Any]]:
        out = []
        for r in requests:
            if log.isEnabledFor(logging.DEBUG) and isinstance(r, plan.Page):
                from webapp.services.describe import describe

                log.debug("search plan\n%s", describe(r))
            out.append((r, render.body(r, self.config)))
        return out

    def _round(self, requests: list[plan.Request], kind: str, cache: bool = False) -> list[Answer | list[Answer]]:
        """The answers of one round, one per request (a Spelling's: one per body)."""
        rendered = self._bodies(requests)
        flat = [b for _, body in rendered for b in (body if isinstance(body, list) else [body])]
        with es_errors(self.alias, kind):
            es = self.service.es()
            if len(flat) == 1:
                answers = [es.search(index=self.alias, body=flat[0], request_cache=True if cache else None).body]
            else:
                answers = es.msearch(index=self.alias, searches=[x for b in flat for x in ({}, b)]).body["responses"]
        out: list[Answer | list[Answer]] = []
        for request, body in rendered:
            n = len(body) if isinstance(body, list) else 1
            answer, answers = (answers[:n] if isinstance(body, list) else answers[0]), answers[n:]
            if self.trace:
                self.trace(request, body, answer)
            out.append(answer)
        return out

    def first(self, page: plan.Page, count: plan.Count | None, spelling: plan.Spelling | None,
              s: plan.Search) -> tuple[Answer, int, Spelled | None]:
        """The first round; how many papers the words as typed find (the page's total, or the count's, which
        stops at the ladder's threshold); the spelling check's reading when it came along."""
        requests = [r for r in (page, count, spelling) if r is not None]
        response, *rest = self._round(requests, "search", cache=page.cacheable)
        counted = rest.pop(0) if count else None
        for item in (response, counted):
            if item is not None and "error" in item:
                log.error("search failed: %s", item["error"])
                raise (BadQuery("This query could not be run; please simplify it.")
                       if item.get("status") == HTTPStatus.BAD_REQUEST else SearchUnavailable("search failed"))
        as_typed = (counted or response)["hits"]["total"]["value"]
        return response, as_typed, _spelled(s, spelling.words, rest[0]) if spelling else None

    def page(self, page: plan.Page) -> Answer:
        """One results page on its own (the corrected query's)."""
        answer, = self._round([page], "search")
        return answer

    def spelling(self, spelling: plan.Spelling, s: plan.Search) -> Spelled:
        """The checked words no paper contains, and the query with those corrected (when the term suggesters
        have a correction). A failed request or item counts as a known word / no suggestion (a correction is
        optional)."""
        try:
            answers, = self._round([spelling], "spelling")
        except (SearchUnavailable, BadQuery):
            return frozenset(), None
        return _spelled(s, spelling.words, answers)

    def relaxed(self, page: plan.Page, check: plan.Page | None) -> tuple[Answer | None, bool]:
        """The relaxed search, or None when Elasticsearch refuses it (a pasted page of Chinese can exceed
        the clause limit twice over): the words as typed already have their results. With a did-you-mean
        check, both in one _msearch, and whether the check found anything."""
        try:
            answers = self._round([page] + ([check] if check else []), "msearch" if check else "search")
        except BadQuery:
            return None, False
        relaxed, checked = answers[0], answers[1] if check else None
        if "error" in relaxed and relaxed.get("status") != HTTPStatus.BAD_REQUEST:
            log.error("relaxed search failed: %s", relaxed["error"])
            raise SearchUnavailable("search failed")
        if "error" in relaxed:
            log.warning("relaxed query rejected by Elasticsearch: %s", relaxed["error"])
        return (None if "error" in relaxed else relaxed), checked is not None and _found(checked)

    def finds_any(self, check: plan.Page) -> bool:
        """Whether a did-you-mean check finds a paper; False when it fails (a suggestion is optional)."""
        try:
            answer, = self._round([check], "count")
        except (SearchUnavailable, BadQuery):
            return False
        return _found(answer)

    def facets(self, request: plan.Facets) -> dict:
        answer, = self._round([request], "facets")
        aggregations = answer.get("aggregations", {})
        if request.probability >= 1:
            return aggregations
        return {**aggregations.get(render.SAMPLE_AGG, {}), **{k: v for k, v in aggregations.items() if k == KNOWN}}


def _total(response: Answer) -> tuple[int, bool]:
    total = response["hits"]["total"]
    return total["value"], total["relation"] == "eq"


def _spelled(s: plan.Search, words: tuple[str, ...], responses: list[Answer]) -> Spelled:
    """The spelling check's answers (the suggestions, then one count per word) read into the numbers
    plan.corrections decides on: papers per word (a failed count: a known word), and each word's options."""
    suggested, *checks = responses
    counts = {w: c["hits"]["total"]["value"] for w, c in zip(words, checks, strict=True) if "error" not in c}
    options: dict[str, list[plan.Option]] = {}
    fields = s.config.spelling.fields
    authors = set(s.config.field_aliases.author)
    for name, entries in ([] if "error" in suggested else suggested.get("suggest", {}).items()):
        author = fields[int(name.rsplit("_", 1)[1])] in authors  # render.py names them spell_<field index>
        for entry in entries:
            options.setdefault(entry["text"].casefold(), []).extend(
                plan.Option(o["text"], o["score"], o["freq"], author) for o in entry.get("options", []))
    return s.corrections(counts, options)


def _found(response: Answer) -> bool:
    """Whether a search (or an _msearch item) found a paper; False for a failed item."""
    return "error" not in response and response["hits"]["total"]["value"] > 0
