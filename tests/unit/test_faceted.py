"""webapp/services/facets/faceted.py and the kinds it composes (issue 54.5, DECISIONS.md D-215): each kind of facet
is one class built from its config (plain data) that writes its filter, aggregation and known-values part and reads
its buckets as the code that tested the facet's type did (issue 43.2): the expected values below are that code's
output for the same config, parameters and answer; test_request_bodies.py pins whole bodies."""

from __future__ import annotations

import re
from pathlib import Path

from papersearch import index_definition
from papersearch.search_config import HierarchyFacetConfig, TermsFacetConfig, validated
from papersearch.taxonomy import Taxonomy
from webapp.domain import SearchParams
from webapp.services.facets.numbers import NumberFacet
from webapp.services.facets.terms import TermsFacet
from webapp.services.facets.topics import TopicFacet
from webapp.services.search_settings import WebSearchConfig, search_config
from webapp.views.facet_labels import labelled

ROOT = Path(__file__).resolve().parents[2]
CONFIG = search_config()
# How the callers told the kinds apart: facet["type"] == "hierarchy", f.get("type"), terms_facets(config).
TYPE_TEST = re.compile(r'[=!]=\s*"(?:hierarchy|terms)"|"type"|\.type\b|isinstance\(|terms_facets')
PARAMS = SearchParams(areas=["Deep Learning", "Theory"], subareas=["Deep Learning > Theory"],
                      filters={"year": ["2020", "2021"], "venue": ["NeurIPS"]},
                      ranges={"year_from": 2019, "year_to": 2023})
TOPIC_F = {"bool": {"should": [{"terms": {"topic_area": ["Theory"]}},
                               {"terms": {"topic_path": ["Deep Learning > Theory"]}}], "minimum_should_match": 1}}
VENUE_F = {"term": {"venue": {"value": "NeurIPS", "case_insensitive": True}}}  # whatever its case (issue 57.7)
YEAR_F = {"bool": {"filter": [{"terms": {"year": ["2020", "2021"]}}, {"range": {"year": {"gte": 2019, "lte": 2023}}}]}}
ANSWER = {
    "topic": {"values": {"buckets": [
        {"key": "Deep Learning", "doc_count": 5, "children": {"buckets": [
            {"key": "Deep Learning", "doc_count": 1}, {"key": "Deep Learning > Theory", "doc_count": 3}]}},
        {"key": "Applications", "doc_count": 2}]}},
    "venue": {"values": {"buckets": [{"key": "ICLR", "doc_count": 6}, {"key": "ICML", "doc_count": 1}]}},
    "year": {"values": {"buckets": [{"key": 2020, "doc_count": 4}, {"key": 2023, "doc_count": 2}]},
             "span": {"min": 2019.0, "max": 2024.0},
             "histogram": {"buckets": [{"key": 2019.0, "doc_count": 1}, {"key": 2021.0, "doc_count": 3}]}},
    "known": {"area": {"values": {"buckets": [{"key": "Deep Learning", "doc_count": 3}]}},
              "subarea": {"values": {"buckets": [{"key": "Deep Learning > Theory", "doc_count": 1}]}},
              "venue": {"values": {"buckets": [{"key": "ICLR", "doc_count": 1}]}},
              "year": {"values": {"buckets": [{"key": 2020, "key_as_string": "2020", "doc_count": 1}]}}},
}


def test_each_facet_of_the_config_is_the_class_of_its_kind():
    assert [(f.name, type(f)) for f in CONFIG.faceted] == [("topic", TopicFacet), ("venue", TermsFacet),
                                                           ("year", NumberFacet), ("type", TermsFacet),
                                                           ("language", TermsFacet)]
    assert CONFIG.faceted is CONFIG.faceted  # built once per settings


def test_the_config_stays_data():
    # The facets of the settings are the config's models, with no filter, aggregation or reading of their own.
    assert [type(f) for f in CONFIG.facets] == [HierarchyFacetConfig] + [TermsFacetConfig] * 4
    assert not any(hasattr(f, m) for f in CONFIG.facets for m in ("filter", "aggregation", "read", "selections"))


def test_a_new_facet_is_config_not_code():
    search = index_definition.load()["search"]
    publisher = {"name": "publisher", "type": "terms", "param": "publisher", "field": "publisher", "size": 5}
    config = validated(WebSearchConfig, {**search, "facets": [*search["facets"], publisher]})
    params = SearchParams(filters={"publisher": ["ACM"]})
    filters = config.faceted.filters(params)
    assert filters == {"publisher": {"term": {"publisher": {"value": "ACM", "case_insensitive": True}}}}
    assert config.faceted.aggregations(filters)["publisher"] == {
        "filter": {"match_all": {}}, "aggs": {"values": {"terms": {"field": "publisher", "size": 5, "exclude": [""]}}}}
    answer = {"publisher": {"doc_count": 3, "values": {"buckets": [{"key": "ACM", "doc_count": 3}]}}}
    read = config.faceted.read(answer, params)[-1]
    assert (read.name, read.papers, [(v.value, v.count, v.selected) for v in read.values]) == (
        "publisher", 3, [("ACM", 3, True)])


