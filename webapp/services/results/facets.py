"""Aggregation buckets → Facet domain objects, each facet reading its own (facets/kinds.py), with labels in both
languages from the taxonomy."""

from __future__ import annotations

from typing import Any

from webapp.domain import Facet, SearchParams
from webapp.services.facets.labels import Labels
from webapp.services.search_settings import WebSearchConfig


def facets(aggs: dict[str, Any], params: SearchParams, config: WebSearchConfig, taxonomy: Labels) -> list[Facet]:
    return [facet.read(aggs, params, taxonomy) for facet in config.facets]


def as_indexed(aggs: dict[str, Any], params: SearchParams, config: WebSearchConfig) -> SearchParams:
    """The parameters with each selected value of a facet matched whatever its case in the spelling the index has
    it (venue=iclr → ICLR, from the known values' buckets), so the facets, chips and links show and keep that one
    (issue 57.7). A value no paper has stays as typed."""
    filters = {p: v for f in config.facets for p, v in f.indexed(aggs, params).items()}
    if all(params.selected(p) == v for p, v in filters.items()):
        return params
    return params.model_copy(update={"filters": params.filters | filters})
