"""Facet helpers for the page: which URL parameter each level uses, and the labels of filter chips."""

from __future__ import annotations

from typing import Any

from papersearch.index_definition import terms_facets
from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import FacetValue, SearchResult
from webapp.i18n import pick, translate

DISPLAY_SEPARATOR = " › "  # between area and subarea labels in filter chips


def child_params(config: dict[str, Any]) -> dict[str, str]:
    """Facet name → the URL parameter of its second level ("topic" → "subarea")."""
    return {f["name"]: f["levels"][1]["param"] for f in config["facets"]
            if f.get("type") == "hierarchy" and len(f.get("levels", [])) > 1}


def selected_filters(result: SearchResult, config: dict[str, Any], lang: str) -> list[tuple[str, str, str]]:
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
    out = [("area", a, labels.get(("area", a), a)) for a in p.areas]
    out += [("subarea", s, labels.get(("subarea", s), s.replace(PATH_SEPARATOR, DISPLAY_SEPARATOR)))
            for s in p.subareas]
    for facet in terms_facets(config):
        param = facet["param"]
        out += [(param, v, labels.get((param, v), v)) for v in p.selected(param)]
    for facet in terms_facets(config):
        for side, param in facet.get("range", {}).items():
            if param in p.ranges:
                name = translate(lang, f"facet.{facet['name']}")
                out.append((param, str(p.ranges[param]), translate(lang, f"filters.range_{side}", name=name,
                                                                   value=p.ranges[param])))
    return out
