"""Elasticsearch hits → Hit domain objects, with highlighting.

Highlight fragments come from Elasticsearch with encoder "html": the text is already escaped and
the only markup is our <mark> tags. Every other value that ends up in an *_html field is escaped
here with markupsafe, so templates can output *_html as-is. TeX formulas in titles and abstracts become
MathML (math_html.py), highlights kept outside it.
"""

from __future__ import annotations

import html
import re
from typing import Any

from markupsafe import escape

from papersearch import tex
from webapp.domain import Hit
from webapp.services.bodies.render import ALL_WORDS_QUERY, ALL_WORDS_TYPOS_QUERY
from webapp.services.bodies.text_query import WORD_QUERY, word_name
from webapp.services.results.math_html import fragment_html, text_html
from webapp.services.results.topic_labels import Labels
from webapp.services.search_settings import WebSearchConfig

FRAGMENT_JOINER = " … "
SNIPPET_FALLBACK = 300  # characters of the abstract when Elasticsearch returned no fragment
_MARK = re.compile(r"</?mark>")


def plain(fragment: str) -> str:
    """A highlight fragment back to the text it was made from."""
    return html.unescape(_MARK.sub("", fragment))


def _shorten(text: str, limit: int) -> str:
    """At most `limit` characters and an ellipsis, never ending inside a formula (it is kept whole)."""
    if len(text) <= limit:
        return text
    limit = next((s.end for s in tex.spans(text[:limit + tex.MAX_SPAN]) if s.start < limit < s.end), limit)
    return text[:limit].rstrip() + "…"


def heading_html(source: dict[str, Any], highlights: dict[str, list[str]]) -> str:
    for field in ("title", "title_zh"):
        if source.get(field):
            fragments = highlights.get(field)
            return fragment_html(fragments[0], source[field]) if fragments else text_html(source[field])
    return text_html(source.get("heading") or "")


def authors_html(authors: list[str], highlights: dict[str, list[str]]) -> list[str]:
    """Each author escaped; the ones Elasticsearch highlighted (one fragment per matching value) marked."""
    marked = {plain(f): f for f in highlights.get("authors", [])}
    return [marked.get(name) or str(escape(name)) for name in authors]


def snippet_html(source: dict[str, Any], highlights: dict[str, list[str]]) -> str:
    """Abstract fragments with matches, preferring the language that matched; else the start of it."""
    fields = ("abstract", "abstract_zh")
    candidates = [(highlights.get(f), source.get(f) or "") for f in fields]
    for fragments, text in candidates:
        if fragments and any("<mark>" in f for f in fragments):
            return FRAGMENT_JOINER.join(fragment_html(f, text) for f in fragments)
    for fragments, text in candidates:
        if fragments:
            return fragment_html(fragments[0], text)
    text = source.get("abstract") or source.get("abstract_zh") or ""
    return text_html(_shorten(text, SNIPPET_FALLBACK))


def topic_labels(source: dict[str, Any], taxonomy: Labels) -> tuple[str | None, str | None]:
    area, subarea = source.get("topic_area"), source.get("topic_subarea")
    return taxonomy.label_zh(area), taxonomy.label_zh(area, subarea) if subarea else None


def to_hit(raw: dict[str, Any], taxonomy: Labels, *, full_abstract: bool = False) -> Hit:
    source = raw.get("_source", {})
    highlights = {} if full_abstract else raw.get("highlight", {})
    title, title_zh = source.get("title") or "", source.get("title_zh") or ""
    authors = source.get("authors") or []
    area_zh, sub_zh = topic_labels(source, taxonomy)
    if full_abstract:
        snippet = text_html(source.get("abstract") or source.get("abstract_zh") or "")
    else:
        snippet = snippet_html(source, highlights)
    return Hit(
        id=raw["_id"],
        heading=title or title_zh or source.get("heading") or "",
        heading_html=heading_html(source, highlights),
        title=title,
        title_zh=title_zh,
        authors=authors,
        authors_html=authors_html(authors, highlights),
        authors_et_al=bool(source.get("authors_et_al")),
        topic_area=source.get("topic_area"),
        topic_subarea=source.get("topic_subarea"),
        topic_path=source.get("topic_path"),
        topic_area_zh=area_zh,
        topic_subarea_zh=sub_zh,
        snippet_html=snippet,
        abstract=source.get("abstract") or "",
        abstract_zh=source.get("abstract_zh") or "",
        keywords=source.get("keywords") or [],
        year=source.get("year"),
        venue=source.get("venue") or None,
        record_type=source.get("record_type"),
        subjects=source.get("subjects") or [],
        url=source.get("url"),
        pdf_url=source.get("pdf_url"),
        doi=source.get("doi"),
        arxiv_id=source.get("arxiv_id"),
        languages=source.get("languages") or [],
        added=source.get("added"),
        published=source.get("published"),
        score=raw.get("_score"),
    )


# --- a relaxed page's hits: which tier, which words (render.py names the clauses) -------------------------


def missing_words(matched: list[str], words: list[tuple[int, str]]) -> list[str]:
    """The words (index among the parsed terms, text) a relaxed hit lacks, from its matched_queries (empty
    when it has them all)."""
    if ALL_WORDS_QUERY in matched or ALL_WORDS_TYPOS_QUERY in matched:
        return []
    found = set(matched)
    return [t for i, t in words if word_name(i) not in found]


def relevance_score(score: float | None, matched: list[str], config: WebSearchConfig) -> float | None:
    """The hit's score without the tier bonuses (they only order the tiers)."""
    if score is None:
        return score
    bonus = {ALL_WORDS_QUERY: "all_words_boost", ALL_WORDS_TYPOS_QUERY: "all_words_typos_boost"}
    words = sum(1 for name in matched if name.startswith(WORD_QUERY)) * config.relaxation.word_boost
    return score - words - sum(getattr(config.relaxation, key) for name, key in bonus.items() if name in matched)
