"""Security headers on every response and per-client rate limiting.

The rate limiter is an in-process sliding window keyed by client IP. Each gunicorn worker keeps its
own window, so the effective limit for one client is up to (limit × workers) when requests spread
over workers; it is a guard against runaway clients, not an accounting tool. Behind a reverse proxy
set PAPERSEARCH_TRUSTED_PROXIES (the number of proxies in front) so the client IP is taken from
X-Forwarded-For instead of the proxy's address.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, Response, request

RATE_LIMIT_ENV = "PAPERSEARCH_RATE_LIMIT"  # named in error messages; read by papersearch.settings
EXEMPT_PREFIXES = ("/static/", "/healthz", "/readyz")  # probes and assets must never be throttled

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

_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(second|minute|hour|day)s?\s*$")


@dataclass(frozen=True)
class RateLimit:
    requests: int
    seconds: float

    @classmethod
    def parse(cls, spec: str) -> RateLimit | None:
        """ "120/minute", "10/second", "1000/5minutes"... ; "0" or "off" disables the limit."""
        if spec.strip().lower() in ("", "0", "off", "none"):
            return None
        match = _SPEC.match(spec.lower())
        if not match:
            raise ValueError(f"{RATE_LIMIT_ENV}: expected like '120/minute', got {spec!r}")
        count, multiple, period = match.groups()
        return cls(int(count), int(multiple or 1) * _PERIODS[period])


class SlidingWindowLimiter:
    """Timestamps of each client's recent requests; a request is allowed if fewer than `requests`
    fall inside the last `seconds`. Idle clients are pruned so memory stays bounded."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._next_prune = 0.0

    def hit(self, key: str) -> float:
        """Record a request; 0 if allowed, else the seconds until one would be allowed."""
        now = self.clock()
        window_start = now - self.limit.seconds
        with self._lock:
            if now >= self._next_prune:
                self._prune(window_start)
                self._next_prune = now + self.limit.seconds
            hits = self._hits.setdefault(key, deque())
            while hits and hits[0] <= window_start:
                hits.popleft()
            if len(hits) >= self.limit.requests:
                return max(hits[0] - window_start, 0.001)
            hits.append(now)
            return 0.0

    def _prune(self, window_start: float) -> None:
        for key in [k for k, v in self._hits.items() if not v or v[-1] <= window_start]:
            del self._hits[key]


def init_app(app: Flask, rate_limit: str, trusted_proxies: int = 0,
             on_limited: Callable[[int], Response] | None = None) -> None:
    limit = RateLimit.parse(rate_limit)
    limiter = SlidingWindowLimiter(limit) if limit else None
    app.extensions["rate_limiter"] = limiter

    if trusted_proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=trusted_proxies)  # type: ignore[method-assign]

    if limiter is not None:
        @app.before_request
        def _rate_limit() -> Response | None:
            if request.path.startswith(EXEMPT_PREFIXES):
                return None
            wait = limiter.hit(request.remote_addr or "unknown")
            if not wait:
                return None
            retry_after = max(1, math.ceil(wait))
            response = on_limited(retry_after) if on_limited else Response("Too Many Requests", 429)
            response.status_code = 429
            response.headers["Retry-After"] = str(retry_after)
            return response

    @app.after_request
    def _security_headers(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response
