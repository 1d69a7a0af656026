"""Facet filters and aggregations of a request: each facet of config/index.json writes its own
(facets/kinds.py); here they are put together.

Facets are disjunctive: filters go into post_filter and each facet is counted under every other
facet's filter but not its own (see DECISIONS.md D-017).
"""

from __future__ import annotations

from webapp.domain import SearchParams
from webapp.services.es_syntax import Query
from webapp.services.facets.kinds import HISTOGRAM, KNOWN, match_values
from webapp.services.search_settings import WebSearchConfig

__all__ = ["HISTOGRAM", "KNOWN", "aggregations", "facet_filters", "known_aggregation", "post_filter"]


def facet_filters(params: SearchParams, config: WebSearchConfig) -> dict[str, Query]:
    """Active filters by facet name (only facets with a selection)."""
    filters = {f.name: f.filter(params) for f in config.facets}
    return {name: f for name, f in filters.items() if f is not None}


def post_filter(filters: dict[str, Query]) -> Query | None:
    """Facet filters apply to hits after aggregation, so facet counts can ignore their own filter."""
    if not filters:
        return None
    return {"bool": {"filter": list(filters.values())}}


def aggregations(config: WebSearchConfig, filters: dict[str, Query]) -> Query:
    """One filter aggregation per facet, each under every active filter except its own (disjunctive)."""
    return {f.name: f.aggregation(filters) for f in config.facets}


def known_values(params: SearchParams, config: WebSearchConfig) -> Query | None:
    """Which of the selected filter values exist in the index, whatever the query: a selected value the facets
    did not count is shown (to be unselected) only when it is one, so junk values in a URL are not echoed back
    as facet entries (issue 45.3). A global aggregation (top level only), each part behind a terms filter so
    only the papers with a selected value are looked at."""
    wanted = [part for f in config.facets for part in f.known_values(params)]
    # A value matched whatever its case may be indexed in several spellings: room for a few of each.
    parts = {param: {"filter": match_values(field, values, any_case),
                     "aggs": {"values": {"terms": {"field": field, "size": len(values) * (4 if any_case else 1)}}}}
             for param, field, values, any_case in wanted if values}
    return {"global": {}, "aggs": parts} if parts else None


def known_aggregation(params: SearchParams, config: WebSearchConfig) -> Query:
    """known_values as the top-level aggregation it is sent as (nothing without a selection)."""
    known = known_values(params, config)
    return {KNOWN: known} if known else {}
