"""Aggregation buckets → Facet domain objects, each facet reading its own (facets/kinds.py), with labels in both
languages from the taxonomy."""

from __future__ import annotations

from typing import Any

from webapp.domain import Facet, SearchParams
from webapp.services.facets.labels import Labels
from webapp.services.search_settings import WebSearchConfig


def facets(aggs: dict[str, Any], params: SearchParams, config: WebSearchConfig, taxonomy: Labels) -> list[Facet]:
    return [facet.read(aggs, params, taxonomy) for facet in config.facets]
