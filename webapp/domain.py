"""Domain objects exchanged between the search service and the controllers/templates.

Fields ending in `_html` are already HTML-safe: escaped text whose only markup is our own
<mark>…</mark>. Everything else is plain text and must be escaped by the template as usual.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field

from papersearch.index_definition import search_config


def _config_default(key: str) -> Any:
    # Only for callers that build SearchParams themselves (tests, bench/); the controller always passes
    # every field, from the config it was given.
    return search_config()[key]


class SearchParams(BaseModel):
    """What the user asked for, already validated and normalised by the controller (controllers/params.py)."""

    q: str = ""
    areas: list[str] = []  # URL param "area" (repeatable)
    subareas: list[str] = []  # URL param "subarea" (repeatable), "Area > Subarea"
    years: list[int] = []  # URL param "year" (repeatable)
    sort: str = Field(default_factory=lambda: _config_default("default_sort"))
    page: int = 1
    size: int = Field(default_factory=lambda: _config_default("default_page_size"))

    @property
    def has_filters(self) -> bool:
        return bool(self.areas or self.subareas or self.years)

    # --- paging: the one place that turns page and size into a window of results ---------------------

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size

    def is_too_deep(self, max_window: int) -> bool:
        """Beyond Elasticsearch's result window: totals and facets only, no hits."""
        return self.page * self.size > max_window

    def page_count(self, total: int, max_window: int) -> int:
        return math.ceil(min(total, max_window) / self.size)


class Hit(BaseModel):
    id: str
    heading: str  # plain-text display title: title, else title_zh, else the derived heading
    heading_html: str
    title: str = ""
    title_zh: str = ""
    authors: list[str] = []
    authors_html: list[str] = []  # each escaped, matched names marked
    authors_et_al: bool = False
    topic_area: str | None = None
    topic_subarea: str | None = None
    topic_path: str | None = None
    topic_area_zh: str | None = None
    topic_subarea_zh: str | None = None
    snippet_html: str = ""  # abstract fragments with matches marked; else the start of the abstract
    abstract: str = ""
    abstract_zh: str = ""
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    pdf_url: str | None = None
    score: float | None = None


class FacetValue(BaseModel):
    value: str  # what goes into the URL parameter
    label: str
    label_zh: str
    count: int
    selected: bool
    children: list[FacetValue] = []


class Facet(BaseModel):
    name: str
    param: str  # URL parameter of the top level ("area", "year"); children use the next level's
    values: list[FacetValue]


class Suggestion(BaseModel):
    text: str
    kind: Literal["title", "author"]
    id: str | None = None  # the paper, for title suggestions


class SearchResult(BaseModel):
    params: SearchParams
    total: int
    took_ms: int
    hits: list[Hit]
    facets: list[Facet]
    did_you_mean: str | None = None
    page_count: int
    too_deep: bool = False  # page * size beyond the result window: no hits, a friendly message


class SearchUnavailable(Exception):
    """The cluster is down or too slow, or the alias does not exist."""


class BadQuery(Exception):
    """The query cannot be run as given; the message is shown to the user."""
