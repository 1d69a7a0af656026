"""Soak: the real-corpus search mix at a steady rate through gunicorn for minutes, watching for errors, latency
drift and memory growth (a bench script, not a timed test).

    nice -n 10 .venv/bin/python -m bench.soak --corpus ../shared/corpora/ml-papers-iclr.jsonl.gz \\
        --corpus ../shared/corpora/csl-zh-dev.jsonl.gz [--minutes 10] [--rate 20] [--clients 4] [--workers N]
        [--per-kind 30] [--seed 13] [--recycle] [--out FILE]

1. Loads the corpus files (taken by path; a missing one is skipped, none at all is an error) into
   papersbench_real_soak with papersearch-admin (reused when it already holds exactly those papers).
2. The mix: bench/search_mix.py's QUERY_MIX (terms, phrases, authors, Chinese, facets, deep pages, sorts,
   typos, browse) and known-item queries drawn from the corpora (titles, title words and typos, authors,
   abstract windows; Chinese titles, keywords and abstract windows; bench/relevance/known_items.py), shuffled
   with the seed.
3. gunicorn with config/gunicorn.conf.py (query log on, into the benchmarks' own log), without worker recycling
   (--max-requests 0) so that a leak shows instead of being reset by a worker's restart; --recycle keeps the
   configuration's max_requests.
4. Open loop: request k is due at start + k / rate, whoever of the client threads is free sends it (a late
   request is counted as late, and sent at once); at the end of the time what could not be sent is counted
   as unsent (the stack did not keep up with the rate).
5. Every 5 s: the RSS of each gunicorn worker and the node's heap (GET _nodes/stats/jvm). The heap after GC is
   the lowest heap use seen in each minute (the trough after a collection), and the old generation's use.
6. Per minute: requests, errors, late, p50/p95 latency, worker RSS (sum and largest) and heap after GC; at the
   end the growth from the first to the last minute. Exit status 1 when any request failed or went unsent.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil
import requests

from bench.common import (
    INDEXER_USER,
    RESULTS_DIR,
    delete_bench_query_log,
    ensure_node,
    es_url,
    log,
    machine,
    percentile,
    session,
)
from bench.relevance import known_items as ki
from bench.relevance.corpora import ALIAS_PREFIX, ensure_loaded, read_jsonl
from bench.search_load import Gunicorn
from bench.search_mix import QUERY_MIX

ALIAS = f"{ALIAS_PREFIX}soak"
SAMPLE_EVERY = 5.0  # seconds between memory samples


def query_mix(corpora: list[Path], per_kind: int, seed: int) -> list[dict[str, Any]]:
    """URL parameters of every search in the mix, in a seeded random order."""
    items: list[dict[str, Any]] = [dict(params) for _, params in QUERY_MIX]
    for path in corpora:
        papers = read_jsonl(path)
        chinese = sum(1 for p in papers if p.get("title_zh")) > len(papers) / 2
        found = ki.chinese_items(papers, per_kind, seed) if chinese else ki.english_items(papers, per_kind, seed)
        items += [{"q": item["q"]} for item in found]
    random.Random(seed).shuffle(items)
    return items


@dataclass
class Minute:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    late: int = 0
    rss_mb: list[tuple[float, float]] = field(default_factory=list)  # (sum over workers, largest worker)
    heap_mb: list[float] = field(default_factory=list)
    old_gen_mb: list[float] = field(default_factory=list)
    workers: set[int] = field(default_factory=set)

    def row(self, number: int) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        return {"minute": number, "requests": len(lat) + self.errors, "errors": self.errors, "late": self.late,
                "p50_ms": round(percentile(lat, 50), 1) if lat else None,
                "p95_ms": round(percentile(lat, 95), 1) if lat else None,
                "worker_rss_mb": round(self.rss_mb[-1][0], 1) if self.rss_mb else None,
                "largest_worker_rss_mb": round(self.rss_mb[-1][1], 1) if self.rss_mb else None,
                "heap_after_gc_mb": round(min(self.heap_mb), 1) if self.heap_mb else None,
                "old_gen_mb": round(self.old_gen_mb[-1], 1) if self.old_gen_mb else None,
                "worker_pids": sorted(self.workers)}


class Soak:
    def __init__(self, base: str, gunicorn_pid: int, mix: list[dict[str, Any]], rate: float, minutes: float) -> None:
        self.base, self.mix, self.rate = base, mix, rate
        self.master = psutil.Process(gunicorn_pid)
        self.minutes = [Minute() for _ in range(max(1, int(minutes + 0.999)))]
        self.total = int(minutes * 60 * rate)
        self.seconds = minutes * 60
        self.next = 0
        self.unsent = 0
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.es = session(INDEXER_USER)
        self.start = 0.0

    def _minute(self, at: float) -> Minute:
        return self.minutes[min(len(self.minutes) - 1, int((at - self.start) // 60))]

    def client(self) -> None:
        with requests.Session() as http:
            while True:
                with self.lock:
                    k = self.next
                    if k >= self.total:
                        return
                    if time.monotonic() - self.start >= self.seconds:  # time is up: the rest cannot be sent
                        self.unsent, self.next = self.total - k, self.total
                        return
                    self.next += 1
                due = self.start + k / self.rate
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                sent = time.monotonic()
                error = None
                try:
                    r = http.get(f"{self.base}/api/search", params=self.mix[k % len(self.mix)], timeout=30)
                    if r.status_code != 200:
                        error = f"HTTP {r.status_code}: {r.text[:200]}"
                except requests.RequestException as exc:
                    error = f"{type(exc).__name__}: {exc}"
                took = (time.monotonic() - sent) * 1000
                with self.lock:
                    minute = self._minute(sent)
                    minute.late += wait < -0.25  # a quarter of a second behind the schedule
                    if error:
                        minute.errors += 1
                        self.errors.append(error)
                    else:
                        minute.latencies_ms.append(took)

    def sampler(self, stop: threading.Event) -> None:
        while not stop.wait(SAMPLE_EVERY):
            now = time.monotonic()
            rss: list[float] = []
            pids: set[int] = set()
            for worker in self.master.children():
                try:
                    rss.append(worker.memory_info().rss / 2**20)
                    pids.add(worker.pid)
                except psutil.Error:
                    continue
            heap = old = None
            try:
                stats = self.es.get(f"{es_url()}/_nodes/stats/jvm", timeout=10).json()["nodes"]
                jvm = next(iter(stats.values()))["jvm"]["mem"]
                heap = jvm["heap_used_in_bytes"] / 2**20
                old = jvm["pools"].get("old", {}).get("used_in_bytes", 0) / 2**20
            except (requests.RequestException, KeyError, ValueError, StopIteration):
                pass
            with self.lock:
                minute = self._minute(now)
                if rss:
                    minute.rss_mb.append((sum(rss), max(rss)))
                minute.workers |= pids
                if heap is not None:
                    minute.heap_mb.append(heap)
                    minute.old_gen_mb.append(old or 0.0)

    def run(self, clients: int) -> list[dict[str, Any]]:
        self.start = time.monotonic()
        stop = threading.Event()
        sampler = threading.Thread(target=self.sampler, args=(stop,), daemon=True)
        sampler.start()
        threads = [threading.Thread(target=self.client) for _ in range(clients)]
        for t in threads:
            t.start()
        shown = 0
        while any(t.is_alive() for t in threads):
            time.sleep(1)
            done = int((time.monotonic() - self.start) // 60)
            while shown < min(done, len(self.minutes)):
                log(_line(self.minutes[shown].row(shown + 1)))
                shown += 1
        stop.set()
        sampler.join(SAMPLE_EVERY + 15)
        rows = [m.row(i + 1) for i, m in enumerate(self.minutes)]
        for row in rows[shown:]:
            log(_line(row))
        return rows


def _line(row: dict[str, Any]) -> str:
    return (f"minute {row['minute']:>2}: {row['requests']} requests, {row['errors']} errors, {row['late']} late, "
            f"p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, workers {row['worker_rss_mb']} MB RSS "
            f"(largest {row['largest_worker_rss_mb']}), node heap after GC {row['heap_after_gc_mb']} MB")


def growth(rows: list[dict[str, Any]], key: str) -> dict[str, float | None]:
    """From the first minute to the last (the first is also the warm-up, so it is reported, not skipped)."""
    values = [r[key] for r in rows if r[key] is not None]
    if len(values) < 2:
        return {"first": None, "last": None, "mb": None, "percent": None}
    first, last = values[0], values[-1]
    return {"first": first, "last": last, "mb": round(last - first, 1),
            "percent": round(100 * (last - first) / first, 1) if first else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", required=True, help="a real corpus file (repeatable)")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=20.0, help="searches per second, steady (default 20)")
    parser.add_argument("--clients", type=int, default=4, help="client threads sending the due requests")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers (default: its config)")
    parser.add_argument("--per-kind", type=int, default=30, help="known-item queries per kind and corpus")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--recycle", action="store_true", help="keep gunicorn's max_requests (workers restart)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "soak.json")
    args = parser.parse_args(argv)

    corpora = [c for c in args.corpus if c.is_file()]
    for missing in set(args.corpus) - set(corpora):
        log(f"{missing}: not there; skipped")
    if not corpora:
        log("no corpus file found: nothing to soak")
        return 2
    ensure_node()
    expected = sum(len(read_jsonl(c)) for c in corpora)
    ensure_loaded(ALIAS, corpora, expected, "auto")
    mix = query_mix(corpora, args.per_kind, args.seed)
    log(f"{len(mix)} searches in the mix; {args.rate:g}/s for {args.minutes:g} min with {args.clients} clients")
    extra = [] if args.recycle else ["--max-requests", "0"]
    started = datetime.now(UTC)
    try:
        with Gunicorn(ALIAS, args.workers, {"PAPERSEARCH_QUERY_LOG": "on"}, name="gunicorn-soak", args=extra) as web:
            assert web.proc is not None
            soak = Soak(web.url, web.proc.pid, mix, args.rate, args.minutes)
            rows = soak.run(args.clients)
    finally:
        delete_bench_query_log()
    workers = [set(r["worker_pids"]) for r in rows if r["worker_pids"]]
    result = {
        "command": " ".join(["python -m bench.soak", *(argv if argv is not None else sys.argv[1:])]),
        "started": started.isoformat(timespec="seconds"), "machine": machine(),
        "corpora": [c.name for c in corpora], "papers": expected, "mix": len(mix), "rate": args.rate,
        "clients": args.clients, "recycle": args.recycle,
        "requests": sum(r["requests"] for r in rows), "errors": sum(r["errors"] for r in rows),
        "late": sum(r["late"] for r in rows), "unsent": soak.unsent, "error_samples": soak.errors[:5],
        "worker_replacements": len(set().union(*workers)) - len(workers[0]) if workers else None,
        "growth": {key: growth(rows, key) for key in ("worker_rss_mb", "largest_worker_rss_mb", "heap_after_gc_mb",
                                                       "old_gen_mb")},
        "minutes": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    g = result["growth"]
    log(f"{result['requests']} requests, {result['errors']} errors, {result['late']} late, {result['unsent']} "
        f"unsent; worker RSS "
        f"{g['worker_rss_mb']['first']} → {g['worker_rss_mb']['last']} MB, node heap after GC "
        f"{g['heap_after_gc_mb']['first']} → {g['heap_after_gc_mb']['last']} MB; written to {args.out}")
    return 1 if result["errors"] or result["unsent"] else 0


if __name__ == "__main__":
    sys.exit(main())
