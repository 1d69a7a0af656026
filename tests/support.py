"""Test support shared by the fixtures and the tests of the node's layers (import it as `support`, never `conftest`):
it needs the HTTP client and a node. What needs neither is in nodeless.py, re-exported here; unit tests import that."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from elasticsearch import Elasticsearch
from nodeless import (  # noqa: F401 (re-exported: the node's layers import them from here)
    FIXTURES,
    ROOT,
    SAMPLE,
    SESSION_SEED,
    TEST_SEED,
    drawn,
    free_port,
    read_rejects,
    wait_for,
)

from papersearch.settings import Settings

BIN = Path(sys.executable).parent

TAXONOMY = json.loads((ROOT / "config" / "taxonomy.json").read_text(encoding="utf-8"))


@dataclass
class Cluster:
    url: str
    admin: tuple[str, str]
    indexer: tuple[str, str]
    web: tuple[str, str]
    kind: str  # "ES_URL", "testcontainers" or "local node"

    def client(self, who: str = "admin", **kwargs) -> Elasticsearch:
        auth = {"admin": self.admin, "indexer": self.indexer, "web": self.web}[who]
        return Elasticsearch(self.url, basic_auth=auth, request_timeout=30, **kwargs)

    def settings(self, alias: str, **overrides) -> Settings:
        """Settings as the indexer and webapp would read them from the environment."""
        return Settings(
            ES_URL=self.url,
            ES_USERNAME=self.indexer[0], ES_PASSWORD=self.indexer[1],
            ES_WEB_USERNAME=self.web[0], ES_WEB_PASSWORD=self.web[1],
            PAPERSEARCH_ALIAS=alias,
            # Off unless a test turns it on (tests/integration/test_querylog*.py, the click beacon's browser test).
            # The public address is the test client's own (Flask's test client says `Host: localhost`).
            **({"PAPERSEARCH_QUERY_LOG": "off", "PAPERSEARCH_PUBLIC_URL": "http://localhost"} | overrides),
        )


def delete_alias_indices(admin: Elasticsearch, name: str) -> None:
    # Wildcard deletes are refused (action.destructive_requires_name): delete by name.
    names = list(admin.indices.get(index=f"{name}*", allow_no_indices=True, expand_wildcards="all"))
    if names:
        admin.indices.delete(index=",".join(names))


def build_alias(cluster: Cluster, alias: str, sources: list[Path], **settings_overrides):
    """Load files through the real indexer (full reindex) behind `alias`; returns the BuildReport."""
    from indexer import operations
    from indexer.loading.rejects import RejectsWriter

    with RejectsWriter(None) as rejects:
        return operations.reindex(cluster.client("indexer"), cluster.settings(alias, **settings_overrides),
                                  sources, rejects, progress=False)


def synthetic(path: Path, n: int, prefix: str = "syn") -> Path:
    """n distinct papers with explicit ids, streamed to disk."""
    words = ["sparse", "attention", "graph", "kernel", "bayesian", "transformer", "diffusion", "gradient",
             "optimal", "transport", "contrastive", "federated", "quantized", "robust", "causal", "spectral"]
    subareas = [(a["name"], s["name"]) for a in TAXONOMY["areas"] for s in a.get("subareas", [])]
    rnd = random.Random(n)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            area, sub = subareas[i % len(subareas)]
            record = {
                "id": f"{prefix}{i:07d}",
                "title": f"{prefix} {i}: " + " ".join(rnd.choices(words, k=4)),
                "abstract": " ".join(rnd.choices(words, k=16)),
                "authors": [f"Author {i % 997}", f"Coauthor {i % 89}"],
                "topic_area": area, "topic_subarea": sub, "year": 1990 + i % 35,
            }
            f.write(json.dumps(record) + "\n")
    return path


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@contextmanager
def loaded_alias(cluster: Cluster, prefix: str, sources: list[Path], **settings_overrides) -> Iterator[tuple[str, Any]]:
    """A fresh alias `<prefix>_<random>` built from `sources` by the real indexer; (name, BuildReport).
    Its indices are deleted afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    try:
        yield name, build_alias(cluster, name, sources, **settings_overrides)
    finally:
        delete_alias_indices(cluster.client("admin"), name)


def next_millisecond() -> None:
    """Wait until the added-date clock (papersearch.added, to the millisecond) has moved on, so that whatever is
    stamped after this is later than whatever was stamped before."""
    from papersearch import added

    now = added.stamp()
    wait_for(lambda: added.stamp() != now, 10, "the next millisecond", interval=0.001)


