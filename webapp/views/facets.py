"""Facet helpers for the page: which URL parameter each level uses, and the labels of filter chips."""

from __future__ import annotations

from typing import Any

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import FacetValue, SearchResult
from webapp.i18n import pick

DISPLAY_SEPARATOR = " › "  # between area and subarea labels in filter chips


def child_params(config: dict[str, Any]) -> dict[str, str]:
    """Facet name → the URL parameter of its second level ("topic" → "subarea")."""
    return {f["name"]: f["levels"][1]["param"] for f in config["facets"]
            if f.get("type") == "hierarchy" and len(f.get("levels", [])) > 1}


def selected_filters(result: SearchResult, config: dict[str, Any], lang: str) -> list[tuple[str, str, str]]:
    """(param, value, label in the UI language) for every active filter, in URL order.

    Labels come from the facet values; a value the facets did not return (no matches left) is shown
    as given, so it can still be removed.
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
    out = [("area", a, labels.get(("area", a), a)) for a in p.areas]
    out += [("subarea", s, labels.get(("subarea", s), s.replace(PATH_SEPARATOR, DISPLAY_SEPARATOR)))
            for s in p.subareas]
    out += [("year", str(y), labels.get(("year", str(y)), str(y))) for y in p.years]
    return out
