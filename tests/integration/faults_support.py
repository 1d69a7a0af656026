"""What the fault tests (test_faults.py) share: the admin as a subprocess (held after its first chunk when
the test puts a fault in place), waiting on a build that may be stuck, and bringing a restarted node back
to speed."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import paused_admin
import psutil
from elasticsearch import Elasticsearch
from indexer_support import admin_env
from support import BIN, ROOT, Cluster

from indexer import versions
from webapp import create_app

BLOCK = "index.blocks.read_only_allow_delete"


def admin(local: Cluster, alias: str, tmp: Path, *args: object, paused: bool = False) -> subprocess.Popen:
    """`papersearch-admin ARGS…` as the indexer against `alias` (output captured); `paused`: it stops itself
    right after its first chunk is written (tests/integration/paused_admin.py)."""
    env = admin_env(local, alias, tmp)
    command = paused_admin.command(args) if paused else [str(BIN / "papersearch-admin"), *map(str, args)]
    return subprocess.Popen(command, env=env, cwd=ROOT, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@contextmanager
def paused_build(local: Cluster, alias: str, tmp: Path,
                 source: Path) -> Iterator[tuple[subprocess.Popen, psutil.Process]]:
    """`papersearch-admin reindex SOURCE`, held right after its first chunk is in its new version: (the process,
    its handle to resume it with). Whatever happens in the block, no build is left behind, stopped or not."""
    proc = admin(local, alias, tmp, "reindex", "--no-progress", source, paused=True)
    try:
        yield proc, paused_admin.wait_paused(proc)
    finally:
        end_build(proc)


def end_build(proc: subprocess.Popen) -> None:
    """Kill a build still running, and its producer (stopped or not), and collect its output."""
    if proc.poll() is None:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(proc.pid).children(recursive=True):
                child.kill()
        proc.kill()
        proc.communicate()


def run_admin(local: Cluster, alias: str, tmp: Path, *args: object) -> subprocess.CompletedProcess:
    proc = admin(local, alias, tmp, *args)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def building(es: Elasticsearch, alias: str, old: str) -> str | None:
    """The version a running build writes, once it holds documents."""
    for v in versions.versions(es, alias):
        if v.name != old:
            stats = es.indices.stats(index=v.name, metric="indexing")["_all"]["primaries"]
            return v.name if stats.get("indexing", {}).get("index_total", 0) > 0 else None
    return None


def blocked(es: Elasticsearch, index: str = "*") -> list[str]:
    found = es.options(ignore_status=404).indices.get_settings(index=index, name=BLOCK, flat_settings=True)
    return [name for name, s in (found.body if found.meta.status == 200 else {}).items()
            if s["settings"].get(BLOCK) == "true"]



def indexed(es: Elasticsearch, alias: str, old: str) -> int | None:
    """Documents the running build's version has taken since its node started (None: no such version)."""
    for v in versions.versions(es, alias):
        if v.name != old:
            stats = es.indices.stats(index=v.name, metric="indexing")["_all"]["primaries"]
            return stats.get("indexing", {}).get("index_total", 0)
    return None


def wait_out(proc: subprocess.Popen, es: Elasticsearch, alias: str, old: str, timeout: float) -> tuple[str, str]:
    """The build's output once it ends. Past `timeout` it fails with what tells a slow build from a stuck
    one: the documents written every 10 s, and every thread's stack (papersearch-admin dumps them on SIGUSR1).
    Either way the build is gone afterwards."""
    try:
        return _wait_out(proc, es, alias, old, timeout)
    finally:
        end_build(proc)


def _wait_out(proc: subprocess.Popen, es: Elasticsearch, alias: str, old: str, timeout: float) -> tuple[str, str]:
    started, written = time.monotonic(), []
    while True:
        try:
            return proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            written.append((round(time.monotonic() - started), indexed(es, alias, old)))
        except Exception as exc:  # a node still recovering: the sample says so
            written.append((round(time.monotonic() - started), type(exc).__name__))
        if time.monotonic() - started > timeout:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1)
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"the build still ran after {timeout:g} s; documents written (s, count): "
                                 f"{written}\nstdout:\n{out}\nstderr:\n{err}")


def warm_up(local: Cluster, alias: str) -> None:
    """A node just started answers its first searches slowly, beyond the webapp's 2 s: search until three in a
    row answer, so that whatever runs next meets a node as the suite usually has it."""
    web = create_app(local.settings(alias), rate_limit="off").test_client()
    queries = ["learning", "graph neural networks", "大语言模型", "diffusion"]
    streak, deadline = 0, time.monotonic() + 120
    while streak < 3 * len(queries):
        assert time.monotonic() < deadline, "the restarted node does not answer searches in time"
        streak = streak + 1 if web.get(f"/api/search?q={queries[streak % len(queries)]}").status_code == 200 else 0
