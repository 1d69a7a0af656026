"""The Schemathesis hook's one filter (tests/integration/schemathesis_hooks.py): a "negative" case is
dropped only when what the URL really carries is valid under our own document."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from webapp import openapi
from webapp.controllers.params import RequestArgs
from webapp.services.search_settings import search_config

# Loaded from its file: Schemathesis loads it by name from tests/integration (SCHEMATHESIS_HOOKS).
_spec = importlib.util.spec_from_file_location(
    "schemathesis_hooks", Path(__file__).resolve().parents[1] / "integration" / "schemathesis_hooks.py")
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)
valid_on_the_wire, wire_values = hooks.valid_on_the_wire, hooks.wire_values

SCHEMAS = {p["name"]: p["schema"]
           for p in openapi.document(RequestArgs(search_config()))["paths"]["/api/search"]["get"]["parameters"]}


def carried_validly(query: dict) -> bool:
    return all(valid_on_the_wire(wire_values(value), SCHEMAS[name]) for name, value in query.items())


@pytest.mark.parametrize("query", [
    {"area": "null"},                               # a single value for a list: a one-element list on the wire
    {"area": 0.0, "year_from": {}, "page": 4},      # {} goes out as `year_from=`: empty, the same as absent
    {"year_to": None},                              # requests does not send None
    {"xl": False, "size": 10},
], ids=["scalar-for-list", "empty-object", "none", "boolean"])
def test_what_the_url_carries_validly_is_not_a_failure(query):
    assert carried_validly(query)


@pytest.mark.parametrize("query", [
    {"year_from": "1.5"}, {"year_from": {"a": 1}}, {"page": 0}, {"page": "x"}, {"sort": "nope"},
    {"area": ["a"] * 100}, {"xl": "maybe"},
], ids=["fraction", "object", "page-0", "page-text", "sort", "too-many", "xl"])
def test_invalid_values_on_the_wire_stay_failures(query):
    assert not carried_validly(query)


class _Sent:
    def __init__(self, url: str | None) -> None:
        self.request = type("Prepared", (), {"url": url})()


def test_the_url_that_was_sent_is_what_counts():
    # The stateful case of CI seed 561808085: its query object was reported invalid, its URL is not.
    url = "http://127.0.0.1:1/api/search?venue=%F4%8A%A0%94%5C&venue=%2BH&area=&area=d%18%C2%87%C2%82lpz"
    sent = hooks.sent_query(_Sent(url))
    assert sent == {"venue": ["\U0010a814\\", "+H"], "area": ["", "d\x18\x87\x82lpz"]}
    assert all(valid_on_the_wire(v, SCHEMAS[name]) for name, v in sent.items())
    too_long = hooks.sent_query(_Sent("http://h/api/search?area=" + "x" * 301 + "&page=0"))
    assert not valid_on_the_wire(too_long["area"], SCHEMAS["area"])
    assert not valid_on_the_wire(too_long["page"], SCHEMAS["page"])
    assert hooks.sent_query(_Sent(None)) is None and hooks.sent_query(object()) is None


class _Param:
    def __init__(self, name: str, schema: dict) -> None:
        self.name, self.definition = name, {"schema": schema}


_AUTHOR = openapi.document(RequestArgs(search_config()))["paths"]["/api/authors/{name}"]["get"]
_AUTHOR_OPERATION = type("Operation", (), {
    "path": "/api/authors/{name}",
    "query": [_Param(p["name"], p["schema"]) for p in _AUTHOR["parameters"] if p["in"] == "query"],
    "path_parameters": [_Param(p["name"], p["schema"]) for p in _AUTHOR["parameters"] if p["in"] == "path"],
})()


def _author_case(name: str, query: dict) -> object:
    return type("Case", (), {"operation": _AUTHOR_OPERATION, "path_parameters": {"name": name}, "query": query})()


def test_an_operation_with_a_path_is_judged_too():
    """Issue 44.11: `/api/authors/{name}?venue=null` was reported as accepted negative data, because a case with
    path parameters was never judged; `null` on the wire is a one-element list of venues, as on /api/search."""
    from schemathesis.core.failures import AcceptedNegativeData

    failure = AcceptedNegativeData(operation="GET /api/authors/{name}", message="", status_code=200,
                                   expected_statuses=["400"])
    sent = _Sent("http://127.0.0.1:1/api/authors/Ada%20L%C3%B6velace?venue=null")
    assert hooks.sent_path(sent, "/api/authors/{name}") == {"name": "Ada Lövelace"}
    assert hooks.filter_failure(None, failure, _author_case("Ada", {"venue": None}), sent) is False  # dropped
    too_long = _Sent("http://127.0.0.1:1/api/authors/" + "x" * 1000 + "?venue=null")
    assert hooks.filter_failure(None, failure, _author_case("x" * 1000, {"venue": None}), too_long) is True
    bad_query = _Sent("http://127.0.0.1:1/api/authors/Ada?year_from=x")
    assert hooks.filter_failure(None, failure, _author_case("Ada", {"year_from": "x"}), bad_query) is True
