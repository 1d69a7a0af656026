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
    """The shown page's words, ranked as shown, for the first `window` papers: ids only (and each paper's languages
    when the fusion keeps one language's places); a paper the fusion moves onto the page comes with `Missing`."""

    page: Page
    window: int
    fusion: Fusion

    def describe(self) -> str:
        return f"meaning: the words' first {self.window} papers, ranked as shown (for the fusion)"


@dataclass(frozen=True)
class Fusion:
    """How the words' ranks and meaning's become one page (results/fusion.py): meaning's weight, how many nearest
    papers it brings, and whether the word matches keep their order."""

    weight: float
    k: int
    keep_word_order: bool
    # Word matches written in this language keep their places (they match the words as typed, in the language
    # typed: a Chinese title's own paper); only the other papers are fused fully. None: all are fused alike.
    kept_language: str | None = None

    @classmethod
    def of(cls, page: Page, config: WebSearchConfig) -> Fusion:
        """The config's fusion, or, for a question whose words reach the other language only through the
        dictionary's glosses, the glossed questions': the dictionary's guess orders the other language's papers, so
        meaning reorders those, while the papers matching the question as typed keep their places (D-219)."""
        m, q = config.meaning, config.meaning.glossed_questions
        glossed = sum(len(w.glosses) for w in page.text.words) if page.text else 0
        if glossed >= q.min_glossed_words:
            return cls(q.weight, q.k, keep_word_order=False, kept_language="zh")  # glosses are a Chinese run's
        return cls(m.weight, m.k, m.keep_word_order)


@dataclass(frozen=True)
class Nearest:
    """The `fusion.k` papers nearest to the query's vector, under the page's filters, field clauses and exclusions;
    each tells whether the page's words match it too (a paper found by meaning alone shows no word as matched)."""

    page: Page
    vector: tuple[float, ...]
    text: str
    fusion: Fusion

    def describe(self) -> str:
        f = self.fusion
        order = ("the words keep their order" if f.keep_word_order
                 else f"fused fully, the words' {f.kept_language} papers in their places" if f.kept_language
                 else "fused fully")
        return (f"meaning: the {f.k} papers nearest to the vector of {self.text!r} (kNN), under the page's filters; "
                f"weight {f.weight}, {order}")


@dataclass(frozen=True)
class Missing:
    """The fused page's papers that came without their fields (from the words' ranks) or their marks (word matches
    from meaning's list, which asks for no highlight: most of its papers are found by meaning alone and show none):
    one ids query for those few papers, not for those on the shown page (DECISIONS.md D-219)."""

    page: Page
    ids: tuple[str, ...]

    def describe(self) -> str:
        return f"meaning: the fields and marks of the {len(self.ids)} papers the fusion moved onto the page"


MeaningRequest = WordRanks | Nearest | Missing


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
