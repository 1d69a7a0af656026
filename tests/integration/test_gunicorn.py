"""The production server: gunicorn with config/gunicorn.conf.py (3 workers) against the real node,
under concurrent load, then a graceful stop."""

from __future__ import annotations

import http.client
import os
import pwd
import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
import requests
from support import gunicorn, gunicorn_server

from provisioning import webuser
from webapp.server import HEAD_TIMEOUT

CLIENTS, REQUESTS_EACH = 8, 25
PATHS = [
    "/", "/?q=language+models", "/?q=大语言模型&lang=zh", "/?area=Deep+Learning&size=25",
    "/?q=learning&sort=year&page=2", "/api/search?q=diffusion", "/api/search?area=Theory&sort=title",
    "/api/suggest?q=Hao", "/api/suggest?q=lan", "/healthz", "/readyz", "/api/openapi.json",
]


@pytest.fixture
def server(cluster, sample_alias, tmp_path):
    log = tmp_path / "gunicorn.log"
    with gunicorn(cluster, sample_alias, log, workers=3) as (proc, base):
        yield proc, base, log


def client_run(base: str, offset: int) -> Counter:
    statuses: Counter = Counter()
    with requests.Session() as session:
        for i in range(REQUESTS_EACH):
            path = PATHS[(offset + i) % len(PATHS)]
            try:
                r = session.get(base + path, timeout=10)
                statuses[r.status_code] += 1
            except requests.RequestException as exc:
                statuses[type(exc).__name__] += 1
    return statuses


def test_gunicorn_serves_concurrent_clients_without_errors(server):
    proc, base, log = server
    workers = psutil.Process(proc.pid).children()
    assert len(workers) == 3

    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(lambda n: client_run(base, n), range(CLIENTS)))
    total: Counter = Counter()
    for statuses in results:
        total.update(statuses)
    assert total == Counter({200: CLIENTS * REQUESTS_EACH}), total

    r = requests.get(base + "/?q=learning", timeout=5)
    assert r.headers["Content-Security-Policy"].startswith("default-src 'self'")

    # Graceful stop: SIGTERM, workers finish, exit status 0.
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    text = log.read_text()
    assert '"GET /api/search?q=diffusion HTTP/1.1" 200' in text  # access log on stdout
    assert "Traceback" not in text


def test_a_stopping_worker_closes_kept_alive_connections_at_once(server):
    """SIGTERM (a restart, a rolling update): a connection kept alive after its answer is closed by the worker at
    once, not held until its HEAD_TIMEOUT passes, so the server is gone in about a second."""
    proc, base, _ = server
    host, port = base.removeprefix("http://").split(":")
    kept = http.client.HTTPConnection(host, int(port), timeout=10)
    kept.request("GET", "/healthz")
    answer = kept.getresponse()
    assert answer.status == 200 and answer.getheader("Connection") != "close"
    answer.read()  # the connection now waits for its next request
    stopping = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    kept.sock.settimeout(HEAD_TIMEOUT / 2)
    assert kept.sock.recv(1) == b"", "the worker wrote to a connection it should have closed"  # a timeout fails too
    assert proc.wait(HEAD_TIMEOUT / 2) == 0
    assert time.monotonic() - stopping < HEAD_TIMEOUT / 2
    kept.close()


def test_over_long_urls_get_our_json_error(server):
    _, base, log = server
    chinese = ("大语言模型的推理加速方法" * 42)[:500]  # the longest query: 4.5 KB percent-encoded
    assert requests.get(base + "/api/search", params={"q": chinese}, timeout=10).status_code == 200
    for path in ("/api/search", "/api/suggest", "/"):
        r = requests.get(base + path, params={"q": "x" * 9000}, timeout=10)
        assert r.status_code == 414, path
        assert r.headers["Content-Type"] == "application/json", path
        assert r.json()["error"] == {"status": 414, "code": "uri_too_long", "message": "The address (URL) is too long."}
        assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert requests.get(base + "/healthz", timeout=5).status_code == 200  # the workers carry on
    assert "Traceback" not in log.read_text()



def _status_ids(pid: int) -> dict[str, list[int]]:
    """Uid, Gid and Groups of a process (/proc/<pid>/status)."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {key: [int(v) for v in value.split()] for key, _, value in (line.partition(":") for line in lines)
            if key in ("Uid", "Gid", "Groups")}


def test_the_workers_do_not_run_as_root(cluster, admin, sample_alias, query_log_base, tmp_path):
    """Started the way `make serve` starts it (as root in CI and on a plain host; on the local node without ES_URL,
    so the web identity comes from .local/credentials.json, which only root may read): the workers run as
    papersearch-web without root's groups (issue 53.10), and search, log and count as before. Started by another
    user, they run as that user."""
    env = {"PAPERSEARCH_ALIAS": sample_alias, "PAPERSEARCH_RATE_LIMIT": "off", "PAPERSEARCH_QUERY_LOG": "on",
           "PAPERSEARCH_QUERY_LOG_INDEX": query_log_base}
    if cluster.kind != "local node":
        env |= {"ES_URL": cluster.url, "ES_WEB_USERNAME": cluster.web[0], "ES_WEB_PASSWORD": cluster.web[1]}
    with gunicorn_server(env, tmp_path / "gunicorn.log", workers=2) as (proc, base):
        assert requests.get(f"{base}/api/search", params={"q": "graph"}, timeout=20).status_code == 200
        metrics = requests.get(f"{base}/metrics", timeout=10).text  # written by the workers, in their folder
        assert 'papersearch_searches_total{source="api"} 1.0' in metrics
        workers = psutil.Process(proc.pid).children()
        assert len(workers) == 2
        for worker in workers:
            ids = _status_ids(worker.pid)
            if os.geteuid() == 0:
                expected = pwd.getpwnam(webuser.NAME)
                assert ids["Uid"] == [expected.pw_uid] * 4 and ids["Gid"] == [expected.pw_gid] * 4, ids
                assert ids["Groups"] == [], ids  # none of root's
            else:
                assert ids["Uid"][0] == os.geteuid()
    assert proc.returncode == 0
    admin.indices.refresh(index=f"{query_log_base}-*")
    assert admin.count(index=f"{query_log_base}-*")["count"] == 1  # the search, logged by a worker on its way out
