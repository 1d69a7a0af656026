"""An author's name → the indexed name keys of that person (papersearch/author_people.py decides which keys are
one person; this module asks the index which keys carry the surname). Used by author: clauses of a search
(every result list, facet, export and feed of it) and by author pages, so both mean the same papers.

The look-up is one request: a regexp built from the folded surname (only [0-9a-z ] and escaped; CJK keys are a
term), with the keys counted by a terms aggregation; on `author_key_words`, where each key is filed under its words
so the pattern is anchored at its start (an index built before schema 5: on `author_keys`, whose pattern starts
with "any given names" and so visits every key: 0.5 s at 1M papers, DECISIONS.md D-176). No user text becomes
query syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from papersearch.author_keys import (
    WORDS_FIELD,
    author_key,
    has_name,
    is_surname,
    key_of_word_value,
    split_key,
    surname_pattern,
    word_pattern,
)

__all__ = ["Person", "as_written", "candidates_body", "look_up", "person_keys", "resolve", "written_body"]
from papersearch.author_keys import FIELD as AUTHOR_KEYS
from papersearch.author_people import person_keys
from papersearch.text import has_cjk
from webapp.services.es.errors import es_errors
from webapp.services.query.parser import ParsedQuery
from webapp.services.search_settings import WebSearchConfig


class Client(Protocol):
    alias: str
    config: WebSearchConfig

    def search_one(self, body: Any, cache: bool = False) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Person:
    key: str  # the name's own key
    keys: tuple[str, ...]  # the indexed keys of the person, most papers first (the name's own first)
    surname: tuple[tuple[str, int], ...]  # the indexed keys of the surname with their papers (the most common)
    more: bool = False  # the surname has more keys than profiles.names.candidates: the rarer were not looked at


def candidates_body(key: str, size: int, by_words: bool = True) -> dict[str, Any]:
    """The keys of the name's surname (however its umlauts are spelt), most papers first; by_words: on
    WORDS_FIELD (its buckets are the keys filed under a word: key_of_word_value)."""
    if has_cjk(key):
        query: dict[str, Any] = {"term": {AUTHOR_KEYS: key}}
        terms: dict[str, Any] = {"field": AUTHOR_KEYS, "include": [key], "size": 1}
    else:
        field, pattern = (WORDS_FIELD, word_pattern(key)) if by_words else (AUTHOR_KEYS, surname_pattern(key))
        query = {"regexp": {field: {"value": pattern, "flags": "NONE"}}}
        terms = {"field": field, "include": pattern, "size": size}
    return {"size": 0, "track_total_hits": False, "query": query, "aggs": {"keys": {"terms": terms}}}


def look_up(client: Client, name: str, by_words: bool = True) -> Person | None:
    """The person a name means; None for a name with nothing to fold. by_words: the index's papers have
    WORDS_FIELD (Live.author_words)."""
    key = author_key(name)
    if not key:
        return None
    settings = client.config.profiles.names
    by_words = by_words and not has_cjk(key)
    with es_errors(client.alias, "authors"):
        answer = client.search_one(candidates_body(key, settings.candidates, by_words))
    keys_agg = answer.get("aggregations", {}).get("keys", {})
    found = keys_agg.get("buckets", [])
    # A key filed under two words that both match (soeren soren) is one bucket each: the same papers.
    counted = {(key_of_word_value(b["key"]) if by_words else str(b["key"])): int(b["doc_count"]) for b in found}
    buckets = sorted(counted.items(), key=lambda kc: (-kc[1], kc[0]))  # the terms aggregation's order, by key
    if is_surname(key):  # the regexp's "(e)?" also takes a word with an e the key folded away: the word only
        buckets = [(k, n) for k, n in buckets if has_name(k, key)]
    elif not has_cjk(key):
        surname = split_key(key)[1]
        buckets = [(k, n) for k, n in buckets if split_key(k)[1] == surname]
    counts = dict(buckets)
    keys = sorted(person_keys(key, list(counts)), key=lambda k: (k != key, -counts[k], k))
    return Person(key, tuple(keys), tuple(buckets), more=keys_agg.get("sum_other_doc_count", 0) > 0)


def written_body(keys: list[str]) -> dict[str, Any]:
    """One paper per key, to show each key as a paper writes it (a surname's people: "Bernhard Schölkopf", not the
    folded "bernhard scholkopf")."""
    one = {"top_hits": {"size": 1, "_source": ["authors"]}}
    terms = {"field": AUTHOR_KEYS, "include": keys, "size": len(keys)}
    return {"size": 0, "track_total_hits": False, "query": {"terms": {AUTHOR_KEYS: keys}},
            "aggs": {"keys": {"terms": terms, "aggs": {"one": one}}}}


def as_written(client: Client, keys: list[str]) -> dict[str, str]:
    """Each key as one of its papers writes it (keys no paper answers for are left out)."""
    if not keys:
        return {}
    with es_errors(client.alias, "authors"):
        answer = client.search_one(written_body(keys))
    out: dict[str, str] = {}
    for bucket in answer.get("aggregations", {}).get("keys", {}).get("buckets", []):
        for hit in bucket["one"]["hits"]["hits"]:
            names = hit.get("_source", {}).get("authors") or []
            out.update({str(bucket["key"]): n for n in names if author_key(n) == bucket["key"]})
    return out


def resolve(client: Client, parsed: ParsedQuery, by_words: bool = True) -> ParsedQuery:
    """The query with each author: clause's keys looked up; a name no author has searches similar names."""
    if not any(c.field == "author" for c in parsed.clauses):
        return parsed
    clauses = []
    for clause in parsed.clauses:
        if clause.field == "author" and clause.keys is None:
            person = look_up(client, clause.text, by_words)
            keys = person.keys if person else ()
            clause = replace(clause, keys=keys, fuzzy=not keys and not clause.excluded)
        clauses.append(clause)
    return replace(parsed, clauses=tuple(clauses))
