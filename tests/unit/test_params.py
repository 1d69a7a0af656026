"""Request arguments → SearchParams: normalised, length-checked and validated once, with a message key."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from papersearch.index_definition import search_config
from webapp.controllers.params import MAX_FILTER_LENGTH, MAX_FILTER_VALUES, ParamError, RequestArgs

CONFIG = search_config()
ARGS = RequestArgs(CONFIG)


def parse(*pairs: tuple[str, str]):
    return ARGS.search(MultiDict(pairs))


def error(*pairs: tuple[str, str]) -> ParamError:
    with pytest.raises(ParamError) as info:
        parse(*pairs)
    return info.value


def test_defaults_come_from_the_config():
    p = parse()
    assert (p.q, p.areas, p.subareas, p.years, p.page) == ("", [], [], [], 1)
    assert (p.sort, p.size) == (CONFIG["default_sort"], CONFIG["default_page_size"])


def test_empty_values_are_absent():
    p = parse(("q", ""), ("page", ""), ("size", ""), ("sort", ""), ("area", ""), ("year", ""))
    assert (p.page, p.size, p.sort, p.areas, p.years) == (1, CONFIG["default_page_size"], "relevance", [], [])


def test_whitespace_collapsed_and_repeats_dropped_once():
    p = parse(("q", "  deep \t learning  "), ("area", " Deep  Learning "), ("area", "Deep Learning"),
              ("area", "  "), ("subarea", "Deep Learning >  Theory"), ("year", "2020"), ("year", " 2020 "),
              ("page", " 2 "), ("size", "25"))
    assert p.q == "deep learning"
    assert p.areas == ["Deep Learning"]
    assert p.subareas == ["Deep Learning > Theory"]
    assert (p.years, p.page, p.size) == ([2020], 2, 25)


@pytest.mark.parametrize(("pairs", "key", "values"), [
    ((("q", "x" * (CONFIG["max_query_length"] + 1)),), "error.query_too_long",
     {"limit": CONFIG["max_query_length"], "length": CONFIG["max_query_length"] + 1}),
    ((("page", "0"),), "error.page", {"value": "0"}),
    ((("page", "abc"),), "error.not_integer", {"param": "page", "value": "abc"}),
    ((("size", "7"),), "error.size", {"value": "7", "allowed": "10, 25, 50, 100"}),
    ((("size", "x"),), "error.not_integer", {"param": "size", "value": "x"}),
    ((("sort", "random"),), "error.sort", {"value": "random", "allowed": "relevance, year, title"}),
    ((("year", "abc"),), "error.year", {"value": "abc"}),
    ((("year", "123456"),), "error.year_range", {"value": "123456", "low": 1, "high": 9999}),
    ((("subarea", "Nonsense"),), "error.subarea", {"value": "Nonsense"}),
    ((("subarea", " > Theory"),), "error.subarea", {"value": " > Theory"}),
    ((("area", "a" * (MAX_FILTER_LENGTH + 1)),), "error.filter_too_long",
     {"param": "area", "limit": MAX_FILTER_LENGTH}),
    (tuple(("area", f"a{i}") for i in range(MAX_FILTER_VALUES + 1)), "error.too_many_values",
     {"param": "area", "limit": MAX_FILTER_VALUES}),
])
def test_bad_values_name_the_parameter(pairs, key, values):
    e = error(*pairs)
    assert (e.key, e.values) == (key, values)


def test_limits_apply_to_the_value_as_sent():
    # What the OpenAPI document declares (maxLength) is what is enforced: padding counts.
    limit = CONFIG["max_query_length"]
    assert parse(("q", "x" * limit)).q == "x" * limit
    assert error(("q", "x" * (limit - 1) + "  ")).key == "error.query_too_long"


def test_suggest_prefix():
    assert ARGS.suggest(MultiDict([("q", "  Hao  yun ")])) == "Hao yun"
    assert ARGS.suggest(MultiDict()) == ""
    with pytest.raises(ParamError, match=r"error\.query_too_long"):
        ARGS.suggest(MultiDict([("q", "x" * (CONFIG["max_query_length"] + 1))]))
