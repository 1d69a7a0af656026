"""Links that carry the whole search state in the URL, so pages can be shared and Back works.

Any change to the query or the filters resets the page to 1; only `page()` keeps the rest as is. A selected filter
value no paper of the index has (`ignored`: views/facets.py unknown_filters) is left out of every link, so a URL
full of junk values is not copied into each of a page's links (issue 53.6, DECISIONS.md D-187).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlencode, urlsplit

from flask import url_for

from papersearch import markup
from papersearch.taxonomy import PATH_SEPARATOR, topic_slug
from papersearch.text import shorten
from webapp.domain import Hit, SearchParams, Suggestion
from webapp.services.search_settings import WebSearchConfig

DESCRIPTION_LIMIT = 160  # characters of a paper page's meta description (what result snippets show)


class SearchLinks:
    def __init__(self, base: str, params: SearchParams, config: WebSearchConfig, lang: str | None = None,
                 ignored: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.base = base
        self.params = params
        self.ignored = ignored  # (URL parameter, value) selected but unknown to the index: in no link
        self.default_sort = config.default_sort
        self.default_size = config.default_page_size
        self.lang = lang  # only when the request carried ?lang=, so a shared link shows the same language
        facets = config.terms_facets
        self.terms_params = [f.param for f in facets]  # in config order, so URLs are stable
        self.range_params = [p for f in facets if f.range for p in (f.range.from_, f.range.to)]

    def filter_pairs(self, *, areas: Iterable[str] | None = None, subareas: Iterable[str] | None = None,
                     filters: dict[str, list[str]] | None = None, ranges: dict[str, int] | None = None,
                     ) -> list[tuple[str, str | int]]:
        """The URL parameters of the filters: the current ones, or those given instead."""
        p = self.params
        filters = p.filters if filters is None else filters
        ranges = p.ranges if ranges is None else ranges
        pairs: list[tuple[str, str | int]] = [("area", a) for a in (p.areas if areas is None else areas)]
        pairs += [("subarea", s) for s in (p.subareas if subareas is None else subareas)]
        pairs += [(param, v) for param in self.terms_params for v in filters.get(param, [])]
        pairs += [(param, ranges[param]) for param in self.range_params if param in ranges]
        return [(k, v) for k, v in pairs if (k, v) not in self.ignored] if self.ignored else pairs

    def ignores(self, param: str, value: str | int) -> bool:
        """Whether a selected value is left out of links (no paper of the index has it)."""
        return (param, str(value)) in self.ignored

    def hidden_filters(self, *without: str) -> list[tuple[str, str | int]]:
        """The current filters as form fields, except the parameters named (the ones a form sets itself)."""
        return [(k, v) for k, v in self.filter_pairs() if k not in without]

    def _url(self, *, q: str | None = None, sort: str | None = None, page: int = 1, size: int | None = None,
             lang: str | None = None, xl: bool | None = None, spell: bool | None = None, **filters) -> str:
        p = self.params
        pairs: list[tuple[str, str | int]] = []
        query = p.q if q is None else q
        if query:
            pairs.append(("q", query))
        pairs += self.filter_pairs(**filters)
        sort = sort or p.sort
        if sort != self.default_sort:
            pairs.append(("sort", sort))
        size = size or p.size
        if size != self.default_size:
            pairs.append(("size", size))
        if page > 1:
            pairs.append(("page", page))
        if not (p.xl if xl is None else xl):
            pairs.append(("xl", 0))
        if not (p.spell if spell is None else spell):
            pairs.append(("spell", 0))
        lang = lang or self.lang
        if lang:
            pairs.append(("lang", lang))
        return f"{self.base}?{urlencode(pairs)}" if pairs else self.base

    # --- pagination, query ----------------------------------------------------------------

    def page(self, number: int) -> str:
        return self._url(page=number)

    def page_numbers(self, page_count: int, around: int = 2) -> list[int | None]:
        """1 … p-2 p-1 p p+1 p+2 … last; None marks a gap."""
        current = self.params.page
        shown = {1, page_count, *range(current - around, current + around + 1)}
        numbers = sorted(n for n in shown if 1 <= n <= page_count)
        out: list[int | None] = []
        for n in numbers:
            if out and n - (out[-1] or 0) > 1:
                out.append(n - 1 if n - (out[-1] or 0) == 2 else None)
            out.append(n)
        return out

    def query(self, q: str) -> str:
        return self._url(q=q)

    def as_typed(self) -> str:
        """The same search without the glossary's concepts in the other language."""
        return self._url(xl=False)

    def with_concepts(self) -> str:
        return self._url(xl=True)

    def as_spelled(self) -> str:
        """The same search with the words as typed, never corrected ("Search instead for")."""
        return self._url(spell=False)

    def elsewhere(self, base: str, *, keep_sort: bool = True, default_sort: str | None = None,
                  **extra: str | int) -> str:
        """This search (words, filters, sort, xl, language) at another address, a feed or an export: never a
        page or a size; the sort only when it is kept and not `default_sort` (that address's own default)."""
        p = self.params
        pairs: list[tuple[str, str | int]] = [("q", p.q)] if p.q else []
        pairs += self.filter_pairs()
        if keep_sort and p.sort != (default_sort or self.default_sort):
            pairs.append(("sort", p.sort))
        if not p.xl:
            pairs.append(("xl", 0))
        if not p.spell:
            pairs.append(("spell", 0))
        pairs += list(extra.items())
        if self.lang:
            pairs.append(("lang", self.lang))
        return f"{base}?{urlencode(pairs)}" if pairs else base

    # --- filters -----------------------------------------------------------------------------------

    def toggle(self, param: str, value: str | int) -> str:
        """Add the value to the filter, or remove it when already selected (facet checkboxes); a range
        bound (year_from …) is only ever removed (its chip)."""
        p = self.params
        if param == "area":
            if value in p.areas:
                # Dropping an area drops its subareas too: they would be hidden in the sidebar.
                prefix = f"{value}{PATH_SEPARATOR}"
                return self._url(areas=[a for a in p.areas if a != value],
                                 subareas=[s for s in p.subareas if not s.startswith(prefix)])
            return self._url(areas=[*p.areas, str(value)])
        if param == "subarea":
            if value in p.subareas:
                return self._url(subareas=[s for s in p.subareas if s != value])
            return self._url(subareas=[*p.subareas, str(value)])
        if param in self.terms_params:
            selected = p.selected(param)
            value = str(value)
            values = [v for v in selected if v != value] if value in selected else [*selected, value]
            return self._url(filters={**p.filters, param: values})
        if param in self.range_params:
            return self._url(ranges={k: v for k, v in p.ranges.items() if k != param})
        raise ValueError(f"unknown filter {param!r}")

    def span(self, param_from: str, param_to: str, low: int | None, high: int | None, values: str = "") -> str:
        """The range set to low..high (None: open on that side), the facet's own values (`values`, its URL
        parameter) dropped: a chart's bar chooses years as a range, and checked years would narrow it."""
        p = self.params
        ranges = {k: v for k, v in p.ranges.items() if k not in (param_from, param_to)}
        ranges |= {k: v for k, v in ((param_from, low), (param_to, high)) if v is not None}
        return self._url(ranges=ranges, filters={k: v for k, v in p.filters.items() if k != values})

    def add(self, param: str, value: str | int) -> str:
        """Filter on the value (topic chips on results): never removes."""
        p = self.params
        selected = {"area": p.areas, "subarea": p.subareas}.get(param, p.selected(param))
        return self._url() if str(value) in selected else self.toggle(param, value)

    def clear_filters(self) -> str:
        return self._url(areas=[], subareas=[], filters={}, ranges={})


