"""Measuring processes during a benchmark: the local node's JVM, CPU seconds, peak RSS of a process tree."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Sequence
from typing import Protocol

import psutil

from bench.common import ROOT


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


def es_process() -> psutil.Process | None:
    """The local node's JVM (None when benchmarking a cluster given by ES_URL)."""
    state = ROOT / ".local" / "node-state.json"
    if os.environ.get("ES_URL") or not state.exists():
        return None
    home = json.loads(state.read_text()).get("home", "")
    for proc in psutil.process_iter(["name", "cmdline"]):
        if home and "java" in (proc.info["name"] or "") and any(home in a for a in proc.info["cmdline"] or []):
            return proc
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
