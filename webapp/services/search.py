"""The search service: SearchParams in, SearchResult out.

It runs the plan's ladder (plan/ladder.py: every decision of a search) as a loop: each round's requests rendered by
bodies/render.py, sent by the Elasticsearch access (es/access.py: one time budget, errors mapped, a trace), their
answers read back into the numbers the plan decides the next round on; the plan's outcome becomes the result.
It works with the read-only web identity (search, count and index metadata on the alias). Elasticsearch
failures surface as SearchUnavailable (cluster, timeouts, missing alias) or BadQuery.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from elasticsearch import Elasticsearch

from papersearch import concepts, index_definition, meaning
from papersearch.taxonomy import Taxonomy
from papersearch.text import plain_spelling
from webapp.domain import (
    Expansion,
    Hit,
    PartialMatch,
    SearchParams,
    SearchResult,
    SearchUnavailable,
)
from webapp.services.bodies import render
from webapp.services.by_meaning import MeaningSearch
from webapp.services.es.access import EsAccess, Trace
from webapp.services.es.errors import es_errors
from webapp.services.facets.kind import KNOWN
from webapp.services.lookups.concept_suggest import ConceptSuggester
from webapp.services.lookups.papers import PaperLookups
from webapp.services.plan import ladder as plan
from webapp.services.plan import requests as pr
from webapp.services.query import author_names
from webapp.services.query import expansion as xp
from webapp.services.query.parser import ParsedQuery, parse_query
from webapp.services.results.hits import missing_words, relevance_score, to_hit
from webapp.services.results.topic_labels import TopicLabels
from webapp.services.search_settings import WebSearchConfig, search_config

log = logging.getLogger(__name__)

LIVE_TTL = 60.0  # seconds: how long what is known of the live index (profile, papers) is trusted
# Each round's label in /metrics (papersearch_es_request_duration_seconds kind); the relaxed round with its
# did-you-mean check beside it is an "msearch".
KINDS: dict[str, str] = {"as_typed": "search", "spelling_check": "spelling", "corrected": "search",
                         "relaxed": "search", "did_you_mean": "count", "facets": "facets"}


@dataclass(frozen=True)
class Prepared:
    """A search's query parsed and its glossary concepts found, without asking Elasticsearch: what the rate limit
    prices and the search then runs, made once per request (DECISIONS.md D-183) for the words and xl it was made
    from."""

    q: str
    xl: bool
    parsed: ParsedQuery
    found: tuple[xp.Expansion, ...]

    def fits(self, params: SearchParams) -> bool:
        return (params.q, params.xl) == (self.q, self.xl)


class SearchService:
    def __init__(self, client: Elasticsearch, alias: str, config: WebSearchConfig | None = None,
                 taxonomy: Taxonomy | None = None, matcher: concepts.ConceptMatcher | None = None,
                 budget: float | None = None) -> None:
        self.client = client
        self.alias = alias
        self.config = config or search_config()
        self.access = EsAccess(client, alias, self.config, budget)
        self.taxonomy = taxonomy or Taxonomy.load()
        self.labels = TopicLabels(self.taxonomy)
        self.matcher = matcher or concepts.matcher()  # config/concepts.tsv, read once per process
        # Completions are indexed from the first max_input_length characters: a longer prefix cannot match more.
        completion = index_definition.load()["mappings"]["properties"][self.config.suggest_field]
        self.papers = PaperLookups(self.access, self.labels, ConceptSuggester(self.matcher.glossary),
                                   completion.get("max_input_length", 50))
        self._live: tuple[float, pr.Live] = (0.0, pr.Live())
        self.meaning = MeaningSearch(self.access)

    # --- search ------------------------------------------------------------------------------------

    def search(self, params: SearchParams, trace: Trace | None = None,
               prepared: Prepared | None = None) -> SearchResult:
        """`prepared`: the query as the request's price parsed it (else it is parsed here)."""
        prepared = self._prepared(params, prepared)
        vector = self.meaning.vector(params, prepared.parsed)
        self.access.start_budget(same_copies=params.without_page)
        s = self.plan(params, prepared)
        ladder = s.rounds(lambda parsed: tuple(self._expansions(parsed, params)))
        step = next(ladder)
        try:
            while True:  # the plan's rounds: render and send each, read its answers back
                kind = "msearch" if len(step.requests) > 1 and step.name == "relaxed" else KINDS[step.name]
                answers = self.access.send(step.requests, kind, _body, trace, pr.may_fail, self._worth_caching)
                step = ladder.send([self._read(r, a) for r, a in zip(step.requests, answers, strict=True)])
        except StopIteration as done:
            outcome: plan.Outcome = done.value
        shown, answer = outcome.shown, outcome.shown.answer
        aggregations = outcome.aggregations if outcome.facets else answer.get("aggregations", {})
        params = self.config.faceted.as_indexed(aggregations or {}, params)  # venue=iclr shown as ICLR (issue 57.7)
        window = self.config.max_result_window
        meant = self.meaning.around(s, outcome, params, vector, trace)
        fused = meant.fused
        total = shown.total + (fused.meaning_only if fused else 0)
        too_deep = params.too_deep_for(total, window, shown.exact)
        raw_hits = fused.hits if fused else answer["hits"]["hits"]
        alone = fused.alone if fused else frozenset()
        return SearchResult(
            params=params,
            total=total,
            total_is_exact=shown.exact,
            took_ms=answer.get("took", 0),
            hits=[] if too_deep else [self._hit(h, outcome.page, outcome.partial, h["_id"] in alone) for h in raw_hits],
            facets=self.config.faceted.read(aggregations or {}, params),
            facets_are_estimates=bool(outcome.facets and outcome.facets.probability < 1),
            did_you_mean=outcome.did_you_mean,
            showing_for=outcome.showing_for,
            searched=s.parsed.to_string() if s.parsed.cut else None,
            partial_match=outcome.partial,
            expansions=[Expansion(typed=e.typed, concepts=list(e.ids), also_searched=list(e.shown),
                                  forms=[*e.en, *e.zh]) for e in outcome.found],
            page_count=params.page_count(total, window),
            too_deep=too_deep,
            fallbacks=list(outcome.fallbacks),
            similar_authors=list(outcome.similar_authors),
            by_meaning=fused.meaning_only if fused else 0,
            meaning_unavailable=meant.unavailable,
        )

    def prepare(self, params: SearchParams) -> Prepared:
        """The query parsed and its concepts found (unless xl=0); BadQuery for too many clauses (a 400 without
        searching)."""
        parsed = parse_query(params.q)
        return Prepared(params.q, params.xl, parsed, tuple(self._expansions(parsed, params)))

    def plan(self, params: SearchParams, prepared: Prepared | None = None) -> plan.Search:
        """The search's inputs: the parsed query (author: names looked up), the glossary concepts recognised in it
        (unless xl=0), what is known of the live index."""
        live = self.live_index()
        query = self._prepared(params, prepared)
        # Looking names up changes author: clauses only, never the words the concepts were found in.
        parsed = author_names.resolve(self.access, query.parsed, live.author_words)
        return plan.Search(parsed, params, self.config, query.found, live)

    def cost(self, params: SearchParams, prepared: Prepared | None = None) -> int:
        """What the search will weigh in the rate limit (plan.cost), without asking Elasticsearch anything."""
        query = self._prepared(params, prepared)
        return plan.cost(query.parsed, query.found, params.size, self.config)

    def _prepared(self, params: SearchParams, prepared: Prepared | None) -> Prepared:
        return prepared if prepared is not None and prepared.fits(params) else self.prepare(params)

    def _expansions(self, parsed: ParsedQuery, params: SearchParams) -> list[xp.Expansion]:
        xl = self.config.cross_lingual
        if not params.xl:
            return []
        terms = [plain_spelling(t) for t in parsed.terms]  # ℓ1 regularization is the concept L1 regularization
        found = xp.expansions(terms, self.matcher, xl.max_forms, xl.max_concepts, xl.max_term_length)
        groups = parsed.term_groups  # a word typed with OR is searched as typed: no concept spans an alternative
        return [e for e in found if not any(groups[k] for k in range(e.first, e.last + 1))]

    def _worth_caching(self, request: pr.Request) -> bool:
        return isinstance(request, pr.Page) and request.worth_caching(self.config)

    def _read(self, request: pr.Request, answer: Any) -> pr.Reading:
        """A request's answer read into what the plan decides on (None: it failed, and may)."""
        if answer is None:
            return None
        match request:
            case pr.Spelling():
                return _spelled(self.config, request, answer)
            case pr.Facets():
                aggregations = answer.get("aggregations", {})
                if request.probability >= 1:
                    return aggregations
                return {**aggregations.get(render.SAMPLE_AGG, {}),
                        **{k: v for k, v in aggregations.items() if k == KNOWN}}
        total = answer["hits"]["total"]
        return pr.Found(total["value"], total["relation"] == "eq", answer)

    def _hit(self, raw: dict, shown: pr.Page, partial: PartialMatch | None, by_meaning: bool = False) -> Hit:
        hit = to_hit(raw, self.labels)
        matched = raw.get("matched_queries", [])
        # In place: the hit is ours alone, so no model_copy (a second model per hit).
        hit.score = relevance_score(hit.score, matched, self.config)
        words = [(w.index, w.text) for w in shown.text.words] if partial and shown.text else []
        hit.missing = missing_words(matched, words) if partial and not by_meaning else []
        hit.by_meaning = by_meaning
        return hit

    def live_index(self) -> pr.Live:
        """The live index's analysis profile, size and schema, looked up at most once a minute per process; not kept
        when the cluster does not answer (the search itself then reports the outage)."""
        checked, live = self._live
        if time.monotonic() - checked > LIVE_TTL:
            try:
                with es_errors(self.alias, "mapping"):
                    mappings = self.access.es().indices.get_mapping(index=self.alias).body
                    papers = self.access.es().count(index=self.alias).body["count"]
            except SearchUnavailable:
                return pr.Live()
            meta = next(iter(mappings.values()))["mappings"].get("_meta", {})
            live = pr.Live(meta.get("analysis_profile"), papers, index_definition.built_schema(meta),
                           meta.get(meaning.META_KEY))
            self._live = (time.monotonic(), live)
        return live


