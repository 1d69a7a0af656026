"""Search by meaning beside the words (DECISIONS.md D-198): after the ladder has decided the page of word matches,
one more round asks for the words' first ranks and the papers nearest to the query's vector, and the page becomes
their weighted reciprocal-rank fusion (results/fusion.py). A paper the words do not match is marked as found by
meaning alone and adds to the total.

Nothing here may fail a search: an encoder that cannot load or fails, a kNN refused or timed out, leave the words'
page as it was, and the result says meaning was unavailable.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from papersearch import meaning
from papersearch.index_definition import concepts_config
from webapp.domain import SearchParams
from webapp.services.bodies import meaning as bodies
from webapp.services.es.access import EsAccess, Trace
from webapp.services.plan import meaning as plan
from webapp.services.plan.ladder import Outcome, Search
from webapp.services.query.parser import ParsedQuery
from webapp.services.results.fusion import fuse, fuse_keeping, interleave

log = logging.getLogger(__name__)
# What `vector` gives: the query's vector, None (meaning not wanted) or why the encoder could not make it.
QueryVector = list[float] | meaning.EncoderUnavailable | None


@dataclass(frozen=True)
class Fused:
    """The page's Elasticsearch hits in the fused order, which of them were found by meaning alone, and how many
    papers meaning found that the words did not (the total grows by them)."""

    hits: list[dict[str, Any]]
    alone: frozenset[str]
    meaning_only: int


@dataclass(frozen=True)
class ByMeaning:
    fused: Fused | None = None  # None: the words' page as it was
    unavailable: bool = False  # meaning was wanted but could not answer


def _order(fusion: plan.Fusion, words: list[str], near: list[str], word_hits: list[dict[str, Any]],
           rank_constant: int) -> list[str]:
    """The page's order: the word matches kept in theirs, or kept where written as typed, or fused fully."""
    if fusion.keep_word_order:
        return interleave(words, near, fusion.weight, rank_constant)
    if fusion.kept_language:
        kept = {h["_id"] for h in word_hits if _written_in(h, fusion.kept_language)}
        return fuse_keeping(words, near, fusion.weight, rank_constant, kept)
    return fuse([(words, 1.0), (near, fusion.weight)], rank_constant)


def _written_in(hit: dict[str, Any], language: str) -> bool:
    return language in (hit.get("_source") or {}).get(concepts_config()["language_field"], ())


def _may_fail(request: object, refused: bool) -> bool:
    return True  # the words still answer


class MeaningSearch:
    def __init__(self, access: EsAccess) -> None:
        self.access, self.config = access, access.config

    def vector(self, params: SearchParams, parsed: ParsedQuery) -> QueryVector:
        """The query's vector when the search wants meaning (None: it does not; EncoderUnavailable: it cannot).
        Made before the search's time budget starts: the budget is Elasticsearch's, and a worker's first query
        loads the model (a second or two)."""
        if not meaning.enabled() or not plan.wanted(params, parsed, self.config):
            return None
        try:
            return meaning.query_vector(plan.meaning_text(parsed))
        except meaning.EncoderUnavailable as exc:
            log.warning("search by meaning unavailable: %s", exc)
            return exc

    def around(self, search: Search, outcome: Outcome, params: SearchParams, vector: QueryVector,
               trace: Trace | None = None) -> ByMeaning:
        """The fused page of this search, or why there is none."""
        if isinstance(vector, meaning.EncoderUnavailable):
            return ByMeaning(unavailable=True)
        if vector is None or not plan.searchable(search.live, meaning.MODEL):
            return ByMeaning()
        text = plan.meaning_text(search.parsed)
        m = self.config.meaning
        shown = outcome.shown.answer["hits"]["hits"]
        # Every word match is on the first page already (none, or fewer than a page): its order is the words' ranks.
        whole = params.offset == 0 and outcome.shown.exact and outcome.shown.total <= len(shown)
        fusion = plan.Fusion.of(outcome.page, self.config)
        ranks = plan.WordRanks(outcome.page, m.window, fusion)
        requests = [plan.Nearest(outcome.page, tuple(vector), text, fusion), *([] if whole else [ranks])]
        answers = self.access.send(requests, "meaning", bodies.body, trace, _may_fail)
        if not all(isinstance(a, dict) for a in answers):
            return ByMeaning(unavailable=True)
        near_hits = answers[0]["hits"]["hits"]  # type: ignore[index]
        word_hits = shown if whole else answers[1]["hits"]["hits"]  # type: ignore[index]
        words, near = [h["_id"] for h in word_hits], [h["_id"] for h in near_hits]
        order = _order(fusion, words, near, word_hits, m.rank_constant)
        # A paper found by meaning alone shows no mark, even of one word it contains: meaning's list has none.
        alone = frozenset(h["_id"] for h in near_hits if bodies.BY_WORDS not in h.get("matched_queries", ()))
        pool = {h["_id"]: h for h in near_hits if h["_id"] in alone} | {h["_id"]: h for h in shown}
        ids = order[params.offset:params.offset + params.size]
        missing = tuple(i for i in ids if i not in pool)
        if missing:  # word matches the shown page does not hold, with their fields and marks
            pool |= self._missing(plan.Missing(outcome.page, missing), trace)
        page = [pool[i] for i in ids if i in pool]
        return ByMeaning(Fused(page, alone, len(alone)))

    def _missing(self, missing: plan.Missing, trace: Trace | None) -> dict[str, dict[str, Any]]:
        """The papers the fusion moved onto the page without their fields or marks (none if the request fails: the
        page is shorter)."""
        answer = self.access.send([missing], "meaning", bodies.body, trace, _may_fail)[0]
        return {h["_id"]: h for h in answer["hits"]["hits"]} if isinstance(answer, dict) else {}
