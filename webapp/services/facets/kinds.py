"""One class per kind of facet in config/index.json ("type"), each writing its own filter and aggregation and
reading its own buckets (as elasticsearch.dsl's Facet classes do): bodies/facets.py, results/facets.py and
views/facets.py ask every facet the same questions and never test its type.

Facets are disjunctive: filters go into post_filter and each facet is counted under every other facet's
filter but not its own (see DECISIONS.md D-017).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import Field

from papersearch.search_config import HierarchyFacetConfig, TermsFacetConfig
from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import Bar, Facet, FacetRange, FacetValue, SearchParams
from webapp.services.es_syntax import Query
from webapp.services.facets.labels import Labels

HISTOGRAM = "histogram"  # a facet's papers per value, beside its values
KNOWN = "known"  # which selected filter values some paper of the index has at all (known_values)

# (URL parameter, field, selected values, whether they match whatever their case)
Known = list[tuple[str, str, list[str], bool]]
Selection = tuple[str, str, tuple[str, ...]]  # (URL parameter, value, the value's parts: area, subarea)
Bound = tuple[str, str, int]  # ("from" or "to", URL parameter, value)


UNTAGGED = "untagged"  # the hierarchy facet's count of papers without a value (issue 57.12)


def untagged(field: str) -> Query:
    """The papers without a value of the field (a filter aggregation: random_sampler samples no `missing`)."""
    return {"filter": {"bool": {"must_not": [{"exists": {"field": field}}]}}}


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


def as_indexed(values: list[str], indexed: set[str] | None) -> list[str]:
    """Selected values in the spelling the index has them (iclr → ICLR: `indexed`, the known values), each once."""
    spelled = {v.casefold(): v for v in sorted(indexed or ())}
    return list(dict.fromkeys(spelled.get(v.casefold(), v) for v in values))


def _both(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    return None if a is None or b is None else a | b


class HierarchyFacet(HierarchyFacetConfig):
    """Areas, and under each area its subareas (topic_path values "Area > Subarea"); the URL parameters are the
    domain's areas and subareas."""

    @property
    def param(self) -> str:
        return self.levels[0].param

    @property
    def child_param(self) -> str:
        """The URL parameter of a value's children."""
        return self.levels[1].param

    def filter(self, params: SearchParams) -> Query | None:
        return self.filter_of(params.areas, params.subareas)

    def filter_of(self, areas: list[str], subareas: list[str]) -> Query | None:
        """Selected areas OR selected subareas; a subarea selected under an area narrows that area."""
        area_level, sub_level = self.levels
        refined = {s.split(PATH_SEPARATOR, 1)[0] for s in subareas}
        whole_areas = [a for a in areas if a not in refined]
        should: list[Query] = []
        if whole_areas:
            should.append({"terms": {area_level.field: whole_areas}})
        if subareas:
            should.append({"terms": {sub_level.field: subareas}})
        if not should:
            return None
        return should[0] if len(should) == 1 else {"bool": {"should": should, "minimum_should_match": 1}}

    def aggregation(self, filters: dict[str, Query]) -> Query:
        area_level, sub_level = self.levels
        return {
            "filter": except_own(filters, self.name),
            "aggs": {"values": {
                "terms": {"field": area_level.field, "size": area_level.size},
                "aggs": {"children": {"terms": {"field": sub_level.field, "size": sub_level.size}}},
            }, UNTAGGED: untagged(area_level.field)},
        }

    def known_values(self, params: SearchParams) -> Known:
        area_level, sub_level = self.levels
        return [(area_level.param, area_level.field, params.areas, False),
                (sub_level.param, sub_level.field, params.subareas, False)]

    def read(self, aggs: dict[str, Any], params: SearchParams, taxonomy: Labels) -> Facet:
        agg = aggs.get(self.name, {})
        facet = self.values(agg.get("values", {}).get("buckets", []), params, taxonomy,
                            _both(known(aggs, self.param), known(aggs, self.child_param)))
        update: dict[str, Any] = {"papers": agg.get("doc_count")}
        if UNTAGGED in agg:  # what the facet covers: papers with any topic, of those under the other filters
            of = agg.get("doc_count", 0)
            update |= {"covered": of - agg[UNTAGGED].get("doc_count", 0), "of": of}
        return facet.model_copy(update=update)

    def values(self, buckets: list[dict], params: SearchParams, taxonomy: Labels,
               exists: set[str] | None = None) -> Facet:
        def area_value(area: str, count: int, children: list[FacetValue]) -> FacetValue:
            return FacetValue(value=area, label=area, label_zh=taxonomy.label_zh(area) or area, count=count,
                              selected=area in params.areas, children=children)

        def subarea_value(path: str, count: int) -> FacetValue:
            area, _, subarea = path.partition(PATH_SEPARATOR)
            return FacetValue(value=path, label=subarea, label_zh=taxonomy.label_zh(area, subarea) or subarea,
                              count=count, selected=path in params.subareas, children=[])

        values: list[FacetValue] = []
        for bucket in buckets:
            children = [
                subarea_value(str(b["key"]), b["doc_count"])
                for b in bucket.get("children", {}).get("buckets", [])
                if PATH_SEPARATOR in str(b["key"])  # "Area" alone = no subarea
            ]
            values.append(area_value(str(bucket["key"]), bucket["doc_count"], children))
        # A selected value with no hits under the other filters stays visible, so it can be unselected, when some
        # paper has it (`exists`, None: not asked); a value no paper has is not echoed (the filter chip removes it).
        shown = {v.value for v in values}
        for area in params.areas:
            if area not in shown and (exists is None or area in exists):
                values.append(area_value(area, 0, []))
                shown.add(area)
        for path in params.subareas:
            if exists is not None and path not in exists:
                continue
            area = path.split(PATH_SEPARATOR, 1)[0]
            parent = next((v for v in values if v.value == area), None)
            if parent is None:
                parent = area_value(area, 0, [])
                values.append(parent)
            if all(c.value != path for c in parent.children):
                parent.children.append(subarea_value(path, 0))
        return Facet(name=self.name, param=self.param, values=values)

    def selections(self, params: SearchParams) -> list[Selection]:
        return ([(self.param, a, (a,)) for a in params.areas]
                + [(self.child_param, s, tuple(s.split(PATH_SEPARATOR))) for s in params.subareas])

    def bounds(self, params: SearchParams) -> list[Bound]:
        return []

    def indexed(self, aggs: dict[str, Any], params: SearchParams) -> dict[str, list[str]]:
        return {}  # topics are chosen from the page, never typed