def test_the_post_filter_is_composed_in_one_place():
    filters = CONFIG.faceted.filters(PARAMS)
    assert CONFIG.faceted.post_filter(filters) == {"bool": {"filter": CONFIG.faceted.clauses(filters)}}
    assert CONFIG.faceted.post_filter({}) is None and CONFIG.faceted.clauses({}) == []
    # the renderers write no post_filter of their own
    for path in ("webapp/services/bodies/render.py", "webapp/services/bodies/meaning.py",
                 "webapp/services/pages/profile_queries.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert '"post_filter"' not in text or ".post_filter(" in text, path
        assert '["bool"]["filter"]' not in text, path  # nor take one apart


def test_filters_as_before():
    by_name = {f.name: f.filter(PARAMS) for f in CONFIG.faceted}
    assert by_name == {"topic": TOPIC_F, "venue": VENUE_F, "year": YEAR_F, "type": None, "language": None}
    assert CONFIG.faceted.filters(PARAMS) == {k: v for k, v in by_name.items() if v is not None}
    assert all(f.filter(SearchParams()) is None for f in CONFIG.faceted)  # no selection, no filter


def test_aggregations_as_before():
    aggs = CONFIG.faceted.aggregations(CONFIG.faceted.filters(PARAMS))
    assert aggs["topic"] == {"filter": {"bool": {"filter": [VENUE_F, YEAR_F]}}, "aggs": {"values": {
        "terms": {"field": "topic_area", "size": 50},
        "aggs": {"children": {"terms": {"field": "topic_path", "size": 200}}}},
        # the papers without any topic: what the facet covers (issue 57.12)
        "untagged": {"filter": {"bool": {"must_not": [{"exists": {"field": "topic_area"}}]}}}}}
    assert aggs["venue"] == {"filter": {"bool": {"filter": [TOPIC_F, YEAR_F]}},
                             "aggs": {"values": {"terms": {"field": "venue", "size": 30, "exclude": [""]}}}}
    assert aggs["year"] == {"filter": {"bool": {"filter": [TOPIC_F, VENUE_F]}}, "aggs": {
        "values": {"terms": {"field": "year", "size": 30}}, "span": {"stats": {"field": "year"}},
        "histogram": {"histogram": {"field": "year", "interval": 1}}}}


def test_known_values_as_before():
    def part(field: str, values: list[str], filter_: dict | None = None, size: int = 1) -> dict:
        return {"filter": filter_ or {"terms": {field: values}},
                "aggs": {"values": {"terms": {"field": field, "size": len(values) * size}}}}

    assert CONFIG.faceted.known_aggregation(PARAMS) == {"known": {"global": {}, "aggs": {
        "area": part("topic_area", ["Deep Learning", "Theory"]),
        "subarea": part("topic_path", ["Deep Learning > Theory"]),
        "venue": part("venue", ["NeurIPS"], VENUE_F, 4), "year": part("year", ["2020", "2021"])}}}


def test_buckets_read_as_before():
    read = CONFIG.faceted.read(ANSWER, PARAMS)
    # The kinds name each value by itself; the view layer puts in the taxonomy's Chinese names.
    assert [(v.label, v.label_zh) for v in read[0].values] == [("Deep Learning", "Deep Learning"),
                                                               ("Applications", "Applications")]
    assert [(c.label, c.label_zh) for c in read[0].values[0].children] == [("Theory", "Theory")]
    topic, venue, year, kind, language = labelled(read, CONFIG, Taxonomy.load())
    assert kind.values == language.values == []  # the answer has no buckets for them
    assert topic.model_dump() == {"name": "topic", "param": "area", "range": None, "bars": [], "covered": None,
                                  "of": None, "papers": None, "values": [
        {"value": "Deep Learning", "label": "Deep Learning", "label_zh": "深度学习", "count": 5, "selected": True,
         "children": [{"value": "Deep Learning > Theory", "label": "Theory", "label_zh": "理论", "count": 3,
                       "selected": True, "children": []}]},
        {"value": "Applications", "label": "Applications", "label_zh": "应用", "count": 2, "selected": False,
         "children": []}]}  # Theory alone is no area some paper has (known): not echoed
    assert [(v.value, v.count, v.selected) for v in venue.values] == [("ICLR", 6, False), ("ICML", 1, False)]
    assert venue.range is None and venue.bars == []
    assert [(v.value, v.count, v.selected) for v in year.values] == [("2023", 2, False), ("2020", 4, True)]
    assert year.range.model_dump() == {"param_from": "year_from", "param_to": "year_to", "low": 2019, "high": 2023,
                                       "min": 2019, "max": 2024}
    assert [(b.low, b.high, b.count, b.selected) for b in year.bars] == [(2019, 2019, 1, True), (2020, 2020, 0, True),
                                                                          (2021, 2021, 3, True)]


def test_selections_and_bounds_name_each_facets_own_parameters():
    topic, venue, year, *_ = CONFIG.faceted
    assert topic.selections(PARAMS) == [("area", "Deep Learning", ("Deep Learning",)), ("area", "Theory", ("Theory",)),
                                        ("subarea", "Deep Learning > Theory", ("Deep Learning", "Theory"))]
    assert venue.selections(PARAMS) == [("venue", "NeurIPS", ("NeurIPS",))]
    assert year.bounds(PARAMS) == [("from", "year_from", 2019), ("to", "year_to", 2023)]
    assert topic.bounds(PARAMS) == venue.bounds(PARAMS) == []
    assert (topic.child_param, venue.child_param) == ("subarea", "venue")


def test_the_callers_do_not_test_a_facets_type():
    # faceted.kind_of chooses each facet's class once, by its config's model (a match on it).
    for path in ("webapp/services/facets/faceted.py", "webapp/views/facets.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not TYPE_TEST.findall(text), path


def test_typed_values_are_shown_as_indexed():
    # Issue 57.7: venue=iclr matches ICLR; the page keeps the index's spelling.
    params = SearchParams(filters={"venue": ["iclr", "nips"], "year": ["2020"]})
    aggs = {"known": {"venue": {"values": {"buckets": [{"key": "ICLR", "doc_count": 3}]}}}}
    assert CONFIG.faceted.as_indexed(aggs, params).filters == {"venue": ["ICLR", "nips"], "year": ["2020"]}
    assert CONFIG.faceted.as_indexed({}, params) is params
