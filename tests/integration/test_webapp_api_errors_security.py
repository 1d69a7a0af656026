"""The web application's JSON API, errors and protections end to end: Flask's test client against a real alias
on a real node.

The API against the page and the OpenAPI document, bad parameters and error pages, health probes and an
unreachable cluster, security headers, rate limits and the read-only web identity. The alias
(tests/integration/conftest.py) holds the shipped sample papers plus a few of our own (webapp_support.EXTRA),
loaded through the real indexer.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
import uuid
from urllib.parse import urlsplit

import pytest
from elasticsearch import AuthorizationException
from limits.errors import ConfigurationError
from support import free_port
from webapp_support import TOTAL, api, result_ids, text

from papersearch.settings import Settings
from webapp import REQUEST_TIMEOUT, create_app
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

CONFIG = search_config()


# --- JSON API -------------------------------------------------------------------------------------


def test_api_matches_the_page(client):
    for qs in ("q=learning", "q=learning&page=2", "area=Theory&sort=title", "q=大语言模型", "size=25&page=2"):
        _, data = api(client, f"/api/search?{qs}")
        html = client.get(f"/?{qs}").get_data(as_text=True)
        assert [h["id"] for h in data["hits"]] == result_ids(html), qs
        assert f"of {data['total']} result" in text(html), qs
        assert set(data) >= {"params", "total", "took_ms", "hits", "facets", "did_you_mean", "page_count",
                             "too_deep"}


def test_api_paper_and_404(client):
    r, data = api(client, "/api/papers/xss-abstract")
    assert r.status_code == 200 and data["paper"]["id"] == "xss-abstract"
    assert isinstance(data["similar"], list)
    r, data = api(client, "/api/papers/no-such-paper")
    assert r.status_code == 404 and data["error"]["code"] == "not_found"


def test_openapi_document(client):
    r, doc = api(client, "/api/openapi.json")
    assert r.status_code == 200
    assert doc["openapi"].startswith("3.1")
    assert set(doc["paths"]) >= {"/api/search", "/api/papers/{id}", "/api/suggest", "/api/openapi.json",
                                 "/healthz", "/readyz"}
    params = {p["name"]: p for p in doc["paths"]["/api/search"]["get"]["parameters"]}
    assert set(params) == {"q", "area", "subarea", "venue", "year", "year_from", "year_to", "type", "language",
                           "sort", "page", "size", "xl", "spell"}
    assert (params["size"]["schema"]["minimum"], params["size"]["schema"]["maximum"]) == (1, max(CONFIG.page_sizes))
    assert params["size"]["schema"]["default"] == CONFIG.default_page_size
    assert set(params["sort"]["schema"]["enum"]) == set(CONFIG.sorts)
    assert params["q"]["schema"]["maxLength"] == CONFIG.max_query_length
    assert "pattern" in params["subarea"]["schema"]["items"]
    assert "SearchResult" in doc["components"]["schemas"]
    # Every $ref resolves inside the document.
    refs = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(doc))
    assert refs and all(ref in doc["components"]["schemas"] for ref in refs)


# --- errors ---------------------------------------------------------------------------------------


BAD = [
    ("page=0", "Page must be from 1 to 10000 (got 0)"),
    ("page=10001", "Page must be from 1 to 10000 (got 10001)"),
    # Once a 500 (Schemathesis): a page number beyond 64 bits could not be written back as JSON.
    ("page=6863645574222568226816", "Page must be from 1 to 10000 (got 6863645574222568226816)"),
    ("page=" + "9" * 5000, "Page must be from 1 to 10000"),
    ("page=1.0", "must be a whole number"),
    ("page=2&page=3", "may be given only once"),
    ("q=a&q=b", "may be given only once"),
    ("page=abc", "must be a whole number"),
    ("size=101", "Page size"),
    ("year=abc", "“year” must be a whole number"),
    ("year_from=0", "“year_from” 0 is outside 1–9999"),
    ("year=1" + "0" * 30, "is outside 1–9999"),  # once a 500: too large for the client's JSON
    ("sort=random", "Unknown sort"),
    ("subarea=Nonsense", "must look like"),
    ("q=" + "a" * (CONFIG.max_query_length + 1), "The query is too long"),
]


@pytest.mark.parametrize(("qs", "message"), BAD)
def test_bad_parameters_are_400_with_a_message(client, qs, message):
    r = client.get(f"/?{qs}")
    assert r.status_code == 400
    assert message in r.get_data(as_text=True).replace("&#34;", '"').replace("&gt;", ">")
    r, data = api(client, f"/api/search?{qs}")
    assert r.status_code == 400 and message in data["error"]["message"]


def test_the_api_takes_any_page_size_the_page_its_selector(client):
    total = api(client, "/api/search")[1]["total"]
    for size in (1, 7, 100):
        r, data = api(client, f"/api/search?size={size}")
        assert r.status_code == 200 and len(data["hits"]) == min(size, total) and data["params"]["size"] == size
        assert data["page_count"] == -(-total // size)
    r, data = api(client, "/api/search?size=101")
    assert r.status_code == 400 and data["error"]["message"] == "Page size must be from 1 to 100 (got 101)."
    r = client.get("/?size=7")
    assert r.status_code == 400 and "Page size 7 is not offered" in r.get_data(as_text=True)


def test_bad_parameter_message_in_chinese(client):
    r = client.get("/?page=0&lang=zh")
    assert r.status_code == 400 and "页码须在 1 到 10000 之间" in r.get_data(as_text=True)


def test_the_deepest_page_is_past_the_last_page_not_an_error(client):
    """Pages up to the window's end answer (no hits beyond the results, a friendly note); only beyond is a 400."""
    r, data = api(client, "/api/search?page=10000")
    assert r.status_code == 200 and data["hits"] == []
    assert (data["too_deep"], data["past_last_page"]) == (False, True)  # too deep only where there are results
    assert client.get("/?page=10000").status_code == 200


