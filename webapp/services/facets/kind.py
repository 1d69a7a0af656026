"""What every kind of facet answers (as elasticsearch-dsl's Facet: get_aggregation, add_filter, get_values), and
the pieces the kinds share. A kind is built from its config (papersearch/search_config.py: plain data); the
composer (faceted.py) asks every facet the same questions and never tests its kind.

Facets are disjunctive: filters go into post_filter and each facet is counted under every other facet's
filter but not its own (see DECISIONS.md D-017).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from webapp.domain import Facet, SearchParams
from webapp.services.es_syntax import Query

KNOWN = "known"  # which selected filter values some paper of the index has at all (known_values)

# (URL parameter, field, selected values, whether they match whatever their case)
Known = list[tuple[str, str, list[str], bool]]
Selection = tuple[str, str, tuple[str, ...]]  # (URL parameter, value, the value's parts: area, subarea)
Bound = tuple[str, str, int]  # ("from" or "to", URL parameter, value)


class FacetKind(ABC):
    """One facet of the config: its filter, its aggregation and its reading of the answer. The values it reads
    are labelled by themselves: names in the UI language are the view layer's (webapp/views/facet_labels.py)."""

    name: str
    param: str  # the URL parameter of its values
    child_param: str  # the URL parameter of its values' children (its own when they have none)

    @abstractmethod
    def filter(self, params: SearchParams) -> Query | None:
        """The papers the selection keeps (None: nothing selected)."""

    @abstractmethod
    def aggregation(self, others: Query) -> Query:
        """Its values counted under `others`, every active filter but its own (except_own)."""

    @abstractmethod
    def known_values(self, params: SearchParams) -> Known:
        """Its selected values, to ask which some paper has at all."""

    @abstractmethod
    def read(self, aggs: dict[str, Any], params: SearchParams) -> Facet:
        """Its part of the answer's aggregations (and of the known values') → the facet as the domain has it."""

    @abstractmethod
    def selections(self, params: SearchParams) -> list[Selection]:
        """Its selected values, each with its URL parameter."""

    def bounds(self, params: SearchParams) -> list[Bound]:
        """Its range's bounds that are set (none: a facet without a range)."""
        return []

    def indexed(self, aggs: dict[str, Any], params: SearchParams) -> dict[str, list[str]]:
        """Its selected values in the index's spelling where that may differ (nothing to respell by default)."""
        return {}


def except_own(filters: dict[str, Query], name: str) -> Query:
    """Every active filter but the facet's own (it is counted under the others only)."""
    others = [f for n, f in filters.items() if n != name]
    return {"bool": {"filter": others}} if others else {"match_all": {}}


def known(aggs: dict[str, Any], param: str) -> set[str] | None:
    """The selected values of a parameter that some paper of the index has (known_values; None when the request
    did not ask: every selected value is then shown)."""
    if KNOWN not in aggs:
        return None
    buckets = aggs.get(KNOWN, {}).get(param, {}).get("values", {}).get("buckets", [])
    return {str(b.get("key_as_string", b["key"])) for b in buckets if b["doc_count"]}


def match_values(field: str, values: list[str], any_case: bool = False) -> Query:
    """Papers with any of the values in the field; `any_case`: whatever their case (venue:iclr is ICLR, type=
    Conference-paper is conference-paper: issue 57.7). A terms query has no case_insensitive; a term query has."""
    if not any_case:
        return {"terms": {field: values}}
    terms: list[Query] = [{"term": {field: {"value": v, "case_insensitive": True}}} for v in values]
    return terms[0] if len(terms) == 1 else {"bool": {"should": terms, "minimum_should_match": 1}}
