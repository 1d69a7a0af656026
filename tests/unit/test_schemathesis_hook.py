"""The Schemathesis hook's one filter (tests/integration/schemathesis_hooks.py): a "negative" case is
dropped only when what the URL really carries is valid under our own document."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from papersearch.index_definition import search_config
from webapp import openapi
from webapp.controllers.params import RequestArgs

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
