"""The parts of a search request around the scoring query: sort, paging, highlighting, spelling
suggestions, similar papers. Pure functions over config/index.json (completions: completion.py)."""

from __future__ import annotations

from typing import Any

from papersearch.text import has_cjk
from webapp.domain import SearchParams
from webapp.services.query_parser import LATIN_WORD

Query = dict[str, Any]

SPELL_MIN_LENGTH = 4
SPELL_MAX_WORDS = 6  # each checked word costs a whole-index count
# Unstemmed text fields: their terms are real words, fit to be offered as corrections.
SPELL_FIELDS = ("title.exact", "abstract.exact", "authors")


def sort_clause(sort: str, config: dict) -> list[Query]:
    return config["sorts"][sort]


def pagination(params: SearchParams, config: dict) -> Query:
    if params.is_too_deep(config["max_result_window"]):
        return {"from": 0, "size": 0}  # totals and facets only
    return {"from": params.offset, "size": params.size}


def highlight(query: Query, config: dict) -> Query:
    """Highlight what `query` matched: the search without its typo fallback
    (see DECISIONS.md "Highlight without the typo fallback")."""
    return {**config["highlight"], "highlight_query": query}


def spelling_words(terms: list[str]) -> list[str]:
    """The plain words worth a spelling check: Latin script, not too short, each once."""
    words = dict.fromkeys(
        t.casefold() for t in terms if len(t) >= SPELL_MIN_LENGTH and not has_cjk(t) and LATIN_WORD.fullmatch(t)
    )
    return list(words)[:SPELL_MAX_WORDS]


def spelling_suggest(words: list[str], fields: list[str]) -> Query:
    """Term suggesters (one per field) proposing real words near each query word the field lacks: only words
    no paper contains are corrected, so a field's suggester need not look for words it has ("missing")."""
    return {
        "text": " ".join(words),
        **{f"spell_{i}": {"term": {"field": field, "suggest_mode": "missing", "min_word_length": SPELL_MIN_LENGTH,
                                   "max_edits": 2, "size": 3}}
           for i, field in enumerate(fields)},
    }


def spelling_request(words: list[str]) -> Query:
    """A request that only runs the spelling suggesters (no hits, no count)."""
    return {"size": 0, "track_total_hits": False, "query": {"match_none": {}},
            "suggest": spelling_suggest(words, list(SPELL_FIELDS))}


def known_word_check(word: str, config: dict) -> Query:
    """Whether any paper contains the word exactly (no: misspelt, worth correcting and typo tolerance): a
    count over the search fields that stops at the first paper. Term suggesters cannot tell (they see one
    field each), and the hits cannot either (fuzzy matches)."""
    return {"size": 0, "track_total_hits": 1,
            "query": {"multi_match": {"query": word, "fields": list(config["query_fields"]), "operator": "and"}}}


def more_like_this(index: str, paper_id: str, config: dict) -> Query:
    """Papers similar to one paper; thresholds are low because abstracts are short and the corpus small."""
    return {"more_like_this": {
        "fields": config["similar_fields"], "like": [{"_index": index, "_id": paper_id}],
        "min_term_freq": 1, "min_doc_freq": 2, "max_query_terms": 30, "minimum_should_match": "20%",
    }}
