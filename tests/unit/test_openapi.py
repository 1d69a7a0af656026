"""The OpenAPI document: valid, and generated from the models that validate requests and shape responses."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

from openapi_spec_validator import validate

from webapp import openapi
from webapp.controllers.params import SUBAREA_PATTERN, RequestArgs
from webapp.services.search_settings import search_config

CONFIG = search_config()
DOC = openapi.document(RequestArgs(CONFIG))


def params(path: str) -> dict[str, dict]:
    return {p["name"]: p for p in DOC["paths"][path]["get"]["parameters"]}


def test_document_is_valid_openapi_3_1():
    validate(DOC)
    assert DOC["openapi"] == "3.1.0"


def test_search_parameters_declare_what_is_validated():
    p = params("/api/search")
    assert p["q"]["schema"] == {"type": "string", "maxLength": CONFIG.max_query_length, "default": ""}
    assert p["sort"]["schema"]["enum"] == list(CONFIG.sorts)
    assert p["sort"]["schema"]["default"] == CONFIG.default_sort
    # the API takes any size up to the largest the page offers
    assert p["size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": max(CONFIG.page_sizes),
                                   "default": CONFIG.default_page_size}
    assert p["page"]["schema"] == {"type": "integer", "minimum": 1, "maximum": CONFIG.max_result_window,
                                   "default": 1}
    subarea = p["subarea"]["schema"]
    assert subarea["type"] == "array" and subarea["items"]["pattern"] == SUBAREA_PATTERN
    assert p["subarea"]["style"] == "form" and p["subarea"]["explode"] is True
    assert p["year"]["schema"]["items"] == {"type": "integer", "minimum": 1, "maximum": 9999}
    assert p["venue"]["schema"]["items"]["type"] == "string"
    assert p["year_from"]["schema"]["anyOf"][0] == {"type": "integer", "minimum": 1, "maximum": 9999}
    assert {"year_to", "year_from"} <= set(p)
    assert all(not param["required"] for param in p.values())


def test_subarea_pattern_matches_the_path_separator():
    pattern = re.compile(SUBAREA_PATTERN)
    assert pattern.match("Deep Learning > Theory") and pattern.match("A>B")
    assert not any(pattern.match(v) for v in ("Deep Learning", " > Theory", "Theory > ", ">"))
    # Blank in Python or in ECMA-262 only (a Schemathesis finding: "\x85>x" generated as valid, refused here).
    assert not any(pattern.match(v) for v in ("\x85>x", "\x1c > x", "\ufeff>x", "x>\x85", "x>\ufeff"))
    assert pattern.match("\x85A > B\ufeffC")


def test_suggest_shares_the_query_limit():
    assert params("/api/suggest")["q"]["schema"]["maxLength"] == CONFIG.max_query_length


def test_responses_come_from_the_models():
    schemas = DOC["components"]["schemas"]
    assert {"SearchResult", "Hit", "Paper", "Suggestions", "SuggestionLink", "Error", "Status"} <= set(schemas)
    assert "url" in schemas["SuggestionLink"]["properties"]
    assert set(schemas["Error"]["properties"]) == {"error"}
    refs = set(re.findall(r"#/components/schemas/(\w+)", str(DOC)))
    assert refs and refs <= set(schemas)


def test_every_operation_documents_the_servers_414_and_431(monkeypatch):
    """gunicorn answers both before the app, whatever the path (webapp/server.py), with the limits its config
    sets: the document names those numbers (a request line of exactly 8190 bytes passes, 8191 gets 414)."""
    monkeypatch.setenv("PAPERSEARCH_METRICS", "off")  # the config makes no metrics directory
    config = runpy.run_path(str(Path(__file__).resolve().parents[2] / "config" / "gunicorn.conf.py"))
    for path, item in DOC["paths"].items():
        for method, operation in item.items():
            for status in ("414", "431"):
                answer = operation["responses"][status]
                schema = answer["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)
            assert f"longer than {config['limit_request_line']} bytes" in operation["responses"]["414"]["description"]
            assert (f"More than {config['limit_request_fields']} header fields, or one longer than "
                    f"{config['limit_request_field_size']} bytes") == operation["responses"]["431"]["description"]


def test_the_414_body_is_our_error():
    from webapp.server import uri_too_long_response

    head, _, body = uri_too_long_response().partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ") and b"Content-Type: application/json" in head
    assert f"Content-Length: {len(body)}".encode() in head
    assert json.loads(body) == {"error": {"status": 414, "code": "uri_too_long",
                                          "message": "The address (URL) is too long."}}


def _integers(schema: object, where: str) -> list[tuple[str, dict]]:
    """Every integer schema inside `schema`, with where it is."""
    found: list[tuple[str, dict]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "integer":
            found.append((where, schema))
        for key, value in schema.items():
            found += _integers(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found += _integers(value, f"{where}/{i}")
    return found


def test_every_number_that_comes_in_has_a_documented_range():
    """The fault class Schemathesis found (a page number beyond 64 bits answered 500): every integer a request
    may carry, in any route's parameters or body, declares a minimum and a maximum. A new route passes only if
    it declares its numbers with params.bounded() (or a Field with ge/le)."""
    inputs: list[tuple[str, dict]] = []
    for path, operations in DOC["paths"].items():
        for method, operation in operations.items():
            for param in operation.get("parameters", []):
                inputs += _integers(param["schema"], f"{method.upper()} {path} {param['name']}")
            if "requestBody" in operation:
                inputs += _integers(operation["requestBody"], f"{method.upper()} {path} body")
    for name in ("ClickBeacon", "RetypeBeacon"):  # the request bodies' models
        inputs += _integers(DOC["components"]["schemas"][name], name)
    assert len(inputs) >= 6  # page, size, year, year_from, year_to, a click's position
    unbounded = [where for where, schema in inputs if not {"minimum", "maximum"} <= set(schema)]
    assert not unbounded, f"integers without a documented range: {unbounded}"


def test_503_answers_document_retry_after():
    for path, operations in DOC["paths"].items():
        for operation in operations.values():
            if "503" in operation["responses"] and path != "/readyz":
                assert operation["responses"]["503"]["headers"]["Retry-After"]["required"] is True, path


def test_searches_link_to_papers_and_events_for_stateful_checkers():
    links = DOC["paths"]["/api/search"]["get"]["responses"]["200"]["links"]
    assert {link["operationId"] for link in links.values()} == {"getPaper", "getCitation", "event"}
    assert links["retype"]["requestBody"]["query_id"] == "$response.body#/query_id"
