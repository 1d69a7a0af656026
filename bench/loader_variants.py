"""Experiment: indexer.loader.load() with other bulk parameters / pipelining, same process, same corpus.

    .venv/bin/python -m bench.loader_variants [--size 13033] [--repeats 2] [--variants base,chunk500,...]

Variants (all go through the real load(), patched only for the duration of one run):
  base         as shipped (BULK_THREADS streaming_bulk streams, CHUNK_DOCS/CHUNK_BYTES from indexer/loader.py)
  serial       one streaming_bulk stream (the loader before BULK_THREADS); the variants below are
               all measured on top of this serial loader, as in BENCHMARKS.md
  chunkN       streaming_bulk with chunk_size N
  prefetch     base, but the action generator (read → validate → to_document) runs in a background
               thread feeding a bounded queue, so it overlaps with the bulk request round-trips
               (the HTTP wait releases the GIL). Serialisation stays in the bulk thread.
  parallel2    helpers.parallel_bulk with 2 threads (NB: parallel_bulk has no 429 retry/backoff)
Each run loads into a fresh index created like versions.create; timing covers load() + refresh.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import DATA_DIR, delete_indices, log, retrying
from bench.corpus import DEFAULT_SEED, ensure_corpus
from bench.profile_indexer import client

INDEX = "papersbench_variant"
_DONE = object()


def prefetched(items: Iterable, depth: int = 2000) -> Iterator:
    """Iterate `items` in a daemon thread through a bounded queue (exceptions are re-raised here)."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        q.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(_DONE)
        except BaseException as exc:  # handed to the consumer
            q.put(exc)

    thread = threading.Thread(target=produce, name="prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()


@contextmanager
def variant(name: str):
    from elasticsearch import helpers

    from indexer import loader

    saved = (loader.streaming_bulk, loader.paper_actions, loader.CHUNK_DOCS, loader.BULK_THREADS)
    try:
        if name != "base":
            loader.BULK_THREADS = 1
        if name == "serial":
            pass
        elif name.startswith("chunk"):
            loader.CHUNK_DOCS = int(name.removeprefix("chunk"))
        elif name == "prefetch":
            original = loader.paper_actions
            loader.paper_actions = lambda *a, **k: prefetched(original(*a, **k))
        elif name == "parallel2":
            def parallel(client, actions, chunk_size, max_chunk_bytes, **kwargs):
                for key in ("max_retries", "initial_backoff", "max_backoff", "yield_ok"):
                    kwargs.pop(key, None)
                return helpers.parallel_bulk(client, actions, thread_count=2, queue_size=2, chunk_size=chunk_size,
                                             max_chunk_bytes=max_chunk_bytes, **kwargs)
            loader.streaming_bulk = parallel
        elif name != "base":
            raise ValueError(f"unknown variant {name!r}")
        yield
    finally:
        loader.streaming_bulk, loader.paper_actions, loader.CHUNK_DOCS, loader.BULK_THREADS = saved


def run(corpus: Path, name: str) -> dict:
    from indexer import loader
    from indexer.rejects import RejectsWriter
    from papersearch import index_definition

    es, settings = client()
    delete_indices(f"{INDEX}*")
    time.sleep(2)
    profile = index_definition.choose_profile(es, settings.analysis_profile)
    body = index_definition.index_body(profile, replicas=0)
    body["settings"]["refresh_interval"] = "-1"
    es.indices.create(index=INDEX, **body)
    try:
        with RejectsWriter(DATA_DIR / "rejects-variant.jsonl") as rejects, variant(name):
            started = time.perf_counter()
            stats = loader.load(es, INDEX, [corpus], rejects, progress=False)
            es.indices.refresh(index=INDEX)
            seconds = time.perf_counter() - started
        count = es.count(index=INDEX)["count"]
    finally:
        delete_indices(f"{INDEX}*")
    if count != stats.created or stats.failed:
        raise RuntimeError(f"{name}: {count} docs in index, {stats.summary()}")
    return {"variant": name, "docs": stats.indexed, "seconds": round(seconds, 2),
            "docs_per_s": round(stats.indexed / seconds)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--variants", default="base,serial,chunk500,chunk2000,prefetch,parallel2")
    args = parser.parse_args(argv)
    corpus = ensure_corpus(args.size, args.seed, log=log)
    names = args.variants.split(",")
    results: list[dict] = []
    for i in range(args.repeats):
        for name in (names if i % 2 == 0 else list(reversed(names))):
            r = retrying(name, lambda name=name: run(corpus, name))
            log(f"{r['variant']:>10}: {r['docs']} docs in {r['seconds']}s = {r['docs_per_s']} docs/s")
            results.append(r)
    best = {n: min((r for r in results if r["variant"] == n), key=lambda r: r["seconds"]) for n in names}
    print(json.dumps({"size": args.size, "best": best, "runs": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
