"""Indexing throughput: our full reindex path against a raw `_bulk` baseline, in the same run.

    .venv/bin/python -m bench.indexing --size 13033 [--repeats 3] [--cleanup] [--corpus FILE] [--no-raw]

ours  `papersearch-admin --alias papersbench_idx reindex CORPUS --no-progress` as a subprocess:
      sniff → producer (parse, validate, build documents, serialise; its own process) → two bulk
      streams → finish/refresh → verify → alias swap → prune. Wall time from spawn to exit
      (interpreter start-up included); peak RSS sampled with psutil every 20 ms, the indexer and
      its producer process added up (an upper bound: pages they share count twice). The child's
      rusage ru_maxrss is useless here: Linux keeps the high-water mark across exec, so it includes
      the fork of this benchmark process, raw bodies and all.
raw   the bulk bodies our own producer makes of the same file (byte-identical requests, same
      chunking: 1000 docs / 8 MB), made *before* the clock starts, POSTed to /<index>/_bulk over as
      many keep-alive HTTP connections as our loader keeps requests in flight
      (indexer.loading.loader.BULK_THREADS), as the same indexer user, into an index created with the same
      body (index_body(profile), refresh -1, replicas 0), then one refresh. Timed: create + bulk +
      refresh. Full responses (we ask for fewer fields; see indexer.loading.loader).

Runs alternate the order (ours/raw, raw/ours, …) and keep the best of each. The ratio is
docs/s(ours) / docs/s(raw). --corpus takes a real corpus file instead of the synthetic one (skipped
with a note when absent). The last `ours` index stays behind the alias papersbench_idx for the
search benchmark unless --cleanup.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import psutil

from bench.common import (
    DATA_DIR,
    INDEXER_USER,
    ROOT,
    VENV_BIN,
    delete_indices,
    es_url,
    identity,
    log,
    retrying,
    without_tagging,
)
from bench.corpus import DEFAULT_SEED, ensure_corpus
from bench.processes import cpu_per_doc, cpu_seconds, es_process, sample_rss

BENCH_ALIAS = "papersbench_idx"

RAW_INDEX = "papersbench_raw"
CHUNK_DOCS = 1000
CHUNK_BYTES = 8 * 1024 * 1024


@dataclass
class Run:
    kind: str  # "ours" | "raw"
    docs: int
    seconds: float
    load_seconds: float | None = None  # ours: the loader's own timing (parse..bulk), from its summary line
    peak_rss_mb: float | None = None  # psutil samples every 20 ms
    # os.wait4's ru_maxrss: NOT usable as the indexer's peak, because Linux carries the high-water mark
    # over exec, so it includes the forked copy of this (benchmark) process before exec. Kept for the record.
    ru_maxrss_mb: float | None = None
    index: str | None = None
    # CPU seconds during the run: the local Elasticsearch node's, and the client's (ours: the admin and
    # its producer; raw: this process's sending threads). The shared machine stretches wall times;
    # CPU per document shows what each side costs regardless.
    es_cpu_s: float | None = None
    client_cpu_s: float | None = None

    @property
    def rate(self) -> float:
        return self.docs / self.seconds if self.seconds else 0.0


@dataclass
class IndexingResult:
    size: int
    corpus: str
    corpus_mb: float
    profile: str
    tags: bool = True
    runs: list[Run] = field(default_factory=list)

    def best(self, kind: str) -> Run | None:
        runs = [r for r in self.runs if r.kind == kind]
        return min(runs, key=lambda r: r.seconds) if runs else None

    def round_ratios(self) -> list[float]:
        ours = [r for r in self.runs if r.kind == "ours"]
        raw = [r for r in self.runs if r.kind == "raw"]
        return [round(o.rate / r.rate, 3) for o, r in zip(ours, raw, strict=False) if r.rate]

    def summary(self) -> dict:
        ours, raw = self.best("ours"), self.best("raw")
        out = {
            "size": self.size, "corpus": self.corpus, "corpus_mb": round(self.corpus_mb, 1), "profile": self.profile,
            "concept_tags": self.tags,
            "ours_seconds": round(ours.seconds, 2) if ours else None,
            "ours_docs_per_s": round(ours.rate) if ours else None,
            "ours_load_seconds": round(ours.load_seconds, 2) if ours and ours.load_seconds else None,
            "ours_peak_rss_mb": round(max(r.peak_rss_mb or 0 for r in self.runs if r.kind == "ours"), 1)
            if ours else None,
            "raw_seconds": round(raw.seconds, 2) if raw else None,
            "raw_docs_per_s": round(raw.rate) if raw else None,
            "ratio": round(ours.rate / raw.rate, 3) if ours and raw else None,
            # Per round (ours and raw back to back): on a shared machine the load drifts between rounds,
            # and the spread of these shows how far the best-of ratio can be trusted.
            "round_ratios": self.round_ratios(),
            "cpu_us_per_doc": {kind: cpu_per_doc([r for r in self.runs if r.kind == kind])
                               for kind in ("ours", "raw")},
            "runs": [asdict(r) | {"rate": round(r.rate)} for r in self.runs],
        }
        return out


# --- ours -------------------------------------------------------------------------------------------


def admin_without_concept_tags() -> int:
    """`papersearch-admin` (arguments from sys.argv) with an empty glossary, for --no-tags runs."""
    from indexer import admin

    with without_tagging():
        return admin.main(sys.argv[1:])


def run_ours(corpus: Path, alias: str = BENCH_ALIAS, tags: bool = True, fresh: bool = True) -> Run:
    if fresh:  # a first build (previous versions would be kept, and their added dates carried over, otherwise)
        delete_indices(f"{alias}-*")
    user, password = identity(INDEXER_USER)
    env = {**os.environ, "ES_URL": es_url(), "ES_USERNAME": user, "ES_PASSWORD": password,
           "PAPERSEARCH_ALIAS": alias, "PYTHONUNBUFFERED": "1"}
    rejects = DATA_DIR / f"rejects-{alias}.jsonl"
    out_path = DATA_DIR / f"reindex-{alias}.log"
    admin = [str(VENV_BIN / "papersearch-admin")] if tags else \
        [sys.executable, "-c", "import sys, bench.indexing as b; sys.exit(b.admin_without_concept_tags())"]
    cmd = [*admin, "--alias", alias, "reindex", str(corpus), "--no-progress", "--allow-rejects",
           "--rejects", str(rejects)]
    es = es_process()
    with out_path.open("w") as out:
        es_before = cpu_seconds(es)
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        peak = [0.0]
        stop = threading.Event()
        sampler = threading.Thread(target=sample_rss, args=(psutil.Process(proc.pid), peak, stop), daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        es_after = cpu_seconds(es)
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    output = out_path.read_text()
    if proc.returncode != 0:
        raise RuntimeError(f"reindex failed (exit {proc.returncode}):\n{output[-3000:]}")
    match = re.search(r"indexed (\d+) .*?, ([\d.]+)s \(", output)
    docs = int(match.group(1)) if match else 0
    index = re.search(rf"alias {alias} → (\S+)", output)
    return Run("ours", docs, seconds, load_seconds=float(match.group(2)) if match else None,
               peak_rss_mb=peak[0] / 1024 / 1024, ru_maxrss_mb=usage.ru_maxrss / 1024,
               index=index.group(1) if index else None,
               es_cpu_s=es_after - es_before if es_before is not None and es_after is not None else None,
               client_cpu_s=usage.ru_utime + usage.ru_stime)  # includes the producer, a waited-for child


# --- raw baseline -----------------------------------------------------------------------------------


def build_bodies(corpus: Path) -> tuple[list[bytes], int]:
    """The bulk bodies our indexer sends (its own producer: same documents, same chunking), made up
    front, and the number of distinct papers in them."""
    from indexer.loading.prepare import Chunk, produce
    from indexer.loading.readers import sniff
    from papersearch.taxonomy import Taxonomy

    taxonomy = Taxonomy.load()
    chunks: list = []
    produce([sniff(corpus, taxonomy)], taxonomy, chunks.append)
    chunks = [c for c in chunks if isinstance(c, Chunk) and len(c)]
    return [bytes(c.body) for c in chunks], len({c.where(i)[2] for c in chunks for i in range(len(c))})


class Connection:
    """One keep-alive HTTP/1.1 connection with basic auth (http.client: as little client overhead as possible)."""

    def __init__(self, url: str, auth: tuple[str, str]) -> None:
        import base64

        parts = urlsplit(url)
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self.conn = cls(parts.hostname, parts.port, timeout=300)
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
        self.headers = {"Authorization": f"Basic {token}", "Content-Type": "application/x-ndjson",
                        "Connection": "keep-alive"}

    def request(self, method: str, path: str, body: bytes | None = None,
                content_type: str = "application/json") -> tuple[int, bytes]:
        headers = {**self.headers, "Content-Type": content_type}
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.conn.close()


def index_body(profile: str) -> dict:
    from papersearch import index_definition

    body = index_definition.index_body(profile, shards=1, replicas=0)  # as versions.create
    body["settings"]["refresh_interval"] = "-1"
    return body


def run_raw(bodies: list[bytes], docs: int, profile: str, index: str = RAW_INDEX) -> Run:
    """The bodies sent over as many keep-alive connections as our loader keeps requests in flight."""
    from concurrent.futures import ThreadPoolExecutor

    from indexer.loading.loader import BULK_THREADS

    delete_indices(index)
    create = json.dumps(index_body(profile)).encode()
    conns = [Connection(es_url(), identity(INDEXER_USER)) for _ in range(BULK_THREADS)]
    queue = iter(bodies)
    lock = threading.Lock()

    def send(conn: Connection) -> None:
        while True:
            with lock:
                body = next(queue, None)
            if body is None:
                return
            status, text = conn.request("POST", f"/{index}/_bulk", body, "application/x-ndjson")
            if status != 200 or b'"errors":true' in text[:200]:
                raise RuntimeError(f"bulk failed: {status} {text[:1000]!r}")

    es = es_process()
    try:
        es_before, client_before = cpu_seconds(es), time.process_time()
        started = time.perf_counter()
        status, text = conns[0].request("PUT", f"/{index}", create)
        if status != 200:
            raise RuntimeError(f"create {index}: {status} {text[:500]!r}")
        with ThreadPoolExecutor(len(conns)) as pool:
            for future in [pool.submit(send, c) for c in conns]:
                future.result()
        status, text = conns[0].request("POST", f"/{index}/_refresh")
        seconds = time.perf_counter() - started
        es_after, client_cpu = cpu_seconds(es), time.process_time() - client_before
        status, text = conns[0].request("GET", f"/{index}/_count")
        count = json.loads(text)["count"]
    finally:
        for conn in conns:
            conn.close()
    if count != docs:
        raise RuntimeError(f"raw baseline: {index} holds {count} docs, expected {docs}")
    return Run("raw", docs, seconds, index=index, client_cpu_s=client_cpu,
               es_cpu_s=es_after - es_before if es_before is not None and es_after is not None else None)


# --- the benchmark ----------------------------------------------------------------------------------


def choose_profile() -> str:
    from papersearch import index_definition
    from papersearch.es import make_client
    from papersearch.settings import Settings

    user, password = identity(INDEXER_USER)
    settings = Settings(ES_URL=es_url(), ES_USERNAME=user, ES_PASSWORD=password)
    return index_definition.choose_profile(make_client("indexer", settings), settings.analysis_profile)


def _cpu_note(run: Run) -> str:
    if run.es_cpu_s is None or run.client_cpu_s is None or not run.docs:
        return ""
    return f", CPU µs/doc: ES {run.es_cpu_s / run.docs * 1e6:.0f}, client {run.client_cpu_s / run.docs * 1e6:.0f}"


def bench_indexing(size: int, repeats: int, seed: int = DEFAULT_SEED, raw: bool = True,
                   alias: str = BENCH_ALIAS, pause: float = 3.0, corpus: Path | None = None,
                   tags: bool = True) -> IndexingResult:
    """Alternating runs of ours and raw on the synthetic corpus of `size` papers, or on a given file
    (a real corpus; then `size` is the number of papers in it). tags=False: both without concept
    tags (an empty glossary), to see what the tagging costs."""
    corpus = corpus or ensure_corpus(size, seed, log=log)
    profile = retrying("profile", choose_profile)
    result = IndexingResult(size, corpus.name, corpus.stat().st_size / 1e6, profile, tags)
    bodies: list[bytes] = []
    docs = 0
    if raw:
        started = time.perf_counter()
        with contextlib.nullcontext() if tags else without_tagging():
            bodies, docs = build_bodies(corpus)
        result.size = docs
        log(f"raw baseline: {docs} docs in {len(bodies)} bulk bodies ({sum(map(len, bodies)) / 1e6:.0f} MB), "
            f"prepared in {time.perf_counter() - started:.1f}s (not timed)")
    for i in range(repeats):
        order = ("ours", "raw") if i % 2 == 0 else ("raw", "ours")
        for kind in order:
            if kind == "raw" and not raw:
                continue
            time.sleep(pause)  # let the previous run's deletes and merges settle
            if kind == "ours":
                run = retrying("ours", lambda: run_ours(corpus, alias, tags))
                log(f"  ours  #{i + 1}: {run.docs} docs in {run.seconds:.2f}s = {run.rate:,.0f} docs/s "
                    f"(loader {run.load_seconds}s), peak RSS {run.peak_rss_mb:.0f} MB{_cpu_note(run)}")
            else:
                run = retrying("raw", lambda: run_raw(bodies, docs, profile))
                delete_indices(RAW_INDEX)
                log(f"  raw   #{i + 1}: {run.docs} docs in {run.seconds:.2f}s = {run.rate:,.0f} docs/s{_cpu_note(run)}")
            result.runs.append(run)
    result.size = result.size or max((r.docs for r in result.runs), default=0)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--corpus", type=Path, help="a real corpus file instead of the synthetic one")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-raw", action="store_true", help="only our path (e.g. for the 1M RSS check)")
    parser.add_argument("--no-tags", action="store_true", help="ours and raw without concept tags (empty glossary)")
    parser.add_argument("--cleanup", action="store_true", help="delete the benchmark indices afterwards")
    args = parser.parse_args(argv)
    from bench.common import require_node

    require_node()
    if args.corpus and not args.corpus.is_file():
        log(f"{args.corpus}: not there; skipped")
        return 0
    result = bench_indexing(args.size, args.repeats, args.seed, raw=not args.no_raw, corpus=args.corpus,
                            tags=not args.no_tags)
    print(json.dumps(result.summary(), indent=2))
    if args.cleanup:
        delete_indices(f"{BENCH_ALIAS}*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
