"""The production server: gunicorn with config/gunicorn.conf.py (3 workers) against the real node,
under concurrent load, then a graceful stop."""

from __future__ import annotations

import signal
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import psutil
import pytest
import requests
from support import gunicorn_server

CLIENTS, REQUESTS_EACH = 8, 25
PATHS = [
    "/", "/?q=language+models", "/?q=大语言模型&lang=zh", "/?area=Deep+Learning&size=25",
    "/?q=learning&sort=year&page=2", "/api/search?q=diffusion", "/api/search?area=Theory&sort=title",
    "/api/suggest?q=Hao", "/api/suggest?q=lan", "/healthz", "/readyz", "/api/openapi.json",
]


@pytest.fixture
def server(cluster, sample_alias, tmp_path):
    env = {
        "ES_URL": cluster.url,
        "ES_WEB_USERNAME": cluster.web[0], "ES_WEB_PASSWORD": cluster.web[1],
        "PAPERSEARCH_ALIAS": sample_alias,
        "PAPERSEARCH_RATE_LIMIT": "100000/minute",
    }
    log = tmp_path / "gunicorn.log"
    with gunicorn_server(env, log) as (proc, base):
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