def test_over_long_suggest_prefix_is_400(client):
    r = client.get("/api/suggest?q=" + "x" * (CONFIG.max_query_length + 1))
    assert r.status_code == 400 and "too long" in r.get_json()["error"]["message"]


def test_404_pages(client):
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "Page not found" in r.get_data(as_text=True)
    assert client.get("/paper/no-such-paper").status_code == 404
    r, data = api(client, "/api/nothing-here")
    assert r.status_code == 404 and data["error"]["code"] == "not_found"


def test_unexpected_errors_are_500_without_a_trace(cluster, web_alias, caplog):
    class Exploding(SearchService):
        def search(self, params):
            raise RuntimeError("secret internals")

    service = Exploding(cluster.client("web"), web_alias)
    client = create_app(cluster.settings(web_alias), service=service, rate_limit="off").test_client()
    for path in ("/?q=x", "/api/search?q=x"):
        r = client.get(path)
        body = r.get_data(as_text=True)
        assert r.status_code == 500
        assert "secret internals" not in body and "Traceback" not in body
    assert any("secret internals" in rec.getMessage() or rec.exc_info for rec in caplog.records)


# --- health, availability -------------------------------------------------------------------------


def test_healthz_and_readyz(client, cluster):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    r = client.get("/readyz")
    assert r.status_code == 200 and r.get_json()["status"] == "ready"
    missing = create_app(cluster.settings("papers_missing_" + uuid.uuid4().hex[:8]), rate_limit="off")
    r = missing.test_client().get("/readyz")
    assert r.status_code == 503 and r.get_json()["status"] == "unavailable"
    r = missing.test_client().get("/?q=x")
    assert r.status_code == 503


class Forwarder:
    """A TCP port that forwards to the real node while running: 'the cluster comes back'."""

    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port, self.target = port, target
        self.server = socket.create_server(("127.0.0.1", port))
        self.server.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            upstream = socket.create_connection(self.target)
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.server.close()


def test_unreachable_cluster_is_a_fast_503_and_recovers(cluster, web_alias):
    port = free_port()  # nothing listens here yet
    settings = Settings(ES_URL=f"http://127.0.0.1:{port}", ES_WEB_USERNAME=cluster.web[0],
                        ES_WEB_PASSWORD=cluster.web[1], PAPERSEARCH_ALIAS=web_alias)
    client = create_app(settings, rate_limit="off").test_client()
    for path, is_json in (("/?q=learning", False), ("/api/search?q=learning", True), ("/paper/x", False),
                          ("/api/suggest?q=ab", True)):
        started = time.monotonic()
        r = client.get(path)
        elapsed = time.monotonic() - started
        body = r.get_data(as_text=True)
        assert r.status_code == 503, path
        # A ceiling that only catches waiting on the cluster: a refused connection answers in milliseconds,
        # and nothing here may take longer than the webapp's own time budget.
        assert elapsed < REQUEST_TIMEOUT, (path, elapsed)
        assert "Traceback" not in body and "ConnectionError" not in body
        assert r.headers["Retry-After"]
        if is_json:
            assert r.get_json()["error"]["code"] == "unavailable"
        else:
            assert "Search is temporarily unavailable" in body
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200  # the process is alive all along

    # The cluster "comes back" on the same address: the same app recovers without a restart.
    target = urlsplit(cluster.url)
    forwarder = Forwarder(port, (target.hostname, target.port))
    try:
        deadline = time.monotonic() + 60
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the app did not recover"
            time.sleep(0.2)
        r = client.get("/?q=learning")
        assert r.status_code == 200 and "results" in r.get_data(as_text=True)
    finally:
        forwarder.close()


