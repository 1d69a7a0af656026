"""Search by meaning beside the words: whether a search asks for it, and its two requests (plain data, no
Elasticsearch syntax; bodies/meaning.py writes them). DECISIONS.md D-198.

After the ladder (ladder.py) has decided the page of word matches, a relevance-sorted search whose query has free
text asks, in one round, for the first `window` word matches' ranks (`WordRanks`) and the `k` papers nearest to the
query's vector under the page's filters (`Nearest`); results/fusion.py fuses the two lists by weighted reciprocal
rank. Pages past the window, other sorts, xl=0 ("only as typed") and an index without this model's vectors are
searched by words alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.domain import SearchParams
from webapp.services.plan.requests import Live, Page
from webapp.services.query.parser import ParsedQuery
from webapp.services.search_settings import WebSearchConfig


@dataclass(frozen=True)
class WordRanks:
    """The shown page's words, ranked as shown, for the first `window` papers: ids only, except on a later page,
    where a paper an earlier page had may be moved onto it (then with its fields)."""

    page: Page
    window: int

    @property
    def with_fields(self) -> bool:
        return self.page.params.offset > 0

    def describe(self) -> str:
        return f"meaning: the words' first {self.window} papers, ranked as shown (for the fusion)"


@dataclass(frozen=True)
class Nearest:
    """The `k` papers nearest to the query's vector, under the page's filters, field clauses and exclusions; each
    tells whether the page's words match it too (a paper found by meaning alone shows no word as matched)."""

    page: Page
    vector: tuple[float, ...]
    text: str

    def describe(self) -> str:
        return f"meaning: the papers nearest to the vector of {self.text!r} (kNN), under the page's filters"


MeaningRequest = WordRanks | Nearest


def meaning_text(parsed: ParsedQuery) -> str:
    """What is embedded: the query's free words and phrases as typed (field clauses and exclusions filter)."""
    return " ".join([*parsed.terms, *parsed.phrases]).strip()


def wanted(params: SearchParams, parsed: ParsedQuery, config: WebSearchConfig) -> bool:
    """Whether this search asks for papers by meaning (the module docstring says when), if the index has vectors."""
    by_score = config.sorts[params.sort][:1] == [{"_score": "desc"}]
    within = params.offset + params.size <= config.meaning.window
    return bool(params.xl and by_score and meaning_text(parsed) and within)


def searchable(live: Live, model: str) -> bool:
    """Whether the live index's vectors come from this model (else they are not comparable with the query's)."""
    return live.meaning == model
