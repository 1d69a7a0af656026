"""Shared bits of the benchmark scripts: the node's URL and identities, HTTP sessions, cleanup, machine."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import requests

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
DATA_DIR = ROOT / ".local" / "bench"
RESULTS_DIR = ROOT / "bench" / "results"
PREFIX = "papersbench_"  # every alias/index the benchmarks create starts with this (the roles cover papers*)

BENCH_QUERY_LOG = "papersearch-querylog-bench"  # the webapps the benchmarks start log here, not in the site's log

INDEXER_USER = "papersearch_indexer"
WEB_USER = "papersearch_web"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def es_url() -> str:
    """One node's URL (the first of a comma-separated ES_URL): where the raw baselines send requests."""
    if os.environ.get("ES_URL"):
        return os.environ["ES_URL"].split(",")[0].strip().rstrip("/")
    state = ROOT / ".local" / "node-state.json"
    return json.loads(state.read_text())["url"].rstrip("/")


def credentials() -> dict[str, str]:
    return json.loads((ROOT / ".local" / "credentials.json").read_text())


def identity(user: str) -> tuple[str, str]:
    """(user, password) from the environment (ES_USERNAME/ES_PASSWORD, ES_WEB_*) or the local node's file."""
    if user == INDEXER_USER and os.environ.get("ES_USERNAME"):
        return os.environ["ES_USERNAME"], os.environ.get("ES_PASSWORD", "")
    if user == WEB_USER and os.environ.get("ES_WEB_USERNAME"):
        return os.environ["ES_WEB_USERNAME"], os.environ.get("ES_WEB_PASSWORD", "")
    return user, credentials()[user]


def session(user: str) -> requests.Session:
    import requests  # here: the modules that import this one are unit-tested without the HTTP client (D-216)

    s = requests.Session()
    s.auth = identity(user)
    s.headers["Content-Type"] = "application/json"
    return s


def require_node() -> None:
    """Stop with a clear message when no node answers: the benchmarks never start, stop or reset one."""
    import requests

    try:
        r = session(INDEXER_USER).get(f"{es_url()}/_cluster/health", timeout=5)
        if r.ok:
            return
        problem = f"answers {r.status_code}"
    except FileNotFoundError as exc:
        problem = f"has no state ({exc.filename})"
    except (requests.RequestException, KeyError, ValueError) as exc:
        problem = f"does not answer ({type(exc).__name__})"
    sys.exit(f"bench: the Elasticsearch node {problem}. Start the project's node first (`make node`, or "
             f"`.venv/bin/papersearch-node start`), or point ES_URL at a running one.")


def delete_indices(pattern: str) -> list[str]:
    """Delete our own indices matching pattern (must start with PREFIX); aliases on them go too."""
    if not pattern.startswith(PREFIX):
        raise ValueError(f"refusing to delete {pattern!r}: benchmarks only touch {PREFIX}*")
    s = session(INDEXER_USER)
    r = s.get(f"{es_url()}/_cat/indices/{pattern}", params={"format": "json", "h": "index",
                                                             "expand_wildcards": "all"}, timeout=30)
    names = [row["index"] for row in r.json()] if r.ok else []
    names = [n for n in names if n.startswith(PREFIX)]
    for name in names:
        s.delete(f"{es_url()}/{name}", timeout=120).raise_for_status()
    return names


def delete_bench_query_log() -> list[str]:
    """Delete the daily indices of BENCH_QUERY_LOG (the indexer may delete query-log indices)."""
    s = session(INDEXER_USER)
    r = s.get(f"{es_url()}/_resolve/index/{BENCH_QUERY_LOG}-*", timeout=30)
    names = [i["name"] for i in r.json().get("indices", [])] if r.ok else []
    for name in names:
        s.delete(f"{es_url()}/{name}", timeout=60).raise_for_status()
    return names


def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*(.+)$", cpuinfo, re.M)
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    mem = re.search(r"^MemTotal:\s*(\d+) kB", meminfo, re.M)
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "cpu_model": model.group(1).strip() if model else platform.processor(),
        "cpu_mhz": float(mhz.group(1)) if mhz else None,
        "ram_gb": round(int(mem.group(1)) / 1024 / 1024, 1) if mem else None,
        "kernel": platform.release(),
        "python": platform.python_version(),
    }
    try:
        s = session(INDEXER_USER)
        root = s.get(f"{es_url()}/_nodes/jvm,plugins", timeout=10).json()
        node = next(iter(root["nodes"].values()))
        info["es_version"] = node.get("version")
        info["es_heap_max_mb"] = round(node["jvm"]["mem"]["heap_max_in_bytes"] / 1024 / 1024)
        info["es_plugins"] = [p["name"] for p in node.get("plugins", [])]
    except Exception as exc:  # the node info is nice to have, not essential
        info["es_error"] = str(exc)
    with contextlib.suppress(OSError):
        info["loadavg_at_start"] = os.getloadavg()
    return info


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, round(p / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[k]


def wait_healthy(timeout: float = 300.0) -> None:
    """Block until the node answers cluster health (other work on this machine may restart it)."""
    import requests

    deadline = time.monotonic() + timeout
    s = session(INDEXER_USER)
    warned = False
    while True:
        try:
            r = s.get(f"{es_url()}/_cluster/health", params={"wait_for_status": "yellow", "timeout": "10s"},
                      timeout=15)
            if r.ok and r.json().get("status") in ("green", "yellow"):
                return
        except requests.RequestException:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"Elasticsearch at {es_url()} not healthy after {timeout:.0f}s")
        if not warned:
            log("waiting for Elasticsearch to come back (restarted by someone else?)")
            warned = True
        time.sleep(3)


def retrying(what: str, fn, attempts: int = 3):
    """Run fn(); if the node vanished mid-run (connection refused/reset), wait for it and run again."""
    for attempt in range(1, attempts + 1):
        wait_healthy()
        try:
            return fn()
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            transient = any(s in text for s in ("Connection refused", "ConnectionError", "Connection reset",
                                                 "RemoteDisconnected", "cannot reach Elasticsearch",
                                                 "BrokenPipe", "ConnectionRefused", "503", "no_shard_available"))
            if attempt == attempts or not transient:
                raise
            log(f"{what}: attempt {attempt} hit a node outage ({text[:160]}); retrying")
            time.sleep(5)
    raise AssertionError("unreachable")


@contextlib.contextmanager
def without_tagging():
    """The indexer as it would be without the glossary: a matcher over no concepts (bench/indexing.py --no-tags)."""
    from unittest import mock

    from papersearch import concepts
    from papersearch.concepts.glossary import Glossary

    empty = concepts.ConceptMatcher(Glossary(()))
    with mock.patch.object(concepts, "matcher", lambda *a: empty):
        yield
