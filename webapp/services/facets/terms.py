"""The facet of one field's words (venue, record type, language: a "terms" facet of config/index.json without
`integer`): the papers with any selected value, its values counted, a typed value matched whatever its case."""

from __future__ import annotations

from typing import Any

from papersearch.search_config import TermsFacetConfig
from webapp.domain import Facet, FacetValue, SearchParams
from webapp.services.es_syntax import Query
from webapp.services.facets.kind import FacetKind, Known, Selection, known, match_values


def as_indexed(values: list[str], indexed: set[str] | None) -> list[str]:
    """Selected values in the spelling the index has them (iclr → ICLR: `indexed`, the known values), each once."""
    spelled = {v.casefold(): v for v in sorted(indexed or ())}
    return list(dict.fromkeys(spelled.get(v.casefold(), v) for v in values))


class TermsFacet(FacetKind):
    """One field's values, any of the selected ones (OR)."""

    # Whether a typed value matches the indexed one whatever its case: a word's (venue, type, language), not a
    # number's (numbers.py; issue 57.7).
    any_case = True

    def __init__(self, config: TermsFacetConfig) -> None:
        self.config = config
        self.name = config.name
        self.param = self.child_param = config.param  # its values have no children
        self.field = config.field

    def filter(self, params: SearchParams) -> Query | None:
        """The selected values (OR) and whatever else narrows them (a number facet's bounds)."""
        values = params.selected(self.param)
        parts = [match_values(self.field, values, self.any_case)] if values else []
        parts += self.more_filters(params)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"bool": {"filter": parts}}

    def more_filters(self, params: SearchParams) -> list[Query]:
        return []

    def terms(self) -> Query:
        # papers without a venue store "" (indexer/loading/models.py): not a value to offer
        return {"field": self.field, "size": self.config.size, "exclude": [""]}

    def aggregation(self, others: Query) -> Query:
        """Its values with counts, and whatever else a kind counts beside them (more_aggregations)."""
        return {"filter": others, "aggs": {"values": {"terms": self.terms()}, **self.more_aggregations()}}

    def more_aggregations(self) -> Query:
        return {}

    def known_values(self, params: SearchParams) -> Known:
        return [(self.param, self.field, params.selected(self.param), self.any_case)]

    def read(self, aggs: dict[str, Any], params: SearchParams) -> Facet:
        agg = aggs.get(self.name, {})
        found = self.values(agg.get("values", {}).get("buckets", []), params.selected(self.param),
                            known(aggs, self.param))
        found.papers = agg.get("doc_count")
        return found

    def values(self, buckets: list[dict], selected: list[str], exists: set[str] | None = None) -> Facet:
        def value(key: str, count: int, chosen: bool) -> FacetValue:
            # children given, though empty: pydantic deep-copies a mutable default for every instance. A value is
            # its own label; those of a facet with `labels` (UI strings) are put in by the view layer
            # (webapp/views/facet_labels.py).
            return FacetValue(value=key, label=key, label_zh=key, count=count, selected=chosen, children=[])

        values = [value(str(b["key"]), b["doc_count"], str(b["key"]) in selected) for b in buckets]
        values += [value(v, 0, True) for v in selected
                   if v not in {x.value for x in values} and (exists is None or v in exists)]
        return Facet(name=self.name, param=self.param, values=self.ordered(values))

    def ordered(self, values: list[FacetValue]) -> list[FacetValue]:
        return values  # Elasticsearch's count order

    def selections(self, params: SearchParams) -> list[Selection]:
        return [(self.param, v, (v,)) for v in params.selected(self.param)]

    def indexed(self, aggs: dict[str, Any], params: SearchParams) -> dict[str, list[str]]:
        """Its selected values in the spelling the index has them, when they match whatever their case (known:
        the known values' buckets)."""
        selected = params.selected(self.param)
        return {self.param: as_indexed(selected, known(aggs, self.param))} if self.any_case and selected else {}