# --- security -------------------------------------------------------------------------------------


def test_security_headers_everywhere(client):
    for path in ("/", "/api/search", "/healthz", "/no-such-page", "/static/style.css", "/?page=0"):
        r = client.get(path)
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "'unsafe-inline'" not in csp
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"
        assert r.headers["Referrer-Policy"]


def test_rate_limit_429_with_retry_after(cluster, web_alias, monkeypatch):
    client = create_app(cluster.settings(web_alias), rate_limit="3/minute").test_client()
    assert [client.get("/api/search").status_code for _ in range(3)] == [200, 200, 200]
    r = client.get("/api/search")
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    assert r.get_json()["error"]["code"] == "too_many_requests"
    r = client.get("/")
    assert r.status_code == 429 and "too quickly" in r.get_data(as_text=True)
    assert client.get("/healthz").status_code == 200  # probes are never throttled
    assert client.get("/static/style.css").status_code == 200  # nor are assets
    assert client.get("/no/such/page").status_code == 429  # unknown URLs count like the rest
    # Another client address has its own window.
    assert client.get("/api/search", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200

    monkeypatch.setenv("PAPERSEARCH_RATE_LIMIT", "2/minute")
    client = create_app(cluster.settings(web_alias)).test_client()
    assert [client.get("/healthz").status_code for _ in range(5)] == [200] * 5
    assert [client.get("/api/suggest?q=ab").status_code for _ in range(3)] == [200, 200, 429]


def test_rate_limit_storage_comes_from_the_settings(cluster, web_alias):
    settings = cluster.settings(web_alias, PAPERSEARCH_RATE_LIMIT_STORAGE="nosuchstore://x")
    with pytest.raises(ConfigurationError, match="nosuchstore"):
        create_app(settings, rate_limit="5/minute")
    settings = cluster.settings(web_alias, PAPERSEARCH_RATE_LIMIT_STORAGE="memory://")
    assert create_app(settings, rate_limit="5/minute").test_client().get("/api/search").status_code == 200


def test_web_identity_cannot_write_or_delete(cluster, web_alias):
    web = cluster.client("web")
    with pytest.raises(AuthorizationException):
        web.index(index=web_alias, id="evil", document={"id": "evil", "title": "x"})
    with pytest.raises(AuthorizationException):
        web.delete(index=web_alias, id="xss-abstract")
    with pytest.raises(AuthorizationException):
        web.update(index=web_alias, id="xss-abstract", doc={"title": "defaced"})
    concrete = next(iter(web.indices.get_alias(name=web_alias)))
    with pytest.raises(AuthorizationException):
        web.indices.delete(index=concrete)
    assert web.count(index=web_alias)["count"] == TOTAL


def test_rate_limit_exemption_is_by_route_not_path_prefix(cluster, web_alias):
    """Issue 45.11: /metricsX, /healthzz were never limited (a raw prefix match), and /readyz, which searches
    the alias, was unlimited."""
    client = create_app(cluster.settings(web_alias), rate_limit="2/minute").test_client()
    assert [client.get("/metricsX").status_code for _ in range(3)] == [404, 404, 429]
    other = {"REMOTE_ADDR": "10.4.5.6"}
    assert [client.get("/readyz", environ_base=other).status_code for _ in range(3)] == [200, 200, 429]
    assert client.get("/healthzz", environ_base={"REMOTE_ADDR": "10.4.5.7"}).status_code == 404
    assert client.get("/static/nosuch/../style.css", environ_base=other).status_code in (200, 404)
    assert [client.get("/healthz", environ_base=other).status_code for _ in range(3)] == [200] * 3
    assert client.get("/metrics", environ_base=other).status_code != 429
