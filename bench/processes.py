"""Measuring processes during a benchmark: the local node's JVM, CPU seconds, peak RSS of a process tree."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import psutil

from bench.common import INDEXER_USER, ROOT, es_url, log, session

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Measured(Protocol):
    docs: int
    es_cpu_s: float | None
    client_cpu_s: float | None


def sample_rss(proc: psutil.Process, peak: list[float], stop: threading.Event) -> None:
    """Peak RSS of the indexer and its children (the producer process) together."""
    while not stop.is_set():
        try:
            rss = proc.memory_info().rss
            for child in proc.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    rss += child.memory_info().rss
            peak[0] = max(peak[0], rss)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            return
        stop.wait(0.02)


def pid_from_state(state: dict, url: str) -> int | None:
    """The pid papersearch-node recorded for the node answering at url: the pid file in the logs folder of the
    state's node with that HTTP port (provisioning/localnode/process.py NodeProcess.pidfile)."""
    port = urlsplit(url).port
    for node in state.get("nodes", []):
        if node.get("http_port") == port and node.get("logs"):
            with contextlib.suppress(OSError, ValueError):
                return int((Path(node["logs"]) / "node.pid").read_text().strip())
    return None


def _reported_pid() -> int | None:
    """The pid the node itself reports (`_nodes/_local/process`: the node the request reaches)."""
    with contextlib.suppress(Exception):
        answer = session(INDEXER_USER).get(f"{es_url()}/_nodes/_local/process", timeout=10).json()
        return int(next(iter(answer["nodes"].values()))["process"]["id"])
    return None


def es_process() -> psutil.Process | None:
    """The JVM of the node the benchmarks send their requests to, by the node's own id: the pid papersearch-node
    recorded for it (.local/node-state.json), else the one the node reports; never the first JVM whose command
    line holds the node's folder (another node's, while a failover test runs one). None for a node on another
    machine, whose CPU this machine cannot read."""
    url = es_url()
    if urlsplit(url).hostname not in LOOPBACK:
        return None
    state = ROOT / ".local" / "node-state.json"
    pid = pid_from_state(json.loads(state.read_text()), url) if state.exists() else None
    for candidate in (pid, _reported_pid()):
        with contextlib.suppress(psutil.Error, TypeError):
            proc = psutil.Process(candidate)
            if "java" in proc.name():
                return proc
    log(f"the node at {url} runs no Java process this user can see: node CPU is not measured")
    return None


def cpu_seconds_exact(proc: psutil.Process | None) -> float | None:
    """CPU seconds of all of a process's threads from the scheduler's own accounting (/proc/PID/task/*/schedstat,
    nanoseconds), not the 10 ms ticks of cpu_seconds: what one search costs the node can be read off a few
    runs. Falls back to cpu_seconds where schedstat is absent."""
    if proc is None:
        return None
    total = 0
    try:
        for task in os.scandir(f"/proc/{proc.pid}/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(open(f"{task.path}/schedstat").read().split()[0])  # noqa: SIM115
    except OSError:
        return cpu_seconds(proc)
    return total / 1e9 if total else cpu_seconds(proc)


def cpu_seconds(proc: psutil.Process | None) -> float | None:
    if proc is None:
        return None
    try:
        times = proc.cpu_times()
    except psutil.Error:
        return None
    return times.user + times.system


def cpu_per_doc(runs: Sequence[Measured]) -> dict[str, float] | None:
    """Median CPU µs per document of Elasticsearch and of the client over the runs of one kind."""
    es = sorted(r.es_cpu_s / r.docs * 1e6 for r in runs if r.es_cpu_s is not None and r.docs)
    client = sorted(r.client_cpu_s / r.docs * 1e6 for r in runs if r.client_cpu_s is not None and r.docs)
    if not es or not client:
        return None
    return {"es": round(es[len(es) // 2], 1), "client": round(client[len(client) // 2], 1)}