class TermsFacet(TermsFacetConfig):
    """One field's values; with `range` from/to bounds and the span of the values, with `histogram` papers per
    value as bars."""

    @property
    def child_param(self) -> str:
        return self.param  # its values have no children

    @property
    def any_case(self) -> bool:
        """Whether a typed value matches the indexed one whatever its case: a word's (venue, type, language), not a
        number's (issue 57.7)."""
        return self.integer is None

    def range_filter(self, params: SearchParams) -> Query | None:
        if not self.range:
            return None
        spec = self.range
        bounds = {op: params.ranges[p] for op, p in (("gte", spec.from_), ("lte", spec.to)) if p in params.ranges}
        return {"range": {self.field: bounds}} if bounds else None

    def filter(self, params: SearchParams) -> Query | None:
        """The selected values (OR) and, for a facet with a range, within its bounds."""
        values = params.selected(self.param)
        parts = [match_values(self.field, values, self.any_case)] if values else []
        bounds = self.range_filter(params)
        if bounds:
            parts.append(bounds)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"bool": {"filter": parts}}

    def aggregation(self, filters: dict[str, Query]) -> Query:
        """The facet's values with counts; for a facet with a range also the span of its values, and with a
        histogram the papers per value (only values some paper has: bars() fills the gaps)."""
        terms: Query = {"field": self.field, "size": self.size}
        if self.integer is None:
            terms["exclude"] = [""]  # papers without a venue store "" (indexer/loading/models.py): not a value to offer
        aggs: Query = {"values": {"terms": terms}}
        if self.range:
            aggs["span"] = {"stats": {"field": self.field}}
        if self.histogram:
            aggs[HISTOGRAM] = {"histogram": {"field": self.field, "interval": self.histogram.interval}}
        return {"filter": except_own(filters, self.name), "aggs": aggs}

    def known_values(self, params: SearchParams) -> Known:
        return [(self.param, self.field, params.selected(self.param), self.any_case)]

    def read(self, aggs: dict[str, Any], params: SearchParams, taxonomy: Labels) -> Facet:
        agg = aggs.get(self.name, {})
        span = self.span(agg.get("span", {}), params)
        found = self.values(agg.get("values", {}).get("buckets", []), params.selected(self.param), span,
                            known(aggs, self.param))
        if self.histogram:
            found.bars = bars(agg.get(HISTOGRAM, {}).get("buckets", []), self.histogram.max_bars, span)
        found.papers = agg.get("doc_count")
        return found

    def span(self, stats: dict[str, Any], params: SearchParams) -> FacetRange | None:
        if not self.range:
            return None

        def whole(value: float | None) -> int | None:
            return None if value is None else int(value)

        spec = self.range
        return FacetRange(param_from=spec.from_, param_to=spec.to, low=params.ranges.get(spec.from_),
                          high=params.ranges.get(spec.to), min=whole(stats.get("min")), max=whole(stats.get("max")))

    def values(self, buckets: list[dict], selected: list[str], span: FacetRange | None = None,
               exists: set[str] | None = None) -> Facet:
        def value(key: str, count: int, chosen: bool) -> FacetValue:
            # children given, though empty: pydantic deep-copies a mutable default for every instance. A value is
            # its own label; those of a facet with `labels` (UI strings) are put in by the view layer
            # (webapp/views/facet_labels.py).
            return FacetValue(value=key, label=key, label_zh=key, count=count, selected=chosen, children=[])

        values = [value(str(b["key"]), b["doc_count"], str(b["key"]) in selected) for b in buckets]
        values += [value(v, 0, True) for v in selected
                   if v not in {x.value for x in values} and (exists is None or v in exists)]
        # Numbers (years) read best newest first; other values keep Elasticsearch's count order.
        if self.integer is not None:
            values.sort(key=lambda v: int(v.value), reverse=True)
        return Facet(name=self.name, param=self.param, values=values, range=span)

    def selections(self, params: SearchParams) -> list[Selection]:
        return [(self.param, v, (v,)) for v in params.selected(self.param)]

    def bounds(self, params: SearchParams) -> list[Bound]:
        if not self.range:
            return []
        return [(side, p, params.ranges[p]) for side, p in (("from", self.range.from_), ("to", self.range.to))
                if p in params.ranges]

    def indexed(self, aggs: dict[str, Any], params: SearchParams) -> dict[str, list[str]]:
        """Its selected values in the spelling the index has them, when they match whatever their case (known:
        the known values' buckets)."""
        selected = params.selected(self.param)
        return {self.param: as_indexed(selected, known(aggs, self.param))} if self.any_case and selected else {}


FacetKind = Annotated[HierarchyFacet | TermsFacet, Field(discriminator="type")]


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