def topic_slugs(area: str, subarea: str | None = None) -> dict[str, str]:
    """The topic page's address parts (ui.topic's arguments)."""
    return {"area": topic_slug(area), **({"subarea": topic_slug(subarea)} if subarea else {})}


def topic_url(area: str, subarea: str | None = None, **values: str | None) -> str:
    return url_for("ui.topic", **topic_slugs(area, subarea), **values)


def suggestion_url(suggestion: Suggestion) -> str:
    """Where choosing a suggestion leads: a title opens its paper, an author their page, a concept searches it."""
    if suggestion.kind == "title" and suggestion.id:
        return url_for("ui.paper", paper_id=suggestion.id)
    if suggestion.kind == "author":
        return url_for("ui.author", name=suggestion.text)
    return url_for("ui.search", q=suggestion.text)


def results_url(referrer: str | None, host: str, search_path: str) -> str | None:
    """The results page the reader came from (same site, the search page with a search), as a local
    address; None otherwise, so the page never links back anywhere else."""
    if not referrer:
        return None
    parts = urlsplit(referrer)
    if parts.netloc != host or parts.path != search_path or not parts.query:
        return None
    return f"{parts.path}?{parts.query}"


def page_description(paper: Hit) -> str:
    """A paper page's meta description: the start of its abstract, formulas readable."""
    return shorten(markup.to_text(paper.abstract or paper.abstract_zh), DESCRIPTION_LIMIT)
