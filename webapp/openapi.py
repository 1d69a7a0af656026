"""The OpenAPI 3.1 document of the JSON API, generated so that it cannot drift from the code:
schemas come from the domain models, enums and limits from config/index.json."""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import models_json_schema

from webapp.domain import Hit, SearchResult, Suggestion

REF = "#/components/schemas/{model}"


def _error(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _ok(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _repeatable(name: str, description: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "style": "form", "explode": True, "schema": {"type": "array", "items": item}}


def document(config: dict[str, Any]) -> dict[str, Any]:
    _, defs = models_json_schema(
        [(SearchResult, "serialization"), (Hit, "serialization"), (Suggestion, "serialization")],
        ref_template=REF,
    )
    schemas = dict(defs.get("$defs", {}))
    schemas["Error"] = {
        "type": "object", "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["status", "code", "message"], "properties": {
            "status": {"type": "integer"}, "code": {"type": "string"}, "message": {"type": "string"}}}},
    }
    schemas["Paper"] = {
        "type": "object", "required": ["paper", "similar"],
        "properties": {"paper": {"$ref": REF.format(model="Hit")},
                       "similar": {"type": "array", "items": {"$ref": REF.format(model="Hit")}}},
    }
    schemas["Suggestions"] = {
        "type": "object", "required": ["suggestions"],
        "properties": {"suggestions": {"type": "array", "items": {"allOf": [
            {"$ref": REF.format(model="Suggestion")},
            {"type": "object", "properties": {"url": {"type": "string",
                                                      "description": "Where choosing it leads"}}},
        ]}}},
    }
    q = {"name": "q", "in": "query", "required": False,
         "description": 'Query: words, "phrases", -excluded, author:"…", title:"…"',
         "schema": {"type": "string", "maxLength": int(config["max_query_length"])}}
    search_params = [
        q,
        _repeatable("area", "Topic area filter (repeatable; OR within the facet)", {"type": "string"}),
        _repeatable("subarea", 'Subarea filter, "Area > Subarea" (repeatable)', {"type": "string"}),
        _repeatable("year", "Year filter (repeatable)", {"type": "integer"}),
        {"name": "sort", "in": "query", "required": False,
         "schema": {"type": "string", "enum": list(config["sorts"]), "default": "relevance"}},
        {"name": "page", "in": "query", "required": False,
         "schema": {"type": "integer", "minimum": 1, "default": 1}},
        {"name": "size", "in": "query", "required": False,
         "schema": {"type": "integer", "enum": [int(s) for s in config["page_sizes"]],
                    "default": int(config["default_page_size"])}},
    ]
    bad, unavailable = _error("Invalid parameter"), _error("Search is unavailable; retry later")
    limited = _error("Too many requests from this client; see Retry-After")
    return {
        "openapi": "3.1.0",
        "info": {"title": "papersearch API", "version": "1.0.0",
                 "description": "Search academic papers in Chinese and English."},
        "paths": {
            "/api/search": {"get": {
                "operationId": "search", "summary": "Search papers (same parameters as the search page)",
                "parameters": search_params,
                "responses": {"200": _ok("Results, facets and paging", {"$ref": REF.format(model="SearchResult")}),
                              "400": bad, "429": limited, "503": unavailable}}},
            "/api/papers/{id}": {"get": {
                "operationId": "getPaper", "summary": "One paper and similar papers",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _ok("The paper", {"$ref": "#/components/schemas/Paper"}),
                              "404": _error("No such paper"), "429": limited, "503": unavailable}}},
            "/api/suggest": {"get": {
                "operationId": "suggest", "summary": "Title and author completions for a prefix",
                "parameters": [q | {"description": "The prefix typed so far"}],
                "responses": {"200": _ok("Suggestions", {"$ref": "#/components/schemas/Suggestions"}),
                              "400": bad, "429": limited, "503": unavailable}}},
            "/api/openapi.json": {"get": {
                "operationId": "openapi", "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3.1 document",
                                      "content": {"application/json": {"schema": {"type": "object"}}}}}}},
            "/healthz": {"get": {
                "operationId": "healthz", "summary": "The process is alive (no Elasticsearch call)",
                "responses": {"200": _ok("Alive", {"type": "object"})}}},
            "/readyz": {"get": {
                "operationId": "readyz", "summary": "The search alias can be queried",
                "responses": {"200": _ok("Ready", {"type": "object"}),
                              "503": _ok("Not ready", {"type": "object"})}}},
        },
        "components": {"schemas": schemas},
    }
