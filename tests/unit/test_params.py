"""Request arguments → SearchParams: normalised, length-checked and validated once, with a message key."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from papersearch import record_types
from papersearch.index_definition import concepts_config
from webapp import openapi
from webapp.controllers.list_params import FEED_ENTRIES, FEED_SORT, ListArgs
from webapp.controllers.params import MAX_FILTER_LENGTH, MAX_FILTER_VALUES, ParamError, RequestArgs
from webapp.services.search_settings import search_config

CONFIG = search_config()
ARGS = RequestArgs(CONFIG)
MAX_PAGE = CONFIG.max_result_window  # one result per page: the last page the window holds


def parse(*pairs: tuple[str, str]):
    return ARGS.search(MultiDict(pairs))


def error(*pairs: tuple[str, str]) -> ParamError:
    with pytest.raises(ParamError) as info:
        parse(*pairs)
    return info.value


def test_defaults_come_from_the_config():
    p = parse()
    assert (p.q, p.areas, p.subareas, p.filters, p.ranges, p.page) == ("", [], [], {}, {}, 1)
    assert (p.sort, p.size) == (CONFIG.default_sort, CONFIG.default_page_size)


def test_empty_values_are_absent():
    p = parse(("q", ""), ("page", ""), ("size", ""), ("sort", ""), ("area", ""), ("year", ""))
    assert (p.page, p.size, p.sort, p.areas, p.filters) == (1, CONFIG.default_page_size, "relevance", [], {})


def test_whitespace_collapsed_and_repeats_dropped_once():
    p = parse(("q", "  deep \t learning  "), ("area", " Deep  Learning "), ("area", "Deep Learning"),
              ("area", "  "), ("subarea", "Deep Learning >  Theory"), ("year", "2020"), ("year", " 2020 "),
              ("page", " 2 "), ("size", "25"))
    assert p.q == "deep learning"
    assert p.areas == ["Deep Learning"]
    assert p.subareas == ["Deep Learning > Theory"]
    assert (p.filters, p.page, p.size) == ({"year": ["2020"]}, 2, 25)


@pytest.mark.parametrize(("pairs", "key", "values"), [
    ((("q", "x" * (CONFIG.max_query_length + 1)),), "error.query_too_long",
     {"limit": CONFIG.max_query_length, "length": CONFIG.max_query_length + 1}),
    ((("page", "0"),), "error.page", {"param": "page", "value": "0", "low": 1, "high": MAX_PAGE}),
    ((("page", str(MAX_PAGE + 1)),), "error.page", {"param": "page", "value": str(MAX_PAGE + 1), "low": 1,
                                                    "high": MAX_PAGE}),
    # The 500 Schemathesis found on main: a page number beyond 64 bits, now outside the range like any other.
    ((("page", "6863645574222568226816"),), "error.page", {"param": "page", "value": "6863645574222568226816",
                                                           "low": 1, "high": MAX_PAGE}),
    ((("page", "9" * 5000),), "error.page", {"param": "page", "value": "9" * 40, "low": 1, "high": MAX_PAGE}),
    ((("page", "1.0"),), "error.not_integer", {"param": "page", "value": "1.0"}),
    ((("year", "2e3"),), "error.not_integer", {"param": "year", "value": "2e3"}),
    ((("q", "a"), ("q", "b")), "error.repeated", {"param": "q"}),
    ((("page", "2"), ("page", "3")), "error.repeated", {"param": "page"}),
    ((("page", "abc"),), "error.not_integer", {"param": "page", "value": "abc"}),
    ((("size", "7"),), "error.size", {"value": "7", "allowed": "10, 25, 50, 100"}),
    ((("size", "x"),), "error.not_integer", {"param": "size", "value": "x"}),
    ((("sort", "random"),), "error.sort", {"value": "random", "allowed": ", ".join(CONFIG.sorts)}),
    ((("year", "abc"),), "error.not_integer", {"param": "year", "value": "abc"}),
    ((("year", "123456"),), "error.out_of_range", {"param": "year", "value": "123456", "low": 1, "high": 9999}),
    ((("year_from", "0"),), "error.out_of_range", {"param": "year_from", "value": "0", "low": 1, "high": 9999}),
    ((("year_to", "x"),), "error.not_integer", {"param": "year_to", "value": "x"}),
    (tuple(("venue", f"v{i}") for i in range(MAX_FILTER_VALUES + 1)), "error.too_many_values",
     {"param": "venue", "limit": MAX_FILTER_VALUES}),
    ((("subarea", "Nonsense"),), "error.subarea", {"value": "Nonsense"}),
    ((("subarea", " > Theory"),), "error.subarea", {"value": " > Theory"}),
    ((("area", "a" * (MAX_FILTER_LENGTH + 1)),), "error.filter_too_long",
     {"param": "area", "limit": MAX_FILTER_LENGTH}),
    (tuple(("area", f"a{i}") for i in range(MAX_FILTER_VALUES + 1)), "error.too_many_values",
     {"param": "area", "limit": MAX_FILTER_VALUES}),
    # Issue 58 (Schemathesis seed 107653299): an empty repetition counts, as the document's maxItems counts it…
    ((("area", ""), *(("area", f"a{i}") for i in range(MAX_FILTER_VALUES))), "error.too_many_values",
     {"param": "area", "limit": MAX_FILTER_VALUES}),
    # …and a closed facet's values are an enum.
    ((("type", ">w"),), "error.unknown_value",
     {"param": "type", "value": ">w", "allowed": "conference-paper, journal-article, preprint"}),
    ((("language", "preprint"),), "error.unknown_value", {"param": "language", "value": "preprint",
                                                          "allowed": "en, zh"}),
])
def test_bad_values_name_the_parameter(pairs, key, values):
    e = error(*pairs)
    assert (e.key, e.values) == (key, values)


def test_limits_apply_to_the_value_as_sent():
    # What the OpenAPI document declares (maxLength) is what is enforced: padding counts.
    limit = CONFIG.max_query_length
    assert parse(("q", "x" * limit)).q == "x" * limit
    assert error(("q", "x" * (limit - 1) + "  ")).key == "error.query_too_long"


def test_suggest_prefix():
    assert ARGS.suggest(MultiDict([("q", "  Hao  yun ")])) == "Hao yun"
    assert ARGS.suggest(MultiDict()) == ""
    with pytest.raises(ParamError, match=r"error\.query_too_long"):
        ARGS.suggest(MultiDict([("q", "x" * (CONFIG.max_query_length + 1))]))


def test_facets_from_the_config():
    p = parse(("venue", " ICLR "), ("venue", "NeurIPS"), ("venue", "ICLR"), ("year", "2021"), ("year_from", "2020"),
              ("year_to", "2023"))
    assert p.filters == {"venue": ["ICLR", "NeurIPS"], "year": ["2021"]}
    assert p.ranges == {"year_from": 2020, "year_to": 2023}
    assert parse(("year_to", "2023")).ranges == {"year_to": 2023}
    assert parse(("year_from", "2023"), ("year_to", "2020")).ranges == {"year_from": 2020, "year_to": 2023}


def test_the_page_offers_page_sizes_the_api_any_size_up_to_the_largest():
    largest = max(CONFIG.page_sizes)
    assert error(("size", "7")).key == "error.size"
    for size in (1, 7, largest):
        assert ARGS.search(MultiDict([("size", str(size))]), api=True).size == size
    for size in ("0", str(largest + 1)):
        with pytest.raises(ParamError) as info:
            ARGS.search(MultiDict([("size", size)]), api=True)
        assert (info.value.key, info.value.values) == ("error.size_range",
                                                       {"param": "size", "value": size, "low": 1, "high": largest})


def test_closed_facets_allow_what_exists_and_the_document_says_so():
    """The record types and languages a paper can have (record_types.py, concepts.languages) are the facets'
    `allowed` values in config/index.json: the enum of the OpenAPI document and of validation."""
    allowed = {f.param: f.allowed for f in CONFIG.terms_facets if f.allowed}
    assert allowed == {"type": list(record_types.TYPES), "language": list(concepts_config()["languages"])}
    document = openapi.document(ARGS)["paths"]
    for path in ("/api/search", "/api/export", "/feed", "/api/authors/{name}"):
        schemas = {p["name"]: p["schema"] for p in document[path]["get"]["parameters"]}
        assert {name: schemas[name]["items"]["enum"] for name in allowed} == allowed
    p = parse(("type", "preprint"), ("type", ""), ("language", "zh"), ("q", "type:journal-article type:poem"))
    assert p.filters == {"type": ["preprint", "journal-article"], "language": ["zh"]} and p.q == "type:poem"


def test_the_feed_and_the_export_parse_as_the_api_does():
    lists = ListArgs(ARGS)
    pairs = [("q", "graph"), ("type", "preprint"), ("year_from", "2020"), ("page", "3"), ("size", "7")]
    api = ARGS.search(MultiDict(pairs), api=True)  # page and size: the feed's and the export's own
    search, fmt, limit = lists.export(MultiDict([*pairs, ("format", "csv"), ("limit", "9")]))
    assert (search, fmt, limit) == (api.model_copy(update={"page": 1, "size": CONFIG.default_page_size}), "csv", 9)
    assert lists.feed(MultiDict(pairs)) == api.model_copy(update={"sort": FEED_SORT, "page": 1, "size": FEED_ENTRIES})
    for bad, key in (([("format", "endnote")], "error.export_format"), ([("limit", "0")], "error.export_limit"),
                     ([("type", "x")], "error.unknown_value"), ([("area", "")] * 11, "error.too_many_values")):
        with pytest.raises(ParamError) as info:
            lists.export(MultiDict(bad))
        assert info.value.key == key


def test_an_empty_repeat_is_no_repeat():
    assert parse(("q", ""), ("q", "graph")).q == "graph"
    assert parse(("page", "3"), ("page", "")).page == 3


def test_a_new_route_declares_its_numbers_with_bounded():
    """The mechanism any route uses: a model on Args, integers from bounded(); RequestArgs.validate gives the
    same 400 messages, with the range the model's own schema (and so the OpenAPI document) declares."""
    from pydantic import Field, create_model

    from webapp.controllers.params import Args, bounded

    model = create_model("FeedArgs", __base__=Args, limit=(bounded(1, 50), Field(20)))
    assert ARGS.validate(model, MultiDict([("limit", "7")])).limit == 7
    assert ARGS.validate(model, MultiDict()).limit == 20
    with pytest.raises(ParamError) as info:
        ARGS.validate(model, MultiDict([("limit", "51")]))
    assert (info.value.key, info.value.values) == ("error.out_of_range",
                                                   {"param": "limit", "value": "51", "low": 1, "high": 50})


