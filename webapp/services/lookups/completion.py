"""Title and author completions from the index's completion suggester (field `suggest`, config/index.json).

The indexer gives each author several inputs — the name, each later part of it to its end, and the same
without diacritics (papersearch/suggest_inputs.py) — so "Bengio" and "Muller" complete as well as "Yoshua".
An option names the input that matched; it is turned back into the author's full name here, with the same
function, so a completion is always a name as the paper writes it."""

from __future__ import annotations

from typing import Any

from papersearch import markup
from papersearch.author_keys import author_key, initials_only, person_key, same_person, split_key
from papersearch.index_definition import concepts_config
from papersearch.suggest_inputs import author_inputs
from papersearch.text import math_spellings
from webapp.domain import Suggestion
from webapp.services.es_syntax import Query
from webapp.services.search_settings import WebSearchConfig

SOURCE_FIELDS = ["authors", "title", "title_zh", "heading"]
PAPERS_AGG = "concept_papers"
OVERFETCH = 2  # options asked for per completion wanted: several inputs of one name may match one prefix


def completion_suggest(prefix: str, size: int, config: WebSearchConfig) -> Query:
    """The completions of the prefix and (a Greek letter in it) of its spelling in TeX's names: "α" completes
    `$\\alpha$TC-VAE`, indexed as the words alpha, tc, vae."""
    prefixes = dict.fromkeys([prefix, *math_spellings(prefix)])
    return {f"paper{i or ''}": {"prefix": p, "completion": {
        "field": config.suggest_field, "size": size * OVERFETCH, "skip_duplicates": True}}
        for i, p in enumerate(prefixes)}


def concept_papers(concept_ids: list[str]) -> Query:
    """How many papers are tagged with each of the concepts (the order concept completions are offered in)."""
    field = concepts_config()["field"]
    return {PAPERS_AGG: {"filter": {"terms": {field: concept_ids}},
                         "aggs": {"tags": {"terms": {"field": field, "include": concept_ids,
                                                     "size": len(concept_ids)}}}}}


def papers_per_concept(response: dict[str, Any]) -> dict[str, int]:
    buckets = response.get("aggregations", {}).get(PAPERS_AGG, {}).get("tags", {}).get("buckets", [])
    return {b["key"]: b["doc_count"] for b in buckets}


def _author(matched: str, authors: list[str]) -> str | None:
    """The author whose completion inputs include the matched one."""
    return next((name for name in authors if matched in author_inputs(name)), None)


def _person(name: str) -> str:
    """An author's person key (Schölkopf, Scholkopf and Schoelkopf are one: papersearch/author_keys.person_key)."""
    return person_key(author_key(name)) or name.casefold()


def _offered(key: str, people: list[str]) -> bool:
    """Whether a person already offered is this one: the same person key, or names that agree with a given name
    written out in both ("Geoffrey Hinton" and "Geoffrey E Hinton"; "G. Hinton" may be Geoffrey or George, so it
    is offered on its own). Issue 57.9."""
    if key in people:
        return True
    written = not initials_only(split_key(key)[0])
    return written and any(not initials_only(split_key(p)[0]) and same_person(key, p) for p in people)


def suggestions(response: dict[str, Any]) -> list[Suggestion]:
    """The suggester's options as suggestions (titles with their paper), each title once and each person once (by
    the first spelling offered)."""
    out: list[Suggestion] = []
    seen: set[str] = set()
    people: list[str] = []
    for entry in (e for entries in response.get("suggest", {}).values() for e in entries):
        for option in entry.get("options", []):
            matched = option["text"]
            author = _author(matched, option.get("_source", {}).get("authors") or [])
            if author:
                key = _person(author)
                if _offered(key, people):
                    continue
                people.append(key)
                out.append(Suggestion(text=author, kind="author"))
                continue
            text = markup.to_text(matched)  # formulas readable
            if text.casefold() in seen:
                continue
            seen.add(text.casefold())
            out.append(Suggestion(text=text, kind="title", id=option.get("_id")))
    return out
