"""Title and author completions from the index's completion suggester (field `suggest`, config/index.json).

The indexer gives each author several inputs — the name, each later part of it to its end, and the same
without diacritics (papersearch/suggest_inputs.py) — so "Bengio" and "Muller" complete as well as "Yoshua".
An option names the input that matched; it is turned back into the author's full name here, with the same
function, so a completion is always a name as the paper writes it."""

from __future__ import annotations

from typing import Any

from papersearch import markup
from papersearch.suggest_inputs import author_inputs
from webapp.domain import Suggestion
from webapp.services.es_query import Query
from webapp.services.search_settings import WebSearchConfig

SOURCE_FIELDS = ["authors", "title", "title_zh", "heading"]
OVERFETCH = 2  # options asked for per completion wanted: several inputs of one name may match one prefix


def completion_suggest(prefix: str, size: int, config: WebSearchConfig) -> Query:
    return {"paper": {"prefix": prefix, "completion": {
        "field": config.suggest_field, "size": size * OVERFETCH, "skip_duplicates": True}}}


def _author(matched: str, authors: list[str]) -> str | None:
    """The author whose completion inputs include the matched one."""
    return next((name for name in authors if matched in author_inputs(name)), None)


def suggestions(response: dict[str, Any]) -> list[Suggestion]:
    """The suggester's options as suggestions (titles with their paper), each name or title once."""
    out: list[Suggestion] = []
    seen: set[tuple[str, str]] = set()
    for entry in response.get("suggest", {}).get("paper", []):
        for option in entry.get("options", []):
            matched = option["text"]
            author = _author(matched, option.get("_source", {}).get("authors") or [])
            kind, text = ("author", author) if author else ("title", markup.to_text(matched))  # formulas readable
            key = (kind, text.casefold())
            if key in seen:
                continue
            seen.add(key)
            out.append(Suggestion(text=text, kind=kind, id=option.get("_id") if kind == "title" else None))
    return out
