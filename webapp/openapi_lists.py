"""The OpenAPI paths of the routes other tools read: the export and OpenSearch suggestions (JSON errors,
as the rest of /api) and the feed, OpenSearch description, robots.txt and sitemaps (their errors are pages,
as on the site). Parameters come from the models that validate them (controllers/list_params.py), so the
contract test (tests/integration/test_api_contract.py) covers these routes too."""

from __future__ import annotations

from typing import Any

from webapp.controllers.list_params import ListArgs
from webapp.controllers.params import RequestArgs
from webapp.serializers import atom, csl_json, opensearch, robots, sitemap
from webapp.serializers import export as formats

_STRING = {"schema": {"type": "string"}}
_WORDS = {"type": "array", "items": {"type": "string"}}
# [prefix, texts, kinds, URLs]; with `items` rather than `prefixItems`, which Schemathesis mistranslates.
SUGGESTIONS = {"type": "array", "minItems": 4, "maxItems": 4, "items": {"anyOf": [{"type": "string"}, _WORDS]}}


def _text(description: str, *media_types: str) -> dict[str, Any]:
    return {"description": description, "content": {m.split(";")[0]: _STRING for m in media_types}}


def _page(description: str) -> dict[str, Any]:
    return _text(description, "text/html")


BAD_REQUEST = "Invalid parameter (out of its range, unknown, or not valid UTF-8)"
NOT_UTF8 = "The path or a parameter is not valid UTF-8"


def paths(request_args: RequestArgs, json_body: Any, query_parameters: Any, server_limits: dict,
          retry_after: dict) -> dict[str, Any]:
    """`json_body(description, model)`, `query_parameters(model)`, the 414 and 431 answers and the 503's Retry-After
    header come from webapp/openapi.py."""
    lists = ListArgs(request_args)
    bad_json = json_body(BAD_REQUEST, "Error")
    busy_json = json_body("Search is unavailable", "Error") | retry_after
    limited_json = json_body("Too many requests from this client; see Retry-After", "Error")
    bad, limited = _page(BAD_REQUEST), _page("Too many requests")
    not_utf8 = {"400": _page(NOT_UTF8)}  # every route (webapp/encoding.py)
    busy = _page("Search is unavailable") | retry_after
    exported = _text("The papers, each once (UTF-8; CSV with a byte-order mark)",
                     *(formats.format_of(f).media_type for f in formats.FORMATS))
    exported["content"][csl_json.MEDIA_TYPE.split(";")[0]] = {"schema": csl_json.SCHEMA}  # JSON: its items
    return {
        "/api/export": {"get": {
            "operationId": "exportResults",
            "summary": "The search's results, in the order of its pages, as one BibTeX, RIS, CSL-JSON or CSV "
                       "download (streamed; at most the documented limit)",
            "parameters": query_parameters(lists.export_model),
            "responses": {"200": exported,
                          "400": bad_json, **server_limits, "429": limited_json, "503": busy_json}}},
        "/api/opensearch/suggest": {"get": {
            "operationId": "openSearchSuggestions",
            "summary": "Completions in the OpenSearch suggestions format: [prefix, texts, kinds, URLs]",
            "parameters": query_parameters(request_args.suggest_model),
            "responses": {"200": {"description": "Suggestions", "content": {
                              opensearch.SUGGESTIONS_TYPE.split(";")[0]: {"schema": SUGGESTIONS}}},
                          "400": bad_json, **server_limits, "429": limited_json, "503": busy_json}}},
        "/feed": {"get": {
            "operationId": "feed", "summary": "A search as an Atom feed: its newest added papers first",
            "parameters": query_parameters(lists.feed_model),
            "responses": {"200": _text("Atom 1.0", atom.MEDIA_TYPE), "400": bad, **server_limits, "429": limited,
                          "503": busy}}},
        "/opensearch.xml": {"get": {
            "operationId": "openSearchDescription", "summary": "OpenSearch 1.1 description, in the page's language",
            "responses": {"200": _text("OpenSearch description", opensearch.DESCRIPTION_TYPE), **not_utf8,
                          **server_limits, "429": limited}}},
        "/robots.txt": {"get": {
            "operationId": "robots", "summary": "What crawlers may fetch, and the sitemap",
            "responses": {"200": _text("robots.txt", robots.MEDIA_TYPE), **not_utf8, **server_limits,
                          "429": limited}}},
        "/sitemap.xml": {"get": {
            "operationId": "sitemap", "summary": "Paper and topic pages: one sitemap, or a sitemap index beyond "
                                                 f"{sitemap.MAX_URLS:,} of them",
            "responses": {"200": _text("Sitemap or sitemap index", sitemap.MEDIA_TYPE), **not_utf8,
                          **server_limits, "429": limited, "503": busy}}},
        "/sitemap-topics.xml": {"get": {
            "operationId": "sitemapTopics", "summary": "The topic pages (in /sitemap.xml itself while it is one file)",
            "responses": {"200": _text("Sitemap", sitemap.MEDIA_TYPE), **not_utf8, **server_limits, "429": limited,
                          "503": busy}}},
        "/sitemap-papers.xml": {"get": {
            "operationId": "sitemapFile", "summary": "One file of the sitemap index",
            "parameters": query_parameters(lists.sitemap_model),
            "responses": {"200": _text("Sitemap", sitemap.MEDIA_TYPE), "400": bad, **server_limits, "429": limited,
                          "503": busy}}},
    }
