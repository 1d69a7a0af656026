"""Facet filters and aggregations, driven by the "facets" of config/index.json.

Facets are disjunctive: filters go into post_filter and each facet is counted under every other
facet's filter but not its own (see DECISIONS.md "Disjunctive facets via post_filter").
"""

from __future__ import annotations

from typing import Any

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import SearchParams

Query = dict[str, Any]


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


def year_filter(years: list[int], config: dict) -> Query | None:
    return {"terms": {facet_config(config, "year")["field"]: years}} if years else None


def facet_filters(params: SearchParams, config: dict) -> dict[str, Query]:
    """Active filters by facet name (only facets with a selection)."""
    filters = {
        "topic": topic_filter(params.areas, params.subareas, config),
        "year": year_filter(params.years, config),
    }
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
    return {
        "filter": _except(filters, facet["name"]),
        "aggs": {"values": {"terms": {"field": facet["field"], "size": facet["size"]}}},
    }


def aggregations(config: dict, filters: dict[str, Query]) -> Query:
    """One filter aggregation per facet, each under every active filter except its own (disjunctive)."""
    aggs: Query = {}
    for facet in config["facets"]:
        if facet["type"] == "hierarchy":
            aggs[facet["name"]] = topic_aggregation(config, filters)
        else:
            aggs[facet["name"]] = terms_aggregation(facet, filters)
    return aggs
