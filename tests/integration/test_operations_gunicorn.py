"""/metrics, the query log and JSON log lines under gunicorn with several workers (config/gunicorn.conf.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from support import free_port, gunicorn, wait_for

WORKERS = 3
QUERIES = ["transformer", "diffusion", "graph neural", "大语言模型", "zzzqqqxxyy", "reinforcement"]


def api_searches(base: str, count: int) -> list[int]:
    """`count` searches from 8 concurrent clients, each on a new connection."""
    def one(i: int) -> int:
        return requests.get(f"{base}/api/search", params={"q": QUERIES[i % len(QUERIES)]}, timeout=20).status_code
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(count)))


def searches_counted(base: str) -> float:
    text = requests.get(f"{base}/metrics", timeout=10).text
    return sum(s.value for family in text_string_to_metric_families(text) for s in family.samples
               if s.name == "papersearch_searches_total" and s.labels == {"source": "api"})


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A folder outside pytest's (closed to other users: /tmp/pytest-of-root is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="papersearch-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def worker_files(directory: Path) -> dict[str, set[str]]:
    """pid (or "archive") → the metric types that have a file for it."""
    out: dict[str, set[str]] = {}
    for path in directory.glob("*.db"):
        kind, _, owner = path.stem.partition("_")
        out.setdefault(owner, set()).add(kind)
    return out


def test_metrics_query_log_and_json_logs_across_workers(cluster, sample_alias, admin, query_log_base, tmp_path,
                                                        reachable_dir):
    metrics_dir = reachable_dir  # the workers write there, as papersearch-web when started as root (D-189)
    (metrics_dir / "counter_999999.db").write_bytes(b"stale")  # a previous run's file: removed at start
    base = query_log_base
    log_path = tmp_path / "gunicorn.log"
    with gunicorn(cluster, sample_alias, log_path, WORKERS, rate_limit="off", PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
                  PAPERSEARCH_LOG_FORMAT="json", PAPERSEARCH_QUERY_LOG="on",
                  PAPERSEARCH_QUERY_LOG_INDEX=base) as (proc, url):
        assert "999999" not in worker_files(metrics_dir)
        assert api_searches(url, 30) == [200] * 30
        assert [searches_counted(url) for _ in range(6)] == [30] * 6  # whichever worker answers

        # Replace every worker that has served: their counts move to the archive, nothing is lost.
        served = {int(owner) for owner in worker_files(metrics_dir) if owner.isdigit()}
        workers = {child.pid for child in psutil.Process(proc.pid).children()}
        assert served and served <= workers
        for pid in served:
            os.kill(pid, signal.SIGTERM)
        def replaced() -> bool:
            alive = {child.pid for child in psutil.Process(proc.pid).children()}
            return len(alive) == WORKERS and not alive & served

        wait_for(replaced, 120, "gunicorn to replace the workers")
        assert api_searches(url, 24) == [200] * 24
        assert [searches_counted(url) for _ in range(6)] == [54] * 6
        files = worker_files(metrics_dir)
        assert "archive" in files and not {str(pid) for pid in served} & set(files)
        assert requests.get(f"{url}/?q=transformer", timeout=10).status_code == 200

        # The query log: every search, from old and new workers (those replaced flushed on exit).
        def logged() -> int:
            if not admin.indices.exists(index=f"{base}-*"):
                return 0
            admin.indices.refresh(index=f"{base}-*")
            return admin.count(index=f"{base}-*")["count"]

        wait_for(lambda: logged() >= 55, 120, "every search in the query log")
        counts = admin.search(index=f"{base}-*", size=0, aggs={"s": {"terms": {"field": "source"}}})
        assert {b["key"]: b["doc_count"] for b in counts["aggregations"]["s"]["buckets"]} == {"api": 54,
                                                                                              "page": 1}
    assert proc.wait(30) == 0  # stopped gracefully by the helper (SIGTERM)

    lines = [line for line in log_path.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert len(set(lines)) == len(lines)  # and none is written twice
    access = [r for r in records if r["logger"] == "gunicorn.access"]
    assert any(r["path"] == "/api/search" and r["status"] == "200" and r["method"] == "GET" for r in access)
    assert any(r["logger"] == "gunicorn.error" and re.search(r"Booting worker", r["message"]) for r in records)
    assert not any("Traceback" in line for line in lines)


def test_metrics_on_a_bind_of_their_own(cluster, sample_alias, tmp_path):
    """PAPERSEARCH_METRICS_BIND: a second address that serves /metrics alone, to whoever reaches it, while the
    site's own address answers /metrics only to PAPERSEARCH_METRICS_ALLOW (here a network loopback is not in)."""
    port = free_port()
    metrics_base = f"http://127.0.0.1:{port}"
    with gunicorn(cluster, sample_alias, tmp_path / "gunicorn.log", workers=2,
                  PAPERSEARCH_METRICS_BIND=f"127.0.0.1:{port}", PAPERSEARCH_METRICS_ALLOW="10.0.0.0/8") as (_, site):
        assert requests.get(f"{site}/api/search?q=graph", timeout=20).status_code == 200
        own = requests.get(f"{metrics_base}/metrics", timeout=10)
        assert own.status_code == 200 and "papersearch_searches_total" in own.text
        refused = requests.get(f"{site}/metrics", timeout=10)
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
        assert requests.get(f"{metrics_base}/api/search?q=graph", timeout=10).status_code == 404  # nothing else
        assert requests.get(f"{metrics_base}/", timeout=10).status_code == 404
