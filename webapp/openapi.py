"""The OpenAPI 3.1 document of the JSON API, generated so that it cannot drift from the code: query
parameters come from the argument models that validate them (controllers/params.py), response bodies
from the models the serializer sends (serializers/json.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from papersearch.text import MAX_AUTHOR, MAX_ID_BYTES
from webapp import openapi_lists
from webapp.controllers.events import beacon_models
from webapp.controllers.params import RequestArgs
from webapp.openapi_lists import BAD_REQUEST, NOT_UTF8
from webapp.routes.errors import RETRY_AFTER_UNAVAILABLE
from webapp.serializers import bibtex, csl_json, ris
from webapp.serializers.json import BODIES
from webapp.server import LIMIT_REQUEST_FIELD_SIZE, LIMIT_REQUEST_FIELDS, LIMIT_REQUEST_LINE

REF = "#/components/schemas/{model}"
_ID = {"name": "id", "in": "path", "required": True,
       "schema": {"type": "string", "minLength": 1, "maxLength": MAX_ID_BYTES}}
_NAME = {"name": "name", "in": "path", "required": True, "description": "An author's name as a paper writes it "
         "(any spelling of the same folded form: Müller = Muller)",
         "schema": {"type": "string", "minLength": 1, "maxLength": MAX_AUTHOR}}


def query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """One OpenAPI query parameter per field of an argument model (repeatable fields as `?a=1&a=2`)."""
    schema = model.model_json_schema(ref_template=REF)
    out = []
    for name, prop in schema["properties"].items():
        prop = {k: v for k, v in prop.items() if k not in ("title", "description")}
        param: dict[str, Any] = {"name": name, "in": "query", "required": name in schema.get("required", ()),
                                 "allowEmptyValue": True, "schema": prop}
        if "description" in schema["properties"][name]:
            param["description"] = schema["properties"][name]["description"]
        if prop.get("type") == "array":
            param |= {"style": "form", "explode": True}
        out.append(param)
    return out


def _body(description: str, model: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": REF.format(model=model)}}}}


def _links(**targets: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """Where an answer leads (OpenAPI links: stateful checkers follow them): name → (operationId, values)."""
    out: dict[str, Any] = {}
    for name, (operation, values) in targets.items():
        body = values.pop("requestBody", None)
        out[name] = {"operationId": operation, **({"parameters": values} if values else {}),
                     **({"requestBody": body} if body is not None else {})}
    return out


_FIRST_HIT = "$response.body#/hits/0/id"
_SEARCH_LINKS = _links(
    paper=("getPaper", {"id": _FIRST_HIT}),
    citation=("getCitation", {"id": _FIRST_HIT}),
    click=("event", {"requestBody": {"type": "click", "query_id": "$response.body#/query_id", "position": 1,
                                     "paper_id": _FIRST_HIT}}),
    retype=("event", {"requestBody": {"type": "retype", "query_id": "$response.body#/query_id",
                                      "previous_query_id": "$response.body#/query_id"}}),
)
_LAST_PAGE = {"description": 'When the page asked for is past the last one (past_last_page): <that page\'s URL>; '
                             'rel="last"', "schema": {"type": "string"}}
_PAPER_LINKS = _links(citation=("getCitation", {"id": "$response.body#/paper/id"}),
                      similar=("getPaper", {"id": "$response.body#/similar/0/id"}))


def document(request_args: RequestArgs) -> dict[str, Any]:
    beacons = beacon_models().all
    _, defs = models_json_schema([(m, "serialization") for m in BODIES] + [(m, "validation") for m in beacons],
                                 ref_template=REF)
    bad = _body(BAD_REQUEST, "Error")
    # Any route answers 400 for an address that is not UTF-8 (webapp/encoding.py), parameters or not.
    not_utf8 = {"400": _body(NOT_UTF8, "Error")}
    retry_after = {"headers": {"Retry-After": {"description": "Seconds to wait before retrying", "required": True,
                                               "schema": {"type": "integer", "minimum": 1}}}}
    unavailable = _body(f"Search is unavailable; retry after the seconds in Retry-After ({RETRY_AFTER_UNAVAILABLE})",
                        "Error") | retry_after
    limited = _body("Too many requests from this client; see Retry-After", "Error")
    # Answered by the server before the app (webapp/server.py), whatever the path.
    server_limits = {"414": _body(f"The request line (method, URL, protocol) is longer than {LIMIT_REQUEST_LINE} bytes",
                             "Error"),
                "431": _body(f"More than {LIMIT_REQUEST_FIELDS} header fields, or one longer than "
                             f"{LIMIT_REQUEST_FIELD_SIZE} bytes", "Error")}
    return {
        "openapi": "3.1.0",
        "info": {"title": "papersearch API", "version": "1.0.0",
                 "description": "Search academic papers in Chinese and English."},
        "paths": {
            "/api/search": {"get": {
                "operationId": "search",
                "summary": "Search papers (the page's parameters; any size from 1 to the largest page size)",
                "parameters": query_parameters(request_args.api_search_model),
                "responses": {"200": _body("Results, facets and paging", "SearchResult") | {"links": _SEARCH_LINKS}
                              | {"headers": {"Link": _LAST_PAGE}},
                              "400": bad, **server_limits, "429": limited, "503": unavailable}}},
            "/api/papers/{id}": {"get": {
                "operationId": "getPaper", "summary": "One paper and similar papers",
                "parameters": [_ID],
                "responses": {"200": _body("The paper", "Paper") | {"links": _PAPER_LINKS},
                              **not_utf8, "404": _body("No such paper", "Error"),
                              **server_limits, "429": limited, "503": unavailable}}},
            "/api/papers/{id}/citation": {"get": {
                "operationId": "getCitation", "summary": "One paper as BibTeX, RIS or CSL-JSON, as a download",
                "parameters": [_ID, *query_parameters(request_args.citation_model)],
                "responses": {"200": {"description": "The citation (UTF-8), named after its key",
                                      "content": {bibtex.MEDIA_TYPE.split(";")[0]: {"schema": {"type": "string"}},
                                                  ris.MEDIA_TYPE.split(";")[0]: {"schema": {"type": "string"}},
                                                  csl_json.MEDIA_TYPE.split(";")[0]: {"schema": csl_json.SCHEMA}}},
                              "400": bad, "404": _body("No such paper", "Error"), **server_limits, "429": limited,
                              "503": unavailable}}},
            "/api/authors/{name}": {"get": {
                "operationId": "getAuthor",
                "summary": "An author: every paper of the name and its other spellings (newest first; by relevance "
                           "to q), facets over them, the spellings, frequent co-authors, and whether the name "
                           "plainly covers several people; for a surname many people carry, those people",
                "parameters": [_NAME, *query_parameters(request_args.api_author_model)],
                "responses": {"200": {"description": "The author's papers and profile (AuthorProfile); for a surname "
                                                     "that more than one person carries, the people who carry it, "
                                                     "most papers first (AuthorPeople)",
                                      "content": {"application/json": {"schema": {"oneOf": [
                                          {"$ref": REF.format(model="AuthorProfile")},
                                          {"$ref": REF.format(model="AuthorPeople")}]}}}},
                              "400": bad, "404": _body("No paper has this name", "Error"), **server_limits,
                              "429": limited, "503": unavailable}}},
            "/api/suggest": {"get": {
                "operationId": "suggest", "summary": "Title and author completions for a prefix",
                "parameters": query_parameters(request_args.suggest_model),
                "responses": {"200": _body("Suggestions", "Suggestions"),
                              "400": bad, **server_limits, "429": limited, "503": unavailable}}},
            "/api/openapi.json": {"get": {
                "operationId": "openapi", "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3.1 document",
                                      "content": {"application/json": {"schema": {"type": "object"}}}},
                              **not_utf8, **server_limits, "429": limited}}},
            "/api/events": {"post": {
                "operationId": "event", "summary": "What the search page reports: a followed result or a "
                "retyped query, for the query log (application/json only; a click is stored once per query id "
                "and position)",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "oneOf": [{"$ref": REF.format(model=m.__name__)} for m in beacons],
                    "discriminator": {"propertyName": "type"}}}}},
                "responses": {"204": {"description": "Accepted (written when the query log is on)"},
                              "400": _body("Not a valid event, for a search this site served more than a day "
                                           "ago, not for one of the results it showed (position and paper_id), "
                                           "sent from another site, or an address that is not valid UTF-8",
                                           "Error"),
                              "403": _body("A well-formed event whose query_id this site never signed (forged, "
                                           "altered, or another site's)", "Error"),
                              "408": _body("The body had not all arrived when the request's deadline passed "
                                           "(PAPERSEARCH_REQUEST_TIMEOUT from its first byte)", "Error"),
                              **server_limits, "415": _body("Not sent as application/json", "Error"),
                              "429": limited}}},
            "/metrics": {"get": {
                "operationId": "metrics",
                "summary": "Prometheus metrics, to the addresses of PAPERSEARCH_METRICS_ALLOW (loopback by default) or "
                           "on PAPERSEARCH_METRICS_BIND; else, or with PAPERSEARCH_METRICS=off, 404",
                "responses": {"200": {"description": "Prometheus text format",
                                      "content": {"text/plain": {"schema": {"type": "string"}}}},
                              **not_utf8, "404": _body("Not served to this address, or turned off", "Error"),
                              **server_limits}}},
            "/healthz": {"get": {
                "operationId": "healthz", "summary": "The process is alive (no Elasticsearch call)",
                "responses": {"200": _body("Alive", "Status"), **not_utf8, **server_limits}}},
            "/readyz": {"get": {
                "operationId": "readyz", "summary": "The search alias can be queried",
                "responses": {"200": _body("Ready", "Status"), **not_utf8, **server_limits,
                              "503": _body("Not ready", "Status")}}},
            **openapi_lists.paths(request_args, _body, query_parameters, server_limits, retry_after),
        },
        "components": {"schemas": defs.get("$defs", {})},
    }
