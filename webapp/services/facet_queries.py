"""Facet filters and aggregations, driven by the "facets" of config/index.json.

Facets are disjunctive: filters go into post_filter and each facet is counted under every other
facet's filter but not its own (see DECISIONS.md D-017).
"""

from __future__ import annotations

from papersearch.index_definition import terms_facets
from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import SearchParams
from webapp.services.es_query import Query

HISTOGRAM = "histogram"  # a facet's papers per value, beside its values (facets.py reads it)
KNOWN = "known"  # which selected filter values some paper of the index has at all (facets.py reads it)


def facet_config(config: dict, name: str) -> dict:
    return next(f for f in config["facets"] if f["name"] == name)


def topic_filter(areas: list[str], subareas: list[str], config: dict) -> Query | None:
    """Selected areas OR selected subareas; a subarea selected under an area narrows that area."""
    area_level, sub_level = facet_config(config, "topic")["levels"]
    refined = {s.split(PATH_SEPARATOR, 1)[0] for s in subareas}
    whole_areas = [a for a in areas if a not in refined]
    should: list[Query] = []
    if whole_areas:
        should.append({"terms": {area_level["field"]: whole_areas}})
    if subareas:
        should.append({"terms": {sub_level["field"]: subareas}})
    if not should:
        return None
    return should[0] if len(should) == 1 else {"bool": {"should": should, "minimum_should_match": 1}}


def range_filter(facet: dict, params: SearchParams) -> Query | None:
    spec = facet.get("range")
    if not spec:
        return None
    bounds = {op: params.ranges[p] for op, p in (("gte", spec["from"]), ("lte", spec["to"])) if p in params.ranges}
    return {"range": {facet["field"]: bounds}} if bounds else None


def terms_filter(facet: dict, params: SearchParams) -> Query | None:
    """The selected values (OR) and, for a facet with a range, within its bounds."""
    values = params.selected(facet["param"])
    parts = [{"terms": {facet["field"]: values}}] if values else []
    bounds = range_filter(facet, params)
    if bounds:
        parts.append(bounds)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"bool": {"filter": parts}}


def facet_filters(params: SearchParams, config: dict) -> dict[str, Query]:
    """Active filters by facet name (only facets with a selection)."""
    filters = {"topic": topic_filter(params.areas, params.subareas, config)}
    filters |= {f["name"]: terms_filter(f, params) for f in terms_facets(config)}
    return {name: f for name, f in filters.items() if f is not None}


def post_filter(filters: dict[str, Query]) -> Query | None:
    """Facet filters apply to hits after aggregation, so facet counts can ignore their own filter."""
    if not filters:
        return None
    return {"bool": {"filter": list(filters.values())}}


def _except(filters: dict[str, Query], name: str) -> Query:
    others = [f for n, f in filters.items() if n != name]
    return {"bool": {"filter": others}} if others else {"match_all": {}}


def topic_aggregation(config: dict, filters: dict[str, Query]) -> Query:
    """Areas, and under each area its subareas (topic_path values "Area > Subarea")."""
    area_level, sub_level = facet_config(config, "topic")["levels"]
    return {
        "filter": _except(filters, "topic"),
        "aggs": {"values": {
            "terms": {"field": area_level["field"], "size": area_level["size"]},
            "aggs": {"children": {"terms": {"field": sub_level["field"], "size": sub_level["size"]}}},
        }},
    }


def terms_aggregation(facet: dict, filters: dict[str, Query]) -> Query:
    """The facet's values with counts; for a facet with a range also the span of its values, and with a
    histogram the papers per value (only values some paper has: facets.py fills the gaps)."""
    terms: Query = {"field": facet["field"], "size": facet["size"]}
    if "integer" not in facet:
        terms["exclude"] = [""]  # papers without a venue store "" (indexer/models.py): not a value to offer
    aggs: Query = {"values": {"terms": terms}}
    if facet.get("range"):
        aggs["span"] = {"stats": {"field": facet["field"]}}
    if facet.get("histogram"):
        aggs[HISTOGRAM] = {"histogram": {"field": facet["field"], "interval": facet["histogram"]["interval"]}}
    return {"filter": _except(filters, facet["name"]), "aggs": aggs}


def aggregations(config: dict, filters: dict[str, Query]) -> Query:
    """One filter aggregation per facet, each under every active filter except its own (disjunctive)."""
    aggs: Query = {}
    for facet in config["facets"]:
        if facet["type"] == "hierarchy":
            aggs[facet["name"]] = topic_aggregation(config, filters)
        else:
            aggs[facet["name"]] = terms_aggregation(facet, filters)
    return aggs


def known_values(params: SearchParams, config: dict) -> Query | None:
    """Which of the selected filter values exist in the index, whatever the query: a selected value the facets
    did not count is shown (to be unselected) only when it is one, so junk values in a URL are not echoed back
    as facet entries (issue 45.3). A global aggregation (top level only), each part behind a terms filter so
    only the papers with a selected value are looked at."""
    area_level, sub_level = facet_config(config, "topic")["levels"]
    wanted = [("area", area_level["field"], params.areas), ("subarea", sub_level["field"], params.subareas)]
    wanted += [(f["param"], f["field"], params.selected(f["param"])) for f in terms_facets(config)]
    parts = {param: {"filter": {"terms": {field: values}},
                     "aggs": {"values": {"terms": {"field": field, "size": len(values)}}}}
             for param, field, values in wanted if values}
    return {"global": {}, "aggs": parts} if parts else None


def known_aggregation(params: SearchParams, config: dict) -> Query:
    """known_values as the top-level aggregation it is sent as (nothing without a selection)."""
    known = known_values(params, config)
    return {KNOWN: known} if known else {}
