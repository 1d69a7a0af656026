"""Domain objects exchanged between the search service and the controllers/templates.

Fields ending in `_html` are already HTML-safe: escaped text whose only markup is our own
<mark>…</mark>. Everything else is plain text and must be escaped by the template as usual.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from papersearch.index_definition import search_config

_SEARCH = search_config()
MAX_QUERY_LENGTH: int = _SEARCH["max_query_length"]
PAGE_SIZES: tuple[int, ...] = tuple(_SEARCH["page_sizes"])
DEFAULT_PAGE_SIZE: int = _SEARCH.get("default_page_size", PAGE_SIZES[0])

SortName = Literal["relevance", "year", "title"]


class SearchParams(BaseModel):
    """What the user asked for; controllers build it from the query string (ValidationError -> 400)."""

    q: str = Field(default="", max_length=MAX_QUERY_LENGTH)
    areas: list[str] = []  # URL param "area" (repeatable)
    subareas: list[str] = []  # URL param "subarea" (repeatable), "Area > Subarea"
    years: list[int] = []  # URL param "year" (repeatable)
    sort: SortName = "relevance"
    page: int = Field(default=1, ge=1)
    size: int = DEFAULT_PAGE_SIZE

    @field_validator("q")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("areas", "subareas")
    @classmethod
    def _clean_values(cls, values: list[str]) -> list[str]:
        # Drop blanks and repeats (a link may carry the same value twice), keep the order.
        out: list[str] = []
        for value in (v.strip() for v in values):
            if value and value not in out:
                out.append(value)
        return out

    @field_validator("years")
    @classmethod
    def _unique_years(cls, values: list[int]) -> list[int]:
        return list(dict.fromkeys(values))

    @field_validator("size")
    @classmethod
    def _known_size(cls, value: int) -> int:
        if value not in PAGE_SIZES:
            raise ValueError(f"size must be one of {', '.join(map(str, PAGE_SIZES))}")
        return value

    @property
    def has_filters(self) -> bool:
        return bool(self.areas or self.subareas or self.years)


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