def _body(request: pr.Request, config: WebSearchConfig) -> Any:
    """A request's body (render.py), its plan logged at DEBUG level for a page."""
    if log.isEnabledFor(logging.DEBUG) and isinstance(request, pr.Page):
        from webapp.services.plan.describe import describe

        log.debug("search plan\n%s", describe(request))
    return render.body(request, config)


def _spelled(config: WebSearchConfig, request: pr.Spelling, responses: list[dict[str, Any]]) -> pr.Spelled:
    """The spelling check's answers (the suggestions, then one count per word, then per Chinese run and each of its
    candidates) read into the numbers plan.corrections decides on: papers per word (a failed count: a known word),
    and each word's options (a Chinese run's: the candidates some paper has, as close as a suggester's best)."""
    words = request.words
    suggested, *checks = responses
    counts = {w: c["hits"]["total"]["value"] for w, c in zip(words, checks[:len(words)], strict=True)
              if "error" not in c}
    zh_checks = iter(checks[len(words):])
    options: dict[str, list[pr.Option]] = {}
    for run, names in request.zh:
        typed, *found = (next(zh_checks) for _ in range(len(names) + 1))
        if "error" not in typed:
            counts[run] = typed["hits"]["total"]["value"]
        options[run] = [pr.Option(name, 1.0, c["hits"]["total"]["value"]) for name, c in zip(names, found, strict=True)
                        if "error" not in c and c["hits"]["total"]["value"]]
    fields = config.spelling.fields
    authors = set(config.field_aliases.author)
    for name, entries in ([] if "error" in suggested else suggested.get("suggest", {}).items()):
        author = fields[int(name.rsplit("_", 1)[1])] in authors  # render.py names them spell_<field index>
        for entry in entries:
            options.setdefault(entry["text"].casefold(), []).extend(
                pr.Option(o["text"], o["score"], o["freq"], author) for o in entry.get("options", []))
    return pr.Spelled(counts, options)
