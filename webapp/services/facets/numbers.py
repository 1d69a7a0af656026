"""The facet of a field's whole numbers (year: a "terms" facet of config/index.json with `integer`): its values
as the terms facet's, newest first, and with `range` from/to bounds and the span of its values, with `histogram`
papers per value as bars."""

from __future__ import annotations

import math
from typing import Any

from papersearch.search_config import TermsFacetConfig
from webapp.domain import Bar, Facet, FacetRange, FacetValue, SearchParams
from webapp.services.es_syntax import Query
from webapp.services.facets.kind import Bound
from webapp.services.facets.terms import TermsFacet

HISTOGRAM = "histogram"  # a facet's papers per value, beside its values
SPAN = "span"  # the lowest and highest value under the other filters


class NumberFacet(TermsFacet):
    """A field's numbers, selected as values or between bounds."""

    any_case = False  # a number has no case

    def __init__(self, config: TermsFacetConfig) -> None:
        super().__init__(config)
        self.range = config.range
        self.histogram = config.histogram

    def more_filters(self, params: SearchParams) -> list[Query]:
        """Within its bounds, when it has a range and some are set."""
        if not self.range:
            return []
        spec = self.range
        bounds = {op: params.ranges[p] for op, p in (("gte", spec.from_), ("lte", spec.to)) if p in params.ranges}
        return [{"range": {self.field: bounds}}] if bounds else []

    def terms(self) -> Query:
        return {"field": self.field, "size": self.config.size}  # no "" to leave out: a number field

    def more_aggregations(self) -> Query:
        """With a range the span of its values, with a histogram the papers per value (only values some paper
        has: bars() fills the gaps)."""
        aggs: Query = {}
        if self.range:
            aggs[SPAN] = {"stats": {"field": self.field}}
        if self.histogram:
            aggs[HISTOGRAM] = {"histogram": {"field": self.field, "interval": self.histogram.interval}}
        return aggs

    def read(self, aggs: dict[str, Any], params: SearchParams) -> Facet:
        found = super().read(aggs, params)
        agg = aggs.get(self.name, {})
        found.range = self.span(agg.get(SPAN, {}), params)
        if self.histogram:
            found.bars = bars(agg.get(HISTOGRAM, {}).get("buckets", []), self.histogram.max_bars, found.range)
        return found

    def span(self, stats: dict[str, Any], params: SearchParams) -> FacetRange | None:
        if not self.range:
            return None

        def whole(value: float | None) -> int | None:
            return None if value is None else int(value)

        spec = self.range
        return FacetRange(param_from=spec.from_, param_to=spec.to, low=params.ranges.get(spec.from_),
                          high=params.ranges.get(spec.to), min=whole(stats.get("min")), max=whole(stats.get("max")))

    def ordered(self, values: list[FacetValue]) -> list[FacetValue]:
        return sorted(values, key=lambda v: int(v.value), reverse=True)  # numbers (years) read best newest first

    def bounds(self, params: SearchParams) -> list[Bound]:
        if not self.range:
            return []
        return [(side, p, params.ranges[p]) for side, p in (("from", self.range.from_), ("to", self.range.to))
                if p in params.ranges]


def bars(buckets: list[dict[str, Any]], max_bars: int, chosen: FacetRange | None = None) -> list[Bar]:
    """A histogram's buckets (values some paper has) → bars over the whole span, a gap a bar of 0; a span of
    more than max_bars values gets several values to a bar, the last bar ending at the newest value. A bar
    is selected when it overlaps the chosen range."""
    counts = {int(b["key"]): int(b["doc_count"]) for b in buckets if b["doc_count"]}
    if not counts:
        return []
    low, high = min(counts), max(counts)
    width = math.ceil((high - low + 1) / max_bars)
    first = high - width * math.ceil((high - low + 1) / width) + 1
    lo = chosen.low if chosen and chosen.low is not None else -math.inf
    hi = chosen.high if chosen and chosen.high is not None else math.inf
    some = bool(chosen and (chosen.low is not None or chosen.high is not None))
    out = []
    for start in range(first, high + 1, width):
        end = start + width - 1
        count = sum(counts.get(v, 0) for v in range(start, end + 1))
        out.append(Bar(low=start, high=end, count=count, selected=some and start <= hi and end >= lo))
    return out
