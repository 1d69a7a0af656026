"""The relaxation ladder: all words as typed, then, when that finds too few papers, most of the words
(typo-tolerant where a word is unknown), with the papers that have every word ranked first (see
DECISIONS.md "Relaxation ladder").

Pure functions over the "relaxation" settings of config/index.json. The relaxed request names each word's
clause (`word:<i>`) and the every-word tier (`all_words`), so each hit tells which words it lacks.
"""

from __future__ import annotations

import re
from typing import Any

from papersearch.text import has_cjk

Query = dict[str, Any]

ALL_WORDS = "100%"
ALL_WORDS_QUERY = "all_words"  # the name of the tier clause
ALL_WORDS_TYPOS_QUERY = "all_words_typos"  # the second tier: every word, typo-tolerant where unknown
WORD_QUERY = "word:"
_TOKEN = re.compile(r"\w+")


def settings(config: dict) -> dict[str, Any]:
    return config["relaxation"]


def words_required(config: dict, relaxed: bool) -> str:
    """minimum_should_match over the words: all, or the relaxed share."""
    return settings(config)["minimum_should_match"] if relaxed else ALL_WORDS


def tokens_required(config: dict) -> str:
    """minimum_should_match over one relaxed word's tokens (a pasted Chinese run cut mid-word): stricter
    than over words, so a short word does not shrink to one of its characters' pairs."""
    return settings(config)["term_minimum_should_match"]


def can_relax(terms: list[str], has_typo_fallback: bool) -> bool:
    """Whether the relaxed form differs from the strict one: several words, a word of several tokens
    ("gpt-4", a Chinese run of 3+ characters: several bigrams), or a word typo tolerance applies to."""
    return len(terms) > 1 or has_typo_fallback or any(
        len(_TOKEN.findall(t)) > 1 or (has_cjk(t) and len(t) > 2) for t in terms)


def should_relax(total: int, terms: list[str], has_typo_fallback: bool, config: dict) -> bool:
    return total < settings(config)["below"] and can_relax(terms, has_typo_fallback)


def named(query: Query, name: str) -> Query:
    """The same query, reporting `name` in each hit's matched_queries when it matches."""
    (kind, body), = query.items()
    return {kind: {**body, "_name": name}}


def word_name(index: int) -> str:
    return f"{WORD_QUERY}{index}"


def ranked_all_words_first(query: Query, all_words: Query, config: dict, with_typos: Query | None = None) -> Query:
    """The relaxed query with a constant bonus for papers that have every word: they come first, in
    their own order, then (`with_typos`) the papers with every word once typos are forgiven, and the
    partial matches follow in theirs."""
    tiers = [{"constant_score": {"filter": all_words, "boost": settings(config)["all_words_boost"],
                                 "_name": ALL_WORDS_QUERY}}]
    if with_typos is not None:
        tiers.append({"constant_score": {"filter": with_typos, "boost": settings(config)["all_words_typos_boost"],
                                         "_name": ALL_WORDS_TYPOS_QUERY}})
    return {"bool": {"must": [query], "should": tiers}}


def as_typed_count(as_typed: Query, filters: list[Query], config: dict) -> Query:
    """A count of the papers the words as typed find in their own language, under the page's filters, that
    stops at the ladder's threshold: concepts also let papers in the other language in, and a long English
    title with a typo must not count as found because one of its words is a concept Chinese papers have."""
    return {"size": 0, "track_total_hits": settings(config)["below"],
            "query": {"bool": {"filter": [as_typed, *filters]}}}


def highlight_words(terms: list[str], others: list[Query], config: dict) -> Query:
    """What a relaxed page highlights: any of the words (a partial match has only some; the relaxed
    scoring query, with its named clauses, cost three times as much to highlight), and the phrases and
    field clauses."""
    words: list[Query] = [{"multi_match": {"query": " ".join(terms), "fields": list(config["query_fields"])}}]
    return {"bool": {"should": (words if terms else []) + others}}


def missing_words(matched: list[str], terms: list[str]) -> list[str]:
    """The words a relaxed hit lacks, from its matched_queries (empty when it has them all)."""
    if ALL_WORDS_QUERY in matched or ALL_WORDS_TYPOS_QUERY in matched:
        return []
    found = set(matched)
    return [t for i, t in enumerate(terms) if word_name(i) not in found]


def relevance_score(score: float | None, matched: list[str], config: dict) -> float | None:
    """The hit's score without the tier bonuses (they only order the tiers)."""
    if score is None:
        return score
    bonus = {ALL_WORDS_QUERY: "all_words_boost", ALL_WORDS_TYPOS_QUERY: "all_words_typos_boost"}
    return score - sum(settings(config)[key] for name, key in bonus.items() if name in matched)
