"""Aggregation buckets → Facet domain objects, with labels in both languages from the taxonomy."""

from __future__ import annotations

import math
from typing import Any

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import Bar, Facet, FacetRange, FacetValue, SearchParams
from webapp.i18n import translate
from webapp.services.facet_queries import HISTOGRAM, KNOWN
from webapp.services.labels import Labels


def known(aggs: dict[str, Any], param: str) -> set[str] | None:
    """The selected values of a parameter that some paper of the index has (facet_queries.known_values; None
    when the request did not ask: every selected value is then shown)."""
    if KNOWN not in aggs:
        return None
    buckets = aggs.get(KNOWN, {}).get(param, {}).get("values", {}).get("buckets", [])
    return {str(b.get("key_as_string", b["key"])) for b in buckets if b["doc_count"]}


def _both(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    return None if a is None or b is None else a | b


def facets(aggs: dict[str, Any], params: SearchParams, config: dict, taxonomy: Labels) -> list[Facet]:
    out = []
    for facet in config["facets"]:
        agg = aggs.get(facet["name"], {})
        buckets = agg.get("values", {}).get("buckets", [])
        if facet["type"] == "hierarchy":
            exists = _both(known(aggs, "area"), known(aggs, "subarea"))
            out.append(topic_facet(facet, buckets, params, taxonomy, exists))
        else:
            span = facet_range(facet, agg.get("span", {}), params)
            selected = params.selected(facet["param"])
            found = terms_facet(facet, buckets, selected, span, known(aggs, facet["param"]))
            if facet.get("histogram"):
                found.bars = bars(agg.get(HISTOGRAM, {}).get("buckets", []), facet["histogram"]["max_bars"], span)
            out.append(found)
    return out


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


def facet_range(facet: dict, span: dict[str, Any], params: SearchParams) -> FacetRange | None:
    spec = facet.get("range")
    if not spec:
        return None

    def whole(value: float | None) -> int | None:
        return None if value is None else int(value)

    return FacetRange(param_from=spec["from"], param_to=spec["to"], low=params.ranges.get(spec["from"]),
                      high=params.ranges.get(spec["to"]), min=whole(span.get("min")), max=whole(span.get("max")))


def topic_facet(facet: dict, buckets: list[dict], params: SearchParams, taxonomy: Labels,
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
    return Facet(name=facet["name"], param=facet["levels"][0]["param"], values=values)


def value_labels(facet: dict, value: str) -> tuple[str, str]:
    """A value's English and Chinese labels: the translations `<labels>.<value>` for a facet with `labels`
    (record types, languages), else the value itself (venues, years)."""
    prefix = facet.get("labels")
    if not prefix:
        return value, value
    key = f"{prefix}.{value}"
    en, zh = translate("en", key), translate("zh", key)
    return (value, value) if en == key else (en, zh)  # a value without a translation as itself


def terms_facet(facet: dict, buckets: list[dict], selected: list[str], span: FacetRange | None = None,
                exists: set[str] | None = None) -> Facet:
    def value(key: str, count: int, chosen: bool) -> FacetValue:
        # children given, though empty: pydantic deep-copies a mutable default for every instance.
        en, zh = value_labels(facet, key)
        return FacetValue(value=key, label=en, label_zh=zh, count=count, selected=chosen, children=[])

    values = [value(str(b["key"]), b["doc_count"], str(b["key"]) in selected) for b in buckets]
    values += [value(v, 0, True) for v in selected
               if v not in {x.value for x in values} and (exists is None or v in exists)]
    # Numbers (years) read best newest first; other values keep Elasticsearch's count order.
    if "integer" in facet:
        values.sort(key=lambda v: int(v.value), reverse=True)
    return Facet(name=facet["name"], param=facet["param"], values=values, range=span)
