"""Domain objects exchanged between the search service and the controllers/templates.

Fields ending in `_html` are already HTML-safe: escaped text whose only markup is our own
<mark>…</mark> and sanitised MathML for TeX formulas (webapp/services/results/math_html.py). Everything else
is plain text and must be escaped by the template as usual.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from papersearch.index_definition import search_config


def _config_default(key: str) -> Any:
    # Only for callers that build SearchParams themselves (tests, bench/); the controller always passes
    # every field, from the config it was given.
    return getattr(search_config(), key)


class SearchParams(BaseModel):
    """What the user asked for, already validated and normalised by the controller (controllers/params.py)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt filter must fail, not silently match everything

    q: str = ""
    areas: list[str] = []  # URL param "area" (repeatable)
    subareas: list[str] = []  # URL param "subarea" (repeatable), "Area > Subarea"
    # The "terms" facets of config/index.json by URL param (repeatable): {"venue": ["ICLR"], "year": ["2020"]}
    filters: dict[str, list[str]] = {}
    # Bounds of the facets' ranges by URL param: {"year_from": 2020, "year_to": 2023}
    ranges: dict[str, int] = {}
    sort: str = Field(default_factory=lambda: _config_default("default_sort"))
    page: int = 1
    size: int = Field(default_factory=lambda: _config_default("default_page_size"))
    xl: bool = True  # URL param "xl": also search the glossary concepts in the other language (xl=0: as typed)
    spell: bool = True  # URL param "spell": show a corrected query's results when none has the words (spell=0: never)

    @property
    def has_filters(self) -> bool:
        return bool(self.areas or self.subareas or any(self.filters.values()) or self.ranges)

    def selected(self, param: str) -> list[str]:
        """The values of one terms facet's URL parameter."""
        return self.filters.get(param, [])

    @property
    def without_page(self) -> str:
        """The search whatever page of it is shown: the key its requests choose their shard copies by
        (es/access.py), so every page of it is ranked by the same copies."""
        return self.model_dump_json(exclude={"page", "size"})

    # --- paging: the one place that turns page and size into a window of results ---------------------

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size

    @staticmethod
    def deepest_page(max_window: int) -> int:
        """The largest page number a URL may carry: with one result per page, the last one the window holds.
        Deeper pages are refused (400); pages up to it beyond page × size > window are `too_deep`."""
        return max_window

    def is_too_deep(self, max_window: int) -> bool:
        """Beyond Elasticsearch's result window: the request asks for totals and facets only, no hits."""
        return self.page * self.size > max_window

    def page_count(self, total: int, max_window: int) -> int:
        """The last page: of the results, or the last whole page inside the window when there are more."""
        return math.ceil(total / self.size) if total <= max_window else max_window // self.size

    def too_deep_for(self, total: int, max_window: int, total_is_exact: bool = True) -> bool:
        """Beyond the window where there are results (a lower-bound total may have more): "only the first
        10,000 can be paged". A page beyond the results themselves is past the last page instead
        (SearchResult.past_last_page), however deep."""
        return self.is_too_deep(max_window) and (self.offset < total or not total_is_exact)


class Hit(BaseModel):
    id: str
    # plain-text display title: title, else title_zh, else the abstract's start (see `untitled`)
    heading: str
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
    keywords: list[str] = []
    year: int | None = None
    venue: str | None = None
    # "conference-paper", "journal-article", "preprint" or None (papersearch/record_types.py)
    record_type: str | None = None
    subjects: list[str] = []  # disciplines, subject headings
    url: str | None = None
    pdf_url: str | None = None
    doi: str | None = None  # "10.1000/xyz", where the record has one
    arxiv_id: str | None = None  # "2101.00001", where the record has one
    languages: list[str] = []  # what the paper is written in: "en", "zh"
    # Found by meaning alone (its vector is near the query's, none of the words matched it: nothing is marked).
    by_meaning: bool = False
    added: datetime | None = None  # when it was added to the index (kept across reindexes; papersearch/added.py)
    published: date | None = None  # its publication date, where the source has one (arXiv: the first version's)
    score: float | None = None
    # Words of the query this paper does not contain; only ever filled when the results are a partial match.
    missing: list[str] = []

    @property
    def untitled(self) -> bool:
        """No title in either language: the heading is the abstract's start, never to be cited as a title."""
        return not (self.title or self.title_zh)


