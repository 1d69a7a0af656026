"""Security headers on every response, and per-client rate limiting with Flask-Limiter.

The limit (PAPERSEARCH_RATE_LIMIT, e.g. "120/minute"; "off" disables) is one moving window per client
IP over every page and API route, each request weighed by its cost (WEIGHTS: an export, a sitemap or a feed
counts as the searches it makes); static files, /healthz and /metrics are exempt. Counts live in
PAPERSEARCH_RATE_LIMIT_STORAGE: `memory://` counts per gunicorn worker, `redis://host:6379` once for all
workers and hosts (see DECISIONS.md D-024). Behind a reverse proxy set
PAPERSEARCH_TRUSTED_PROXIES so the client IP is taken from X-Forwarded-For.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from flask import Flask, Response, current_app, g, request
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many

from webapp.controllers.list_params import EXPORT_MAX

RATE_LIMIT_ENV = "PAPERSEARCH_RATE_LIMIT"  # named in error messages; read by papersearch.settings
# Never throttled, matched by endpoint (not by a path prefix: /metricsX or /healthz/.. are ordinary unknown URLs
# and count): assets, the liveness probe that never touches Elasticsearch, and the scrape (loopback by default).
# /readyz searches the alias, so it counts like a page.
EXEMPT_ENDPOINTS = frozenset({"static", "health.healthz", "metrics"})
DISABLED = ("", "0", "off", "none")

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",  # no inline scripts: all JS is in /static
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    "Cross-Origin-Opener-Policy": "same-origin",
}


# What one request of a route costs in the limit, in searches: a list route does the work of many (DECISIONS.md
# D-123). An export weighs in proportion to the papers it asks for.
WEIGHTS = {"exports.export": 40, "crawlers.sitemap_xml": 40, "crawlers.sitemap_file": 40, "feeds.feed": 4}
EXPORT_ENDPOINT = "exports.export"


SEARCH_ENDPOINTS = {"ui.search": "page", "api.search": "api"}  # weighed by what their plan will send


def cost() -> int:
    """This request's weight in the rate limit: a search by its clauses, concepts and size (config query_cost,
    webapp/services/plan.py cost()); a page or a paper 1."""
    if request.endpoint in SEARCH_ENDPOINTS:
        return _search_cost(SEARCH_ENDPOINTS[request.endpoint])
    weight = WEIGHTS.get(request.endpoint or "", 1)
    if request.endpoint == EXPORT_ENDPOINT:
        limit = request.args.get("limit", "")
        # ASCII digits: str.isdigit() is true of "²", which int() refuses (a 500 Schemathesis found, issue 58).
        asked = int(limit) if limit.isascii() and limit.isdigit() and 0 < int(limit) <= EXPORT_MAX else EXPORT_MAX
        weight = max(1, math.ceil(weight * asked / EXPORT_MAX))
    return weight


def _search_cost(source: str) -> int:
    from webapp.controllers import search as controller  # the app's controllers, once the app is built

    cached = g.get("search_cost")
    if cached is None:  # Flask-Limiter asks once per limit and again for the window: parse once
        extensions = current_app.extensions
        cached = g.search_cost = controller.cost(extensions["search_service"], request.args,
                                                 extensions["request_args"], source)  # type: ignore[arg-type]
    return cached


class Concurrency:
    """At most `cap` cost units (plan.cost) of one client's (IP's) searches at once in this process, one search
    always: a client with many connections cannot hold every thread with costly searches while its rate-limit
    window still has room (issue 45.2), while several plain searches from one address (a NAT, a campus) go on."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._running: dict[str, int] = {}

    def enter(self, client: str, units: int = 1) -> bool:
        with self._lock:
            running = self._running.get(client, 0)
            if running and running + units > self.cap:
                return False
            self._running[client] = running + units
            return True

    def leave(self, client: str, units: int = 1) -> None:
        with self._lock:
            left = self._running.get(client, 0) - units
            if left > 0:
                self._running[client] = left
            else:
                self._running.pop(client, None)


def rate_limit_spec(spec: str) -> str | None:
    """The limit in Flask-Limiter's syntax ("120/minute", "10/second", "1000/5minutes"), None when disabled."""
    if spec.strip().lower() in DISABLED:
        return None
    try:
        parse_many(spec)
    except ValueError:
        raise ValueError(f"{RATE_LIMIT_ENV}: expected like '120/minute', got {spec!r}") from None
    return spec.strip()


def init_app(app: Flask, rate_limit: str, storage_uri: str = "memory://", trusted_proxies: int = 0,
             on_limited: Callable[[int], Response] | None = None) -> None:
    if trusted_proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        # The scheme too: feeds, sitemaps and the OpenSearch description carry absolute URLs, which must be
        # https behind a proxy that terminates TLS.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=trusted_proxies, x_proto=trusted_proxies)  # type: ignore[method-assign]

    spec = rate_limit_spec(rate_limit)
    if spec is not None:
        _limit_concurrency(app, on_limited)
        limiter = Limiter(
            get_remote_address, app=app, application_limits=[spec], storage_uri=storage_uri,
            # A shared store that stops answering (Redis) costs the shared count, not the site: each worker
            # counts alone until it answers again.
            in_memory_fallback_enabled=not storage_uri.startswith("memory://"),
            strategy="moving-window", headers_enabled=False, application_limits_cost=cost,
            # Unknown URLs count too (Flask-Limiter skips requests without an endpoint by default).
            request_identifier=lambda: request.endpoint or "unmatched",
        )
        limiter.request_filter(lambda: request.endpoint in EXEMPT_ENDPOINTS)
        app.extensions["papersearch_limiter"] = limiter

        @app.errorhandler(RateLimitExceeded)
        def _limited(exc: RateLimitExceeded) -> Response:
            current = limiter.current_limit
            # window[0]: when the oldest counted request leaves the moving window (reset_at rounds up a second).
            retry_after = max(1, math.ceil(current.window[0] - time.time())) if current else 1
            response = on_limited(retry_after) if on_limited else Response("Too Many Requests", 429)
            response.status_code = 429
            response.headers["Retry-After"] = str(retry_after)
            return response

    @app.after_request
    def _security_headers(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response


def _limit_concurrency(app: Flask, on_limited: Callable[[int], Response] | None) -> None:
    running = Concurrency(app.config["SEARCH_CONFIG"].query_cost.max_concurrent_units_per_client)
    app.extensions["papersearch_concurrency"] = running

    @app.before_request
    def _enter() -> Response | None:
        if request.endpoint not in SEARCH_ENDPOINTS:
            return None
        client, units = get_remote_address(), _search_cost(SEARCH_ENDPOINTS[request.endpoint])
        if not running.enter(client, units):
            response = on_limited(1) if on_limited else Response("Too Many Requests", 429)
            response.status_code = 429
            response.headers["Retry-After"] = "1"
            return response
        g.concurrency_client = (client, units)
        return None

    @app.teardown_request
    def _leave(_exc: BaseException | None) -> None:
        held = g.pop("concurrency_client", None)
        if held is not None:
            running.leave(*held)
