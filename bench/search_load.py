"""The search benchmark's load: a gunicorn of our own, closed-loop client threads, and the two targets
(a) /api/search and (b) the same bodies sent straight to Elasticsearch (bench/search.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psutil
import requests

from bench import common
from bench.common import DATA_DIR, ROOT, VENV_BIN, WEB_USER, es_url, identity, percentile, session
from bench.processes import cpu_seconds, es_process
from bench.search_mix import QUERY_MIX, service_requests

# --- gunicorn ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gunicorn:
    def __init__(self, alias: str, workers: int | None = None, env: dict[str, str] | None = None,
                 name: str = "gunicorn") -> None:
        self.alias = alias
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        # The query log (on by default) goes to the benchmark's own daily indices, deleted afterwards.
        self.env = {"PAPERSEARCH_QUERY_LOG_INDEX": common.BENCH_QUERY_LOG, **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.log_path = DATA_DIR / f"{name}.log"

    def __enter__(self) -> Gunicorn:
        user, password = identity(WEB_USER)
        # ES_URL as given: every node of a cluster (the raw baseline uses the first one).
        env = {**os.environ, "ES_URL": os.environ.get("ES_URL") or es_url(),
               "ES_WEB_USERNAME": user, "ES_WEB_PASSWORD": password,
               "PAPERSEARCH_ALIAS": self.alias, "PAPERSEARCH_BIND": f"127.0.0.1:{self.port}",
               "PAPERSEARCH_RATE_LIMIT": "off", **self.env}
        if self.workers:
            env["PAPERSEARCH_WORKERS"] = str(self.workers)
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("w")
        self.proc = subprocess.Popen([str(VENV_BIN / "gunicorn"), "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"],
                                     cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited ({self.proc.returncode}): {self.log_path.read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        self.__exit__()
        raise RuntimeError(f"gunicorn not ready on {self.url}: {self.log_path.read_text()[-2000:]}")

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # only the process we started
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


# --- load generation --------------------------------------------------------------------------------


@dataclass
class Phase:
    target: str
    clients: int
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # CPU seconds used meanwhile by gunicorn (master and workers) and by the local node (CpuMeter)
    cpu: dict[str, float] = field(default_factory=dict)

    def merge(self, other: Phase) -> None:
        self.latencies_ms += other.latencies_ms
        self.errors += other.errors
        self.error_samples = (self.error_samples + other.error_samples)[:5]
        self.seconds += other.seconds
        for name, value in other.cpu.items():
            self.cpu[name] = self.cpu.get(name, 0.0) + value

    def stats(self) -> dict:
        lat = sorted(self.latencies_ms)
        n = len(lat)
        return {
            "requests": n, "errors": self.errors,
            "p50_ms": round(percentile(lat, 50), 2), "p95_ms": round(percentile(lat, 95), 2),
            "p99_ms": round(percentile(lat, 99), 2), "mean_ms": round(sum(lat) / n, 2) if n else None,
            "req_per_s": round(n / self.seconds, 1) if self.seconds else None,
            # CPU per request of each process group: shows the web layer's cost even on a shared machine
            **{f"{name}_cpu_ms_per_req": round(1000 * value / n, 2) for name, value in self.cpu.items() if n},
            "error_samples": self.error_samples,
        }


class CpuMeter:
    """CPU seconds (user + system) of our gunicorn, its live workers and the ones it has reaped, and of the
    local node's JVM (absent when ES_URL names another cluster)."""

    def __init__(self, server: Gunicorn) -> None:
        self.gunicorn = psutil.Process(server.proc.pid) if server.proc else None
        self.es = es_process()

    def sample(self) -> dict[str, float]:
        out: dict[str, float] = {}
        try:
            if self.gunicorn is not None:
                t = self.gunicorn.cpu_times()
                total = t.user + t.system + t.children_user + t.children_system
                for child in self.gunicorn.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        c = child.cpu_times()
                        total += c.user + c.system
                out["gunicorn"] = total
            es = cpu_seconds(self.es)
            if es is not None:
                out["es"] = es
        except psutil.Error:
            pass
        return out

    def measure(self, phase: Callable[[], Phase]) -> Phase:
        before = self.sample()
        result = phase()
        after = self.sample()
        result.cpu = {name: after[name] - before[name] for name in after if name in before}
        return result


class Target:
    name = ""
    mix: list[tuple[str, dict[str, Any]]] = QUERY_MIX

    def make_session(self) -> requests.Session:
        raise NotImplementedError

    def call(self, s: requests.Session, i: int) -> str | None:
        """Run query i; None on success, else an error description."""
        raise NotImplementedError


class Api(Target):
    name = "api"

    def __init__(self, base: str, mix: list[tuple[str, dict[str, Any]]] = QUERY_MIX) -> None:
        self.base = base
        self.mix = mix
        self.params = [p for _, p in mix]

    def make_session(self) -> requests.Session:
        return requests.Session()

    def call(self, s: requests.Session, i: int) -> str | None:
        r = s.get(f"{self.base}/api/search", params=self.params[i], timeout=30)
        if r.status_code != 200:
            return f"HTTP {r.status_code}: {r.text[:200]}"
        return None


class Direct(Target):
    name = "direct"

    def __init__(self, alias: str, mix: list[tuple[str, dict[str, Any]]] = QUERY_MIX) -> None:
        self.base = es_url()
        self.mix = mix
        self.requests = [[(r.method, r.path, *r.encoded()) for r in service_requests(alias, p)] for _, p in mix]

    def make_session(self) -> requests.Session:
        return session(WEB_USER)

    def call(self, s: requests.Session, i: int) -> str | None:
        for method, path, body, content_type in self.requests[i]:
            r = s.request(method, self.base + path, data=body, headers={"Content-Type": content_type}, timeout=30)
            if r.status_code != 200:
                return f"HTTP {r.status_code}: {r.text[:200]}"
            head = r.content[:300]
            if b'"timed_out":true' in head or b'"failed":0' not in head:
                return f"partial: {head[:200]!r}"
        return None


def run_phase(target: Target, clients: int, max_requests: int, max_seconds: float) -> Phase:
    phase = Phase(target.name, clients)
    lock = threading.Lock()
    counter = iter(range(max_requests))
    deadline = time.perf_counter() + max_seconds
    n_queries = len(target.mix)

    def worker(offset: int) -> None:
        s = target.make_session()
        local: list[float] = []
        errors: list[str] = []
        try:
            while time.perf_counter() < deadline:
                with lock:
                    k = next(counter, None)
                if k is None:
                    break
                i = (k + offset) % n_queries
                t0 = time.perf_counter()
                try:
                    err = target.call(s, i)
                except requests.RequestException as exc:
                    err = f"{type(exc).__name__}: {exc}"
                local.append((time.perf_counter() - t0) * 1000)
                if err:
                    errors.append(f"{target.mix[i][1]}: {err}")
        finally:
            s.close()
            with lock:
                phase.latencies_ms += local
                phase.errors += len(errors)
                phase.error_samples = (phase.error_samples + errors)[:5]

    threads = [threading.Thread(target=worker, args=(t * 7,)) for t in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.perf_counter() - started
    return phase