class FacetValue(BaseModel):
    value: str  # what goes into the URL parameter
    label: str
    label_zh: str
    count: int
    selected: bool
    children: list[FacetValue] = []


class FacetRange(BaseModel):
    """A numeric facet's from/to filter: the URL parameters, the bounds chosen, and the span of values
    among the matching papers (under the other facets' filters)."""

    param_from: str
    param_to: str
    low: int | None = None
    high: int | None = None
    min: int | None = None
    max: int | None = None


class Bar(BaseModel):
    """One bar of a numeric facet's chart (papers per year): the values it counts, from low to high (one
    value unless the span is wider than the chart: config "histogram" max_bars), and how many papers."""

    low: int
    high: int
    count: int
    selected: bool = False  # within the facet's chosen range


class Facet(BaseModel):
    name: str
    param: str  # URL parameter of the top level ("area", "year"); children use the next level's
    values: list[FacetValue]
    range: FacetRange | None = None
    # Papers per value over the whole span, gaps included (a facet with a "histogram": years), under the other
    # facets' filters; empty when no paper has a value.
    bars: list[Bar] = []
    # The topic facet: how many of the `of` papers under the other filters carry a topic at all (most sources
    # have none: issue 57.12); None for other facets.
    covered: int | None = None
    of: int | None = None
    # The papers counted under every other facet's filter but not its own: with none on the page, those its own
    # filter left out (an empty page names that filter, issue 57.7). None: not counted.
    papers: int | None = None


class Suggestion(BaseModel):
    text: str
    kind: Literal["concept", "title", "author"]
    id: str | None = None  # the paper, for title suggestions
    other: str | None = None  # for a concept: its name in the other language


class Expansion(BaseModel):
    """A glossary concept recognised in the query and searched in both languages (docs/glossary.md)."""

    typed: str  # what was typed for it
    concepts: list[str]  # concept ids (several when the typed form is ambiguous)
    also_searched: list[str]  # the names the results page shows ("contrastive learning")
    forms: list[str]  # every form searched besides what was typed, both languages


class PartialMatch(BaseModel):
    """The results are for some of the words only (the relaxation ladder's last step)."""

    all_words: int  # papers with every word as typed (what the search found before relaxing); they come first


class SearchResult(BaseModel):
    params: SearchParams
    total: int
    # False: at least `total` papers (an index above large_index.above papers counts up to
    # max_result_window: "10,000+"; see DECISIONS.md D-102).
    total_is_exact: bool = True
    took_ms: int
    hits: list[Hit]
    facets: list[Facet]
    facets_are_estimates: bool = False  # counts estimated from a random sample of a huge result set
    did_you_mean: str | None = None
    # The corrected query whose results are shown, when no paper has the words as typed ("Showing results for").
    showing_for: str | None = None
    # A long query's beginning, which was searched (query/parser.py cut_text and max_clauses); None: all of it was.
    searched: str | None = None
    # Set when no (or too few) papers have every word: the results are papers with most of the words.
    partial_match: PartialMatch | None = None
    expansions: list[Expansion] = []  # what was searched besides the words as typed (empty with xl=0)
    page_count: int
    too_deep: bool = False  # beyond the result window among results (SearchParams.too_deep_for): no hits
    # What ran besides the query as typed and changed what is shown: "relaxed" (the relaxation ladder's
    # request, typo-tolerant on unknown words), "did_you_mean" (a correction offered), "corrected" (the
    # results are the corrected query's, showing_for); the concept
    # expansions are in `expansions`. Counted in /metrics and written to the query log.
    fallbacks: list[str] = []
    # author: names no paper has, for which similar names were searched (fallback "similar_authors": said so).
    similar_authors: list[str] = []
    query_id: str | None = None  # the query-log id of this search (clicks refer to it); None when not logged
    # Search by meaning (DECISIONS.md D-198): how many of `total` were found by meaning alone, and whether it was
    # wanted but could not answer (the encoder or the kNN failed: the words answered alone).
    by_meaning: int = 0
    meaning_unavailable: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def past_last_page(self) -> bool:
        """A page after the last one, however deep, when the search has results: no hits; `page_count` is the
        last page (the API's Link header and the pages' link to it, _past_last_page.html)."""
        return not self.too_deep and not self.hits and self.total > 0 and self.params.page > self.page_count


