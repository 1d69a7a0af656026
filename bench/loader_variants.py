"""Experiment: indexer.loader.load() with other bulk parameters / pipelining, same process, same corpus.

    .venv/bin/python -m bench.loader_variants [--size 13033] [--repeats 2] [--variants base,thread,...]

Variants (all go through the real load(), patched only for the duration of one run):
  base         as shipped: the producer in a forked process when safe, BULK_THREADS bulk streams,
               CHUNK_DOCS/CHUNK_BYTES from indexer/prepare.py
  thread       the producer in a thread of the loading process instead
  serial       one bulk stream
  chunkN       chunks of N documents
  nofilter     full bulk responses (no filter_path)
Each run loads into a fresh index created like versions.create; timing covers starting the producer,
load() and the refresh. This script's process has no other threads, so "base" forks.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from bench.common import DATA_DIR, delete_indices, log, retrying
from bench.corpus import DEFAULT_SEED, ensure_corpus
from bench.processes import cpu_seconds, es_process
from bench.profile_indexer import client

INDEX = "papersbench_variant"


@contextmanager
def variant(name: str):
    from indexer import loader, prepare

    saved = (loader.BULK_THREADS, loader._FILTER, prepare.CHUNK_DOCS, prepare.PRODUCER_PROCESS)
    try:
        if name == "thread":
            prepare.PRODUCER_PROCESS = False
        elif name == "serial":
            loader.BULK_THREADS = 1
        elif name.startswith("chunk"):
            prepare.CHUNK_DOCS = int(name.removeprefix("chunk"))
        elif name == "nofilter":
            loader._FILTER = None
        elif name != "base":
            raise ValueError(f"unknown variant {name!r}")
        yield
    finally:
        loader.BULK_THREADS, loader._FILTER, prepare.CHUNK_DOCS, prepare.PRODUCER_PROCESS = saved


def run(corpus: Path, name: str) -> dict:
    from indexer import loader, prepare
    from indexer.rejects import RejectsWriter
    from papersearch import index_definition

    es, settings = client()
    delete_indices(f"{INDEX}*")
    time.sleep(2)
    profile = index_definition.choose_profile(es, settings.analysis_profile)
    body = index_definition.index_body(profile, replicas=0)
    body["settings"]["refresh_interval"] = "-1"
    es.indices.create(index=INDEX, **body)
    node = es_process()
    try:
        with RejectsWriter(DATA_DIR / "rejects-variant.jsonl") as rejects, variant(name):
            es_before, started = cpu_seconds(node), time.perf_counter()
            cpu_before = _own_cpu()
            stats = loader.load(es, INDEX, prepare.start([corpus]), rejects, progress=False)
            es.indices.refresh(index=INDEX)
            seconds = time.perf_counter() - started
            client_cpu, es_after = _own_cpu() - cpu_before, cpu_seconds(node)
        count = es.count(index=INDEX)["count"]
    finally:
        delete_indices(f"{INDEX}*")
    if count != stats.created or stats.failed:
        raise RuntimeError(f"{name}: {count} docs in index, {stats.summary()}")
    n = stats.indexed or 1
    return {"variant": name, "docs": stats.indexed, "seconds": round(seconds, 2),
            "docs_per_s": round(stats.indexed / seconds), "client_cpu_us": round(client_cpu / n * 1e6, 1),
            "es_cpu_us": round((es_after - es_before) / n * 1e6, 1) if es_before is not None else None}


def _own_cpu() -> float:
    """CPU seconds of this process and its waited-for children (a producer process)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--variants", default="base,thread,serial,chunk500,chunk2000,nofilter")
    args = parser.parse_args(argv)
    corpus = ensure_corpus(args.size, args.seed, log=log)
    names = args.variants.split(",")
    results: list[dict] = []
    for i in range(args.repeats):
        for name in (names if i % 2 == 0 else list(reversed(names))):
            r = retrying(name, lambda name=name: run(corpus, name))
            log(f"{r['variant']:>10}: {r['docs']} docs in {r['seconds']}s = {r['docs_per_s']} docs/s, "
                f"CPU µs/doc: client {r['client_cpu_us']}, ES {r['es_cpu_us']}")
            results.append(r)
    best = {n: min((r for r in results if r["variant"] == n), key=lambda r: r["seconds"]) for n in names}
    print(json.dumps({"size": args.size, "best": best, "runs": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
