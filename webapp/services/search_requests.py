"""The requests of a search, as plain data: what webapp/services/plan.py decides and render.py writes.

Each request (`Page`, `Count`, `Spelling`, `Facets`) says what is searched for which words, in numbers, with no
Elasticsearch syntax; `Option`, `Third` and `Live` carry what the plan decides on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from webapp.domain import SearchParams
from webapp.services.expansion import Expansion
from webapp.services.query_parser import Clause, ParsedQuery
from webapp.services.search_settings import WebSearchConfig

Tier = Literal["as_typed", "relaxed", "check"]
# Where a word's typo fallback looks: nowhere, author names only (four-letter words), every Latin text field.
Typos = Literal["", "authors", "text"]
# Typo tolerance for every word (True), none (False), or only the words in the set (case-folded).
Fuzzy = bool | frozenset[str]


@dataclass(frozen=True)
class Concept:
    """A glossary concept among the words: its other forms and tag, searched as one alternative."""

    ids: tuple[str, ...]
    en: tuple[str, ...]
    zh: tuple[str, ...]
    typed: str  # what was typed for it (a whole word, several, or a part of one Chinese term)
    first: int  # the words it came from: words[first:last + 1] (or a part of words[first])
    last: int
    en_words: str = ""  # its name in the language it was not typed in, scored as typed words
    zh_words: str = ""

    @classmethod
    def of(cls, e: Expansion) -> Concept:
        return cls(e.ids, e.en, e.zh, e.typed, e.first, e.last, e.en_words, e.zh_words)

    @property
    def names(self) -> tuple[tuple[str, str], ...]:
        """(language, name) of the names scored as typed words."""
        return tuple((lang, name) for lang, name in (("en", self.en_words), ("zh", self.zh_words)) if name)


@dataclass(frozen=True)
class Word:
    """One word of the search box: all its tokens in any field (relaxed: most of them), its typo fallback,
    and the concepts it may also be matched by."""

    index: int
    text: str
    typos: Typos = ""  # a low-boost typo fallback beside it, on these fields
    concept: Concept | None = None  # the word is (part of) a concept typed as whole words …
    share: float = 1.0  # … carrying this share of the concept's weight
    inside: tuple[Concept, ...] = ()  # concepts inside a long Chinese term
    # Other words any of which may match instead: those typed beside it with OR, its math spellings (α-divergence:
    # alpha-divergence; papersearch.text.math_spellings).
    alternatives: tuple[Word, ...] = ()


@dataclass(frozen=True)
class Text:
    """The words: each one clause, `required` of them must match."""

    words: tuple[Word, ...]
    required: int
    relaxed: bool = False  # words need most of their tokens, and each word's clause is named (word:<i>)
    # Papers written in this language need only the concepts (their words cannot be shared): "zh" for
    # Latin-script words typed beside a concept, "en" for Chinese ones; None: all words as above.
    other_language: str | None = None
    groups: tuple[Concept, ...] = ()  # the concepts typed as whole words (what other_language requires)


@dataclass(frozen=True)
class Highlight:
    """What the page marks: the words, phrases and field clauses, and the concepts' other forms."""

    words: tuple[str, ...]
    phrases: tuple[str, ...] = ()
    fields: tuple[Clause, ...] = ()
    forms: tuple[Concept, ...] = ()


@dataclass(frozen=True)
class Page:
    """A results page (tiers as_typed, relaxed), or (tier check) whether anything is found."""

    tier: Tier
    text: Text | None
    phrases: tuple[str, ...] = ()
    fields: tuple[Clause, ...] = ()  # title:/author:/abstract:/topic: clauses (required)
    excluded: tuple[Clause, ...] = ()
    proximity: tuple[str, ...] = ()  # the words whose closeness is rewarded (only reorders)
    close_names: tuple[str, ...] = ()  # concepts' names in the other language, whose closeness is rewarded too
    # Relaxed tier: papers with every word as typed first (all_words), then with every word once typos are
    # forgiven (all_words_typos), then the rest.
    all_words: Text | None = None
    all_words_typos: Text | None = None
    highlight: Highlight | None = None
    params: SearchParams = field(default_factory=SearchParams)
    hits_only: bool = False  # a large index: the facets come in a request of their own (Facets)

    @property
    def cacheable(self) -> bool:
        """No words, only filters (the browse page, a topic's page): the same request for everyone, worth
        Elasticsearch's shard request cache (DECISIONS.md D-102)."""
        return not (self.text or self.phrases or self.fields or self.excluded)


@dataclass(frozen=True)
class Count:
    """How many papers the words as typed find in their own language under the page's filters, counted up to
    `limit` (the ladder's threshold: all it needs to know)."""

    text: Text | None
    params: SearchParams
    limit: int


@dataclass(frozen=True)
class Spelling:
    """The spelling check of some words: the suggesters' corrections, then whether any paper contains each."""

    words: tuple[str, ...]


@dataclass(frozen=True)
class Facets:
    """A large index's facets for a page: over every match, or a random sample of them (probability < 1)."""

    page: Page
    probability: float


Request = Page | Count | Spelling | Facets


@dataclass(frozen=True)
class Option:
    """A term suggester's correction of one word: the word, its score, and how many papers have it."""

    text: str
    score: float
    freq: int
    author: bool = False  # proposed from the author names (what a capitalised word is likelier to be)


@dataclass(frozen=True)
class Third:
    """Round 3: the relaxed page and the did-you-mean check, or the corrected query whose results are shown."""

    relaxed: Page | None = None
    check: Page | None = None
    corrected: ParsedQuery | None = None


@dataclass(frozen=True)
class Live:
    """What is known of the live index: its analysis profile and size."""

    profile: str | None = None
    papers: int = 0

    def sample_probability(self, config: WebSearchConfig, total_exact: bool) -> float:
        """The share of papers a large index's facets (a search's, a topic page's) are counted on: all for an
        exact total (fewer than max_result_window matches) or an index of at most large_index.sample papers,
        else about that many of them (at most half)."""
        sample = config.large_index.sample
        return 1.0 if total_exact or self.papers <= sample else min(0.5, sample / self.papers)
