"""The plan's vocabulary: the requests of a search as plain data (webapp/services/plan/ladder.py decides them, render.py
writes them, search.py sends them), the rounds they are sent in, and what their answers are read into.

Each request (`Page`, `Count`, `Spelling`, `Facets`) says what is searched for which words, in numbers, with no
Elasticsearch syntax; a `Round` is the requests sent together (one search or one _msearch); each answer comes back
to the plan read as a `Reading` (`Found`, `Spelled`, a facets' aggregations; None for a request that may fail and
did). `Live` is what the plan knows of the index, `Option` a suggester's correction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from papersearch.author_keys import WORDS_SINCE_SCHEMA
from webapp.domain import SearchParams
from webapp.services.plan.words import Highlight, Text
from webapp.services.query.parser import Clause
from webapp.services.search_settings import WebSearchConfig

Tier = Literal["as_typed", "relaxed", "check"]


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

    def worth_caching(self, config: WebSearchConfig) -> bool:
        """Whether the page asks for the shard request cache: a page without words at any depth, any other
        whose hits end within result_cache.within (a deeper page's entry holds every hit before it; D-228)."""
        return self.cacheable or config.result_cache.covers(self.params.offset, self.params.size)


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
    # Chinese runs, each with the glossary names one character from it: each counted, as the candidates (issue 57.4)
    zh: tuple[tuple[str, tuple[str, ...]], ...] = ()


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
class Live:
    """What is known of the live index: its analysis profile, size, and the schema its papers were written by."""

    profile: str | None = None
    papers: int = 0
    schema: int = 1
    meaning: str | None = None  # the model of its vectors of meaning (papersearch/meaning.py), None: none

    @property
    def author_words(self) -> bool:
        """Whether every paper has its name keys under their words (author_names.look_up's quick way)."""
        return self.schema >= WORDS_SINCE_SCHEMA

    def sample_probability(self, config: WebSearchConfig, total_exact: bool) -> float:
        """The share of papers a large index's facets (a search's, a topic page's) are counted on: all for an
        exact total (fewer than max_result_window matches) or an index of at most large_index.sample papers,
        else about that many of them (at most half)."""
        sample = config.large_index.sample
        return 1.0 if total_exact or self.papers <= sample else min(0.5, sample / self.papers)


# The rounds of a search, by what each does (plan.Search.rounds sends them in this order, each only when needed).
RoundName = Literal["as_typed", "spelling_check", "corrected", "relaxed", "did_you_mean", "facets"]


@dataclass(frozen=True)
class Round:
    """Requests sent together: one search, or one _msearch of several."""

    name: RoundName
    requests: tuple[Request, ...]


@dataclass(frozen=True)
class Found:
    """A page's (or a count's) answer read: how many papers, exactly or counted up to a limit, and the answer
    itself (its hits and aggregations, which the service reads into the result)."""

    total: int
    exact: bool
    answer: Any = None


@dataclass(frozen=True)
class Spelled:
    """A spelling check's answer read: papers per checked word (counted up to spelling.rare_below; a failed count:
    the word left out) and the suggesters' options per word."""

    counts: dict[str, int]
    options: dict[str, list[Option]]


# One request's answer as the plan reads it: a Page's or Count's Found, a Spelling's Spelled, a Facets' aggregations;
# None when a request that may fail did.
Reading = Found | Spelled | dict[str, Any] | None


def may_fail(request: Request, refused: bool) -> bool:
    """Whether a failed request only costs what it would add and the search goes on without it: a spelling check
    or a did-you-mean check (a suggestion is optional), whatever the failure; the relaxed page when Elasticsearch
    refuses it (refused: a 400; a pasted page of Chinese can exceed the clause limit twice over), since the words
    as typed already have their results. Any other failure ends the search."""
    if isinstance(request, Spelling):
        return True
    return isinstance(request, Page) and (request.tier == "check" or (refused and request.tier == "relaxed"))
