"""The config's facets put together, as elasticsearch-dsl's FacetedSearch does: each facet of config/index.json
becomes the class of its kind (kind_of: the config stays data, a new facet of a known kind is config, not code),
and here, in one place, their filters are composed into the post_filter (or into a query's filters, for a request
that counts no facets), their aggregations each under the others' filters, the known values asked, and the answer
read back.

Facets are disjunctive: filters go into post_filter and each facet is counted under every other facet's
filter but not its own (see DECISIONS.md D-017).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from papersearch.search_config import FacetConfig, HierarchyFacetConfig, TermsFacetConfig
from webapp.domain import Facet, SearchParams
from webapp.services.es_syntax import Query
from webapp.services.facets.kind import KNOWN, FacetKind, except_own, match_values
from webapp.services.facets.numbers import NumberFacet
from webapp.services.facets.terms import TermsFacet
from webapp.services.facets.topics import TopicFacet


def kind_of(config: FacetConfig) -> FacetKind:
    """The class a facet's config asks for: "hierarchy" the topics', "terms" a field's words, or its whole
    numbers when it has `integer` (which a range or histogram needs: search_config checks)."""
    match config:  # the one place the kinds are told apart: everything after asks each facet the same questions
        case HierarchyFacetConfig():
            return TopicFacet(config)
        case TermsFacetConfig(integer=None):
            return TermsFacet(config)
        case TermsFacetConfig():
            return NumberFacet(config)
    raise TypeError(f"no kind of facet for {config!r}")


class Faceted:
    """The facets of config/index.json in config order, composed for a request and read from its answer."""

    def __init__(self, configs: list[FacetConfig]) -> None:
        self.facets = [kind_of(c) for c in configs]

    def __iter__(self) -> Iterator[FacetKind]:
        return iter(self.facets)

    def facet(self, name: str) -> FacetKind:
        return next(f for f in self.facets if f.name == name)

    # --- the request ------------------------------------------------------------------------------------------

    def filters(self, params: SearchParams) -> dict[str, Query]:
        """Active filters by facet name (only facets with a selection)."""
        filters = {f.name: f.filter(params) for f in self.facets}
        return {name: f for name, f in filters.items() if f is not None}

    def post_filter(self, filters: dict[str, Query]) -> Query | None:
        """Facet filters apply to hits after aggregation, so facet counts can ignore their own filter."""
        if not filters:
            return None
        return {"bool": {"filter": self.clauses(filters)}}

    def clauses(self, filters: dict[str, Query]) -> list[Query]:
        """The same filters as a query's filter clauses, for a request that counts no facets (a count, a check, the
        nearest papers): nothing needs them left out."""
        return list(filters.values())

    def aggregations(self, filters: dict[str, Query]) -> Query:
        """One filter aggregation per facet, each under every active filter except its own (disjunctive)."""
        return {f.name: f.aggregation(except_own(filters, f.name)) for f in self.facets}

    def known_values(self, params: SearchParams) -> Query | None:
        """Which of the selected filter values exist in the index, whatever the query: a selected value the facets
        did not count is shown (to be unselected) only when it is one, so junk values in a URL are not echoed back
        as facet entries (issue 45.3). A global aggregation (top level only), each part behind a terms filter so
        only the papers with a selected value are looked at."""
        wanted = [part for f in self.facets for part in f.known_values(params)]
        # A value matched whatever its case may be indexed in several spellings: room for a few of each.
        parts = {param: {"filter": match_values(field, values, any_case),
                         "aggs": {"values": {"terms": {"field": field, "size": len(values) * (4 if any_case else 1)}}}}
                 for param, field, values, any_case in wanted if values}
        return {"global": {}, "aggs": parts} if parts else None

    def known_aggregation(self, params: SearchParams) -> Query:
        """known_values as the top-level aggregation it is sent as (nothing without a selection)."""
        known = self.known_values(params)
        return {KNOWN: known} if known else {}

    # --- the answer -------------------------------------------------------------------------------------------

    def read(self, aggs: dict[str, Any], params: SearchParams) -> list[Facet]:
        """Aggregation buckets → the domain's facets, each value labelled by itself (the view layer names them)."""
        return [f.read(aggs, params) for f in self.facets]

    def as_indexed(self, aggs: dict[str, Any], params: SearchParams) -> SearchParams:
        """The parameters with each selected value of a facet matched whatever its case in the spelling the index
        has it (venue=iclr → ICLR, from the known values' buckets), so the facets, chips and links show and keep
        that one (issue 57.7). A value no paper has stays as typed."""
        filters = {p: v for f in self.facets for p, v in f.indexed(aggs, params).items()}
        if all(params.selected(p) == v for p, v in filters.items()):
            return params
        return params.model_copy(update={"filters": params.filters | filters})