def poll_http(url: str, timeout: float, auth: tuple[str, str] | None = None, interval: float = 1.0) -> str | None:
    """GET `url` until it answers 200 or `timeout` passes: None when it did, else the last answer or error."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            r = requests.get(url, auth=auth, timeout=10)
            if r.status_code == 200:
                return None
            last = f"{r.status_code} {r.text[:200]}"
        except requests.RequestException as exc:
            last = str(exc)
        time.sleep(interval)
    return last


def compose_binary() -> list[str]:
    """Compose v2 as scripts/compose-v2.sh makes it available (kept, built or taken from Debian's package):
    the command on its last line."""
    proc = subprocess.run([str(ROOT / "scripts" / "compose-v2.sh")], cwd=ROOT, capture_output=True, text=True,
                          timeout=2400)
    assert proc.returncode == 0, f"Compose v2 could not be had:\n{proc.stderr[-3000:]}"
    last = proc.stdout.strip().splitlines()[-1]
    return last.split() if last.endswith(" compose") else [last]


@contextmanager
def gunicorn_server(env: dict[str, str], log_path: Path, workers: int = 3) -> Iterator[tuple[subprocess.Popen, str]]:
    """The production server: gunicorn with config/gunicorn.conf.py on a free loopback port, ready (/readyz 200)
    when yielded as (process, base URL); stopped with SIGTERM afterwards. `env` adds to the environment
    (ES_URL, identity, alias, …); the query log is off unless `env` turns it on."""
    port = free_port()
    env = os.environ | {"PAPERSEARCH_BIND": f"127.0.0.1:{port}", "PAPERSEARCH_QUERY_LOG": "off"} | env
    with log_path.open("w+") as log:
        proc = subprocess.Popen([str(BIN / "gunicorn"), "-c", "config/gunicorn.conf.py", "--workers", str(workers)],
                                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120  # a ceiling: workers boot in seconds, slower on a loaded machine
            while True:
                assert proc.poll() is None, f"gunicorn exited: {log_path.read_text()}"
                try:
                    if requests.get(base + "/readyz", timeout=5).status_code == 200:
                        break
                except requests.RequestException:  # not listening yet, or workers still booting
                    pass
                assert time.monotonic() < deadline, f"gunicorn not ready: {log_path.read_text()}"
                time.sleep(0.2)
            yield proc, base
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def gunicorn(cluster: Cluster, alias: str, log_path: Path, workers: int, rate_limit: str = "100000/minute",
             **env: str) -> contextlib.AbstractContextManager[tuple[subprocess.Popen, str]]:
    """gunicorn_server serving `alias` of the test cluster as the web user."""
    return gunicorn_server({
        "ES_URL": cluster.url,
        "ES_WEB_USERNAME": cluster.web[0], "ES_WEB_PASSWORD": cluster.web[1],
        "PAPERSEARCH_ALIAS": alias,
        "PAPERSEARCH_RATE_LIMIT": rate_limit,
        **env,
    }, log_path, workers)


# --- local instances of their own, started in the background when the session begins -----------------------------

FAILOVER_INSTANCE = "failover"  # the failover tests' 3-node cluster
DISASTER_INSTANCE = "disaster"  # the backup tests' node whose disk is lost (test_backup_disaster.py)
_background_starts: dict[str, subprocess.Popen] = {}


def instance_env(instance: str = FAILOVER_INSTANCE, **extra: str) -> dict[str, str]:
    return os.environ | {"PAPERSEARCH_NODE_INSTANCE": instance, **extra}


def failover_env() -> dict[str, str]:
    return instance_env(FAILOVER_INSTANCE)


def start_in_background(instance: str, nodes: int, **env: str) -> None:
    """Begin `papersearch-node start --nodes N` of `instance` while the rest of the suite runs."""
    from papersearch.paths import local_dir

    log = local_dir() / f"{instance}-start.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as sink:
        _background_starts[instance] = subprocess.Popen(
            [str(Path(sys.executable).with_name("papersearch-node")), "start", "--nodes", str(nodes)],
            cwd=ROOT, env=instance_env(instance, **env), stdout=sink, stderr=subprocess.STDOUT,
            start_new_session=True)


def wait_started(instance: str, timeout: float = 600) -> None:
    if instance in _background_starts:
        _background_starts[instance].wait(timeout)


def wait_failover_start(timeout: float = 600) -> None:
    wait_started(FAILOVER_INSTANCE, timeout)


# --- a visitor of the search page ---------------------------------------------------------------------------------


def visit(base: str, searches: dict[str, int], clicks: list[int]) -> int:
    """Page searches (query → how often), each followed by a result click at the next of `clicks` (through the
    page's beacon, with the query id the page handed out); the number of clicks sent."""
    positions = iter(clicks)
    sent = 0
    with requests.Session() as http:
        for query, times in searches.items():
            for _ in range(times):
                page = http.get(f"{base}/", params={"q": query}, timeout=20)
                assert page.status_code == 200
                token = re.search(r'data-query-id="([^"]+)"', page.text).group(1)
                papers = re.findall(r'data-paper-id="([^"]+)"', page.text)
                position = next(positions)
                beacon = {"type": "click", "query_id": token, "position": position, "paper_id": papers[position - 1]}
                assert http.post(f"{base}/api/events", json=beacon, timeout=20).status_code == 204
                sent += 1
    return sent
