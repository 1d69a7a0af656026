"""Cache-Control of every response, by route: one table, so that a shared cache in front (and the browser) knows
what it may keep, and a new route must say (tests/integration/test_site_hardening.py fails on a route missing
here). A route that sets Cache-Control itself keeps its own.

Responses vary by language (Vary: Accept-Language, Cookie; webapp/i18n.py) and never by Host: every absolute
URL comes from the public address (webapp/site.py). Errors, redirects and anything per visitor are not stored.
A response that sets a cookie is never one a shared cache may keep: its `public` becomes `private` (the same
lifetime, in the visitor's browser only), or a shared cache would hand that cookie to everyone (DECISIONS.md D-190).
Static files are linked with their content's digest (?v=…), so a shared cache (the Docker stack's proxy) and
browsers keep them for a year and a new release is fetched at once.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from flask import Flask, Response, request

NO_STORE = "no-store"
# Pages and answers that carry a query id signed for this response (webapp/controllers/query_ids.py): kept by
# the browser for Back, never by a shared cache (every visitor would share one id, and its clicks).
PER_VISITOR = "private, no-cache"
SHORT = "public, max-age=300"  # a paper, an author, a topic, a suggestion, an export: changes only with the index
CRAWLERS = "public, max-age=3600"  # robots.txt, sitemaps, OpenSearch, the API document
FEED = "public, max-age=600"
IMMUTABLE = "public, max-age=31536000, immutable"  # a static file asked for by its digest

POLICY: dict[str, str] = {
    "ui.search": PER_VISITOR,
    "api.search": PER_VISITOR,
    "ui.paper": SHORT,
    "ui.author": SHORT,
    "ui.topic": SHORT,
    "api.author": SHORT,
    "api.paper": SHORT,
    "api.citation": SHORT,
    "api.suggest": SHORT,
    "api.openapi_document": CRAWLERS,
    "api.events": NO_STORE,
    "feeds.feed": FEED,
    "feeds.opensearch_description": CRAWLERS,
    "feeds.opensearch_suggestions": SHORT,
    "exports.export": SHORT,
    "crawlers.robots_txt": CRAWLERS,
    "crawlers.sitemap_xml": CRAWLERS,
    "crawlers.sitemap_file": CRAWLERS,
    "crawlers.sitemap_topics": CRAWLERS,
    "health.healthz": NO_STORE,
    "health.readyz": NO_STORE,
    "metrics": NO_STORE,
    "static": "",  # Flask's own: public, max-age=SEND_FILE_MAX_AGE_DEFAULT, with an ETag
}


def policy(endpoint: str | None, status: int) -> str:
    """The Cache-Control of a response ("" leaves it to the route)."""
    if status >= 300 and status != 304:
        return NO_STORE
    return POLICY.get(endpoint or "", NO_STORE)


def shared(cache_control: str) -> bool:
    """Whether a shared cache (the proxy, a CDN) may store a response with this Cache-Control."""
    words = {word.strip().split("=", 1)[0] for word in cache_control.lower().split(",")}
    return bool(words & {"public", "s-maxage"}) and not words & {"private", "no-store"}


def for_one_visitor(cache_control: str) -> str:
    """The same lifetime for the visitor's browser alone: `public` and `s-maxage` give way to `private`."""
    kept = [word.strip() for word in cache_control.split(",")
            if word.strip() and word.strip().lower().split("=", 1)[0] not in ("public", "s-maxage")]
    return ", ".join(["private", *kept])


@lru_cache(maxsize=64)
def _digest(path: Path) -> str | None:
    """The first 12 hex digits of a static file's SHA-256 (read once per process: files change with a release)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return None


def init_app(app: Flask) -> None:
    static = Path(app.static_folder or "static")

    @app.url_defaults
    def _static_version(endpoint: str, values: dict) -> None:
        if endpoint == "static" and "v" not in values and (digest := _digest(static / values["filename"])):
            values["v"] = digest

    @app.after_request
    def _cache_control(response: Response) -> Response:
        value = policy(request.endpoint, response.status_code)
        version = request.args.get("v")
        if request.endpoint == "static" and response.status_code in (200, 304) and version \
                and version == _digest(static / (request.view_args or {}).get("filename", "")):
            response.headers["Cache-Control"] = IMMUTABLE
            response.headers.pop("Expires", None)  # Flask's, for its own hour
        if value and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = value
        if "Set-Cookie" in response.headers and shared(response.headers.get("Cache-Control", "")):
            response.headers["Cache-Control"] = for_one_visitor(response.headers["Cache-Control"])
        return response
