"""Prometheus metrics of the webapp, served at /metrics (PAPERSEARCH_METRICS=off turns it off) to the addresses
of PAPERSEARCH_METRICS_ALLOW (loopback by default) and on PAPERSEARCH_METRICS_BIND when set (`Access`).

Under gunicorn every worker is its own process: config/gunicorn.conf.py points PROMETHEUS_MULTIPROC_DIR
at a directory it creates and cleans, prometheus_client then keeps each worker's values in files
there, and /metrics (whichever worker answers) adds them up. Without that variable (flask run,
tests) the values live in this process. Names and labels: docs/operations.md "Metrics".
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from ipaddress import IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

from flask import Flask, Response, abort, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.mmap_dict import MmapedDict

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
ROUTE = "/metrics"
UNMATCHED = "<unmatched>"  # 404s have no route; one label value keeps the label set bounded
# Every label of a request's series comes from a fixed set, whatever the request says: its route's template
# (or UNMATCHED), one of these methods (else OTHER), its status class. An invented method or path adds no
# series (before, each invented method added one, kept until restart).
METHODS = frozenset({"GET", "HEAD", "POST", "OPTIONS"})
OTHER = "other"


def method_label(method: str) -> str:
    return method if method in METHODS else OTHER


def status_label(status: int) -> str:
    return f"{status // 100}xx" if 100 <= status <= 599 else OTHER

HTTP_SECONDS = Histogram(
    "papersearch_http_request_duration_seconds",
    "Requests by route template, method (GET, HEAD, POST, OPTIONS, other) and status class (2xx …) (count and latency)",
    ["route", "method", "status"], buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10),
)
ES_SECONDS = Histogram(
    "papersearch_es_request_duration_seconds", "Elasticsearch requests made by the webapp, by kind",
    ["kind"], buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5),
)
SEARCHES = Counter("papersearch_searches_total", "Searches answered, by source (page, api)", ["source"])
ZERO_RESULT = Counter("papersearch_zero_result_searches_total", "Searches that found nothing", ["source"])
FALLBACKS = Counter(
    "papersearch_search_fallbacks_total",
    "Searches shaped by a fallback or expansion (relaxed, did_you_mean, corrected, cross_lingual, ...)", ["fallback"],
)
RATE_LIMITED = Counter("papersearch_rate_limited_total", "Requests refused with 429 by the rate limit")
CLICKS = Counter("papersearch_result_clicks_total", "Result clicks reported by the search page")
EVENTS_REJECTED = Counter("papersearch_events_rejected_total",
                          "Beacons refused (never written): media_type, cross_site, too_large, invalid, unknown_query, "
                          "expired, position, paper, retype",
                          ["reason"])
QUERYLOG_WRITTEN = Counter("papersearch_querylog_written_total", "Query-log events stored in Elasticsearch")
QUERYLOG_DROPPED = Counter("papersearch_querylog_dropped_total", "Query-log events dropped, by reason",
                           ["reason"])


def count_search(source: str, total: int, fallbacks: Iterable[str]) -> None:
    SEARCHES.labels(source).inc()
    if total == 0:
        ZERO_RESULT.labels(source).inc()
    for name in fallbacks:
        FALLBACKS.labels(name).inc()


def querylog_dropped(count: int, reason: str) -> None:
    QUERYLOG_DROPPED.labels(reason).inc(count)


def querylog_written(count: int) -> None:
    QUERYLOG_WRITTEN.inc(count)


@contextmanager
def es_request(kind: str) -> Iterator[None]:
    """Time one Elasticsearch request (kind: search, count, suggest, mlt, get, ...), failed ones too."""
    start = time.perf_counter()
    try:
        yield
    finally:
        ES_SECONDS.labels(kind).observe(time.perf_counter() - start)


def exposition() -> tuple[bytes, str]:
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def archive_dead_worker(pid: int, directory: str | None = None) -> None:
    """Fold a finished worker's counters and histograms into `<type>_archive.db` and delete its files.

    gunicorn replaces workers (max_requests); without this every past worker leaves files behind, and
    each scrape reads them all. Sums stay the same: /metrics adds the archive like any worker's file.
    Called by config/gunicorn.conf.py's child_exit (in the master, one worker at a time).
    """
    directory = directory or os.environ[MULTIPROC_ENV]
    multiprocess.mark_process_dead(pid, directory)
    for path in glob.glob(os.path.join(directory, f"*_{pid}.db")):
        kind = os.path.basename(path).split("_")[0]
        if kind not in ("counter", "histogram"):
            continue
        archive = MmapedDict(os.path.join(directory, f"{kind}_archive.db"))
        try:
            for key, value, timestamp, _ in MmapedDict.read_all_values_from_file(path):
                archive.write_value(key, archive.read_value(key)[0] + value, timestamp)
        finally:
            archive.close()
        os.remove(path)


class Access:
    """Who may read /metrics: a client address in `allow` (PAPERSEARCH_METRICS_ALLOW, loopback by default), or
    anyone reaching the separate `port` (PAPERSEARCH_METRICS_BIND), which serves nothing else. A request that
    came through a proxy whose X-Forwarded-For is not trusted (PAPERSEARCH_TRUSTED_PROXIES=0) is not the
    proxy's own: a reverse proxy on this host must not open /metrics to the world."""

    def __init__(self, allow: list[IPv4Network | IPv6Network], port: int | None, trusted_proxies: int) -> None:
        self.allow, self.port, self.trusted_proxies = allow, port, trusted_proxies

    def on_metrics_port(self) -> bool:
        sock = request.environ.get("gunicorn.socket")  # the connection's socket: its local port is the bind's
        if self.port is None or sock is None:
            return False
        try:
            local = sock.getsockname()
        except OSError:
            return False
        return isinstance(local, tuple) and local[1] == self.port

    def allowed(self) -> bool:
        if self.on_metrics_port():
            return True
        if not self.trusted_proxies and ("X-Forwarded-For" in request.headers or "Forwarded" in request.headers):
            return False
        try:
            address = ip_address(request.remote_addr or "")
        except ValueError:
            return False
        if isinstance(address, IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        return any(address in network for network in self.allow)


def init_app(app: Flask, enabled: bool, access: Access | None = None) -> None:
    """Time every request and serve /metrics to `access` (loopback only by default); with `enabled` False
    neither happens."""
    app.extensions["metrics_enabled"] = enabled
    if not enabled:
        return
    access = access or Access([ip_network("127.0.0.0/8"), ip_network("::1")], None, 0)

    @app.before_request
    def _start_timer() -> Response | None:
        if access.on_metrics_port() and request.path != ROUTE:
            abort(404)  # the metrics bind serves the metrics alone
        g.metrics_start = time.perf_counter()
        return None

    @app.after_request
    def _observe(response: Response) -> Response:
        start = g.pop("metrics_start", None)
        if start is not None:
            route = request.url_rule.rule if request.url_rule is not None else UNMATCHED
            HTTP_SECONDS.labels(route, method_label(request.method),
                                status_label(response.status_code)).observe(time.perf_counter() - start)
        if response.status_code == 429:
            RATE_LIMITED.inc()
        return response

    @app.get(ROUTE)
    def metrics() -> Response:
        if not access.allowed():
            abort(404)  # as if there were no such page: nothing to learn from the answer
        body, content_type = exposition()
        return Response(body, content_type=content_type, headers={"Cache-Control": "no-store"})