def test_venue_and_year_typed_in_the_box_are_the_filters():
    # Issue 44.5: they were words ("Missing: venue:ICLR").
    params = ARGS.search(MultiDict([("q", "venue:ICLR diffusion year:2021")]))
    assert (params.q, params.filters) == ("diffusion", {"venue": ["ICLR"], "year": ["2021"]})
    ranged = ARGS.search(MultiDict([("q", "gan year:2019-2021")]))
    assert ranged.q == "gan" and ranged.ranges == {"year_from": 2019, "year_to": 2021}
    assert ARGS.search(MultiDict([("q", "year:soon")])).q == "year:soon"
    # str.isdigit() is true of "²", which int() refuses: a 500 (issue 58, after Schemathesis seed 1691421479's
    # limit=²); other scripts' digits stay words too, as a year in the URL must be 0-9.
    for q in ("year:²", "year:٢٠٢١", "year:²-³", "year:٢٠١٩-٢٠٢١"):
        assert (ARGS.search(MultiDict([("q", q)])).q, ARGS.search(MultiDict([("q", q)])).filters) == (q, {})


def test_a_year_bound_typed_in_the_box_is_the_range():
    # Issue 57.8: every card said "Missing: year:>2022".
    for typed, ranges in ((">2022", {"year_from": 2023}), (">=2022", {"year_from": 2022}),
                          ("<2020", {"year_to": 2019}), ("<=2020", {"year_to": 2020})):
        params = ARGS.search(MultiDict([("q", f"year:{typed} diffusion")]))
        assert (params.q, params.ranges, params.filters) == ("diffusion", ranges, {})
    assert ARGS.search(MultiDict([("q", "year:>99999 gan")])).q == "gan year:>99999"


def test_a_closed_sets_value_is_taken_in_any_case_and_refused_outside_it():
    # Issue 57.7 (language=EN, type=Conference-paper found nothing) beside issue 58 (type=>w answered 200).
    assert ARGS.search(MultiDict([("type", "Conference-paper"), ("language", "EN")])).filters == {
        "type": ["conference-paper"], "language": ["en"]}
    assert ARGS.search(MultiDict([("q", "type:Conference-paper x")])).filters == {"type": ["conference-paper"]}
    with pytest.raises(ParamError):
        ARGS.search(MultiDict([("type", ">w")]))
