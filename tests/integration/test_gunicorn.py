"""The production server: gunicorn with config/gunicorn.conf.py (3 workers) against the real node,
under concurrent load, then a graceful stop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
CLIENTS, REQUESTS_EACH = 8, 25
PATHS = [
    "/", "/?q=language+models", "/?q=大语言模型&lang=zh", "/?area=Deep+Learning&size=25",
    "/?q=learning&sort=year&page=2", "/api/search?q=diffusion", "/api/search?area=Theory&sort=title",
    "/api/suggest?q=Hao", "/api/suggest?q=lan", "/healthz", "/readyz", "/api/openapi.json",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(cluster, sample_alias, tmp_path):
    port = free_port()
    env = os.environ | {
        "ES_URL": cluster.url,
        "ES_WEB_USERNAME": cluster.web[0], "ES_WEB_PASSWORD": cluster.web[1],
        "PAPERSEARCH_ALIAS": sample_alias,
        "PAPERSEARCH_BIND": f"127.0.0.1:{port}",
        "PAPERSEARCH_RATE_LIMIT": "100000/minute",
    }
    log = (tmp_path / "gunicorn.log").open("w+")
    proc = subprocess.Popen([str(GUNICORN), "-c", "config/gunicorn.conf.py", "--workers", "3"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, f"gunicorn exited: {Path(log.name).read_text()}"
            try:
                if requests.get(base + "/readyz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:  # not listening yet, or workers still booting
                pass
            assert time.monotonic() < deadline, f"gunicorn not ready: {Path(log.name).read_text()}"
            time.sleep(0.2)
        yield proc, base, Path(log.name)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


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