class NameCount(BaseModel):
    """A name (an author, a co-author, one spelling of a name) and how many papers it is on."""

    name: str
    count: int


class PaperGroup(BaseModel):
    """Papers of one page that go together: a first name's (Latin names), or (CJK names) papers linked to each
    other by a co-author or a topic area, and to no other group."""

    name: str = ""  # the first name (or initial) the group's spellings carry (Latin names)
    papers: int
    areas: list[str]  # topic areas, most papers first
    coauthors: list[str]  # most papers first


class SurnameLookUp(BaseModel):
    """How much of a surname a name's person was chosen from: its spellings (name keys) looked at, the most common
    ones, at most profiles.names.candidates (DECISIONS.md D-180)."""

    spellings: int = 0
    more: bool = False  # the surname has more spellings than were looked at: rarer ones were left out


class AuthorProfile(BaseModel):
    """An author page: every paper whose author list has a name of this folded form (Müller = Muller;
    papersearch/author_keys.py), the facts they give, and the papers the page lists."""

    name: str  # the spelling most of the papers use
    key: str  # the folded form every spelling shares
    spellings: list[NameCount]  # how the papers write the name, most papers first
    papers: int  # papers with the name, whatever the query and filters
    coauthors: list[NameCount]  # most papers together first
    # The name plainly covers several people: its papers fall into groups (config profiles.groups) that share no
    # co-author and no topic area. Said, never resolved: the page lists every paper.
    several_people: bool
    groups: list[PaperGroup]  # when several_people
    grouped_papers: int  # the papers the groups cover
    keys: list[str] = []  # the person's indexed name keys (papersearch/author_people.person_keys)
    surname: SurnameLookUp = SurnameLookUp()
    result: SearchResult  # the papers listed (query, filters, page) with the facets over them


class AuthorPeople(BaseModel):
    """The people who carry a surname (the answer for a name that is only a surname many people carry, or a full
    name no paper has, by its surname's people): each by their most common spelling, most papers first."""

    name: str  # the name asked for
    people: list[NameCount]  # at most profiles.names.people
    surname: SurnameLookUp


class ConceptCount(BaseModel):
    """A glossary concept the topic's papers are tagged with, by its names in both languages."""

    id: str
    name_en: str
    name_zh: str
    count: int


class TopicProfile(BaseModel):
    area: str
    subarea: str | None
    label_zh: str  # the topic's (the subarea's, or the area's) Chinese label
    area_zh: str
    path: str  # "Area" or "Area > Subarea" (the search's filter value)
    papers: int
    newest: list[Hit]
    facets: list[Facet]  # years (bars), venues, subareas
    facets_are_estimates: bool = False
    tagged: int | None = None  # papers of the index that carry any topic, of `indexed` (issue 57.12)
    indexed: int | None = None
    authors: list[NameCount]
    concepts: list[ConceptCount]  # the glossary concepts most particular to the topic's papers


class SearchUnavailable(Exception):
    """The cluster is down or too slow, or the alias does not exist."""


class BadQuery(Exception):
    """The query cannot be run as given; the message is shown to the user."""
