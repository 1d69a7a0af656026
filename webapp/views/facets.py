"""Facet helpers for the page: which URL parameter each level uses, and the labels of filter chips."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from papersearch.taxonomy import TOPIC_SEPARATOR
from webapp.domain import Bar, Facet, FacetValue, SearchResult
from webapp.i18n import pick, translate
from webapp.services.search_settings import WebSearchConfig
from webapp.views.links import SearchLinks

DISPLAY_SEPARATOR = TOPIC_SEPARATOR  # between area and subarea labels in filter chips, as everywhere they are shown
LEVELS = 20  # a chart's bar heights, in steps of 5% (style.css .level-0 … .level-20: the CSP allows no inline style)


def child_params(config: WebSearchConfig) -> dict[str, str]:
    """Facet name → the URL parameter of its values' children ("topic" → "subarea")."""
    return {f.name: f.child_param for f in config.faceted}


def selected_filters(result: SearchResult, config: WebSearchConfig, lang: str) -> list[tuple[str, str, str]]:
    """(param, value, label in the UI language) for every active filter, in URL order.

    Labels come from the facet values; a value the facets did not return (no matches left) is shown
    as given, so it can still be removed. A range bound reads "Year from 2020" / "Year until 2023".
    """
    children = child_params(config)
    labels: dict[tuple[str, str], str] = {}

    def label(v: FacetValue) -> str:
        return pick(lang, v.label, v.label_zh)

    for facet in result.facets:
        for v in facet.values:
            labels[(facet.param, v.value)] = label(v)
            for c in v.children:
                labels[(children.get(facet.name, facet.param), c.value)] = label(v) + DISPLAY_SEPARATOR + label(c)
    p = result.params
    out = [(param, v, labels.get((param, v), DISPLAY_SEPARATOR.join(parts)))
           for f in config.faceted for param, v, parts in f.selections(p)]
    for f in config.faceted:
        out += [(param, str(value), translate(lang, f"filters.range_{side}", name=translate(lang, f"facet.{f.name}"),
                                              value=value)) for side, param, value in f.bounds(p)]
    return out


def emptying_filters(result: SearchResult, config: WebSearchConfig, lang: str) -> list[tuple[str, str, str]]:
    """On a page with no hits, the selected filters that emptied it, as selected_filters gives them: a facet is
    counted under every filter but its own (DECISIONS.md D-017), so a facet that counted papers names a filter
    without which the words and the other filters find papers (issue 57.7: the page said "check the
    spelling" when venue:iclr emptied it)."""
    if result.total or result.hits or not result.params.has_filters:
        return []
    counted = {f.name for f in result.facets if f.papers}
    p = result.params
    culprits = {(param, v) for f in config.faceted if f.name in counted for param, v, _ in f.selections(p)}
    culprits |= {(param, str(value)) for f in config.faceted if f.name in counted for _, param, value in f.bounds(p)}
    return [chip for chip in selected_filters(result, config, lang) if chip[:2] in culprits]


def unknown_filters(result: SearchResult, config: WebSearchConfig) -> frozenset[tuple[str, str]]:
    """(param, value) of every selected filter value no paper of the index has: the facets show a selected value
    whenever some paper has it (facets/faceted.py known_values), so a selected value missing from them is unknown.
    Links leave these out (SearchLinks.ignored; issue 53.6, DECISIONS.md D-187)."""
    if not result.facets:  # none read: nothing is known either way
        return frozenset()
    children = child_params(config)
    shown: set[tuple[str, str]] = set()
    for facet in result.facets:
        for v in facet.values:
            shown.add((facet.param, v.value))
            shown.update((children.get(facet.name, facet.param), c.value) for c in v.children)
    return frozenset((param, v) for f in config.faceted for param, v, _ in f.selections(result.params)
                     if (param, v) not in shown)


@dataclass(frozen=True)
class ChartBar:
    """A bar as the chart shows it: its height step, where choosing it leads, and what that does: show only
    its values ("only"), widen the chosen range to `target` ("span"), or drop the range ("clear")."""

    bar: Bar
    level: int
    url: str
    action: Literal["only", "span", "clear"]
    target: tuple[int | None, int | None]  # the range the link sets (None: open on that side)


def chart(facet: Facet, links: SearchLinks) -> list[ChartBar]:
    """The facet's bars with their links. Without a range a bar chooses its own values; a bar outside the range
    widens it to take the bar in (two choices make a span, no script needed); a bar inside it narrows the range
    to the bar, and the one bar that is the whole range drops it."""
    r = facet.range
    if r is None or not facet.bars:
        return []
    top = max(b.count for b in facet.bars) or 1
    chosen = r.low is not None or r.high is not None
    out = []
    for bar in facet.bars:
        level = max(1, round(bar.count / top * LEVELS)) if bar.count else 0
        target: tuple[int | None, int | None] = (bar.low, bar.high)
        if (r.low, r.high) == target:
            action, target = "clear", (None, None)
        elif chosen and not ((r.low is None or r.low <= bar.low) and (r.high is None or bar.high <= r.high)):
            action = "span"
            target = (None if r.low is None else min(r.low, bar.low), None if r.high is None else max(r.high, bar.high))
        else:
            action = "only"
        out.append(ChartBar(bar, level, links.span(r.param_from, r.param_to, *target, values=facet.param), action,
                            target))
    return out
