"""The OpenAPI document: valid, and generated from the models that validate requests and shape responses."""

from __future__ import annotations

import json
import re

from openapi_spec_validator import validate

from papersearch.index_definition import search_config
from webapp import openapi
from webapp.controllers.params import SUBAREA_PATTERN, RequestArgs

CONFIG = search_config()
DOC = openapi.document(RequestArgs(CONFIG))


def params(path: str) -> dict[str, dict]:
    return {p["name"]: p for p in DOC["paths"][path]["get"]["parameters"]}


def test_document_is_valid_openapi_3_1():
    validate(DOC)
    assert DOC["openapi"] == "3.1.0"


def test_search_parameters_declare_what_is_validated():
    p = params("/api/search")
    assert p["q"]["schema"] == {"type": "string", "maxLength": CONFIG["max_query_length"], "default": ""}
    assert p["sort"]["schema"]["enum"] == list(CONFIG["sorts"])
    assert p["sort"]["schema"]["default"] == CONFIG["default_sort"]
    assert p["size"]["schema"] == {"type": "integer", "enum": CONFIG["page_sizes"],
                                   "default": CONFIG["default_page_size"]}
    assert p["page"]["schema"] == {"type": "integer", "minimum": 1, "default": 1}
    subarea = p["subarea"]["schema"]
    assert subarea["type"] == "array" and subarea["items"]["pattern"] == SUBAREA_PATTERN
    assert p["subarea"]["style"] == "form" and p["subarea"]["explode"] is True
    assert p["year"]["schema"]["items"]["type"] == "integer"
    assert all(not param["required"] for param in p.values())


def test_subarea_pattern_matches_the_path_separator():
    pattern = re.compile(SUBAREA_PATTERN)
    assert pattern.match("Deep Learning > Theory") and pattern.match("A>B")
    assert not any(pattern.match(v) for v in ("Deep Learning", " > Theory", "Theory > ", ">"))


def test_suggest_shares_the_query_limit():
    assert params("/api/suggest")["q"]["schema"]["maxLength"] == CONFIG["max_query_length"]


def test_responses_come_from_the_models():
    schemas = DOC["components"]["schemas"]
    assert {"SearchResult", "Hit", "Paper", "Suggestions", "SuggestionLink", "Error", "Status"} <= set(schemas)
    assert "url" in schemas["SuggestionLink"]["properties"]
    assert set(schemas["Error"]["properties"]) == {"error"}
    refs = set(re.findall(r"#/components/schemas/(\w+)", str(DOC)))
    assert refs and refs <= set(schemas)


def test_every_operation_documents_the_servers_414():
    for path, item in DOC["paths"].items():
        for method, operation in item.items():
            too_long = operation["responses"]["414"]["content"]["application/json"]["schema"]
            assert too_long == {"$ref": "#/components/schemas/Error"}, (method, path)


def test_the_414_body_is_our_error():
    from webapp.server import uri_too_long_response

    head, _, body = uri_too_long_response().partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ") and b"Content-Type: application/json" in head
    assert f"Content-Length: {len(body)}".encode() in head
    assert json.loads(body) == {"error": {"status": 414, "code": "uri_too_long",
                                          "message": "The address (URL) is too long."}}
