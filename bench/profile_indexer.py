"""Where our indexer's CPU goes, per paper: the producer's stages, a real load split by process, cProfile.

    .venv/bin/python -m bench.profile_indexer [--size 13033 | --corpus FILE] [--top 25] [--no-load]

1. stages: CPU time (process_time, best of 3) per paper of each producer step, without Elasticsearch:
   reading lines, validation (pydantic, JSON path), DocumentBuilder.build, serialisation into chunks.
   CPU time rather than wall time, because this machine is often shared.
2. load: indexer.loader.load() into a fresh index (created like versions.create) with the producer in
   its own process: wall time, the senders' CPU (this process) and the producer's CPU (the child),
   per paper. The index is deleted afterwards.
3. cProfile of the producer (top functions by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import resource
import sys
import time
from pathlib import Path

from bench.common import DATA_DIR, INDEXER_USER, delete_indices, es_url, identity, log
from bench.corpus import DEFAULT_SEED, ensure_corpus

PROFILE_INDEX = "papersbench_prof"


def _cpu(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def stages(corpus: Path) -> dict[str, float]:
    """Microseconds of CPU per paper for each step of the producer (JSON Lines input)."""
    import orjson

    from indexer.documents import DocumentBuilder
    from indexer.models import paper_from_json
    from indexer.prepare import Chunk, produce
    from indexer.readers import iter_raw_lines, open_source, sniff
    from papersearch.taxonomy import Taxonomy

    taxonomy = Taxonomy.load()
    source = sniff(corpus, taxonomy)

    def read() -> list[bytes]:
        with open_source(source) as (_, f):
            return [line for _, line in iter_raw_lines(f, source.name, source.path) if isinstance(line, bytes)]

    lines = read()
    papers = [paper_from_json(line, source=source.name) for line in lines]
    builder = DocumentBuilder(taxonomy)
    docs = [builder.build(p) for p in papers]

    def chunks() -> None:
        chunk = Chunk()
        for paper, doc in zip(papers, docs, strict=True):
            chunk.add(paper, source.name, 1, orjson.dumps(doc))

    n = len(papers)
    out = {
        "read_lines": _cpu(read),
        "validate": _cpu(lambda: [paper_from_json(line, source=source.name) for line in lines]),
        "build_document": _cpu(lambda: [builder.build(p) for p in papers]),
        "serialise_into_chunks": _cpu(chunks),
        "produce_total": _cpu(lambda: produce([source], taxonomy, lambda item: None)),
    }
    return {"papers": n, **{f"{k}_us": round(v / n * 1e6, 1) for k, v in out.items()}}


def client():
    from papersearch.es import make_client
    from papersearch.settings import Settings

    user, password = identity(INDEXER_USER)
    settings = Settings(ES_URL=es_url(), ES_USERNAME=user, ES_PASSWORD=password)
    return make_client("indexer", settings, request_timeout=120), settings


def _cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measured_load(corpus: Path) -> dict[str, float]:
    """A real load: wall time, and CPU per paper of the senders (here) and the producer (child)."""
    from indexer import loader, prepare
    from indexer.rejects import RejectsWriter
    from papersearch import index_definition

    es, settings = client()
    delete_indices(f"{PROFILE_INDEX}*")
    profile = index_definition.choose_profile(es, settings.analysis_profile)
    body = index_definition.index_body(profile, replicas=0)
    body["settings"]["refresh_interval"] = "-1"
    es.indices.create(index=PROFILE_INDEX, **body)
    try:
        with RejectsWriter(DATA_DIR / "rejects-profile.jsonl") as rejects:
            self_cpu, child_cpu = _cpu_seconds(resource.RUSAGE_SELF), _cpu_seconds(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            stats = loader.load(es, PROFILE_INDEX, prepare.start([corpus]), rejects, progress=False)
            seconds = time.perf_counter() - started
            self_cpu = _cpu_seconds(resource.RUSAGE_SELF) - self_cpu
            child_cpu = _cpu_seconds(resource.RUSAGE_CHILDREN) - child_cpu
    finally:
        delete_indices(f"{PROFILE_INDEX}*")
    log(f"load: {stats.summary()}")
    n = stats.indexed or 1
    return {"papers": stats.indexed, "wall_s": round(seconds, 2), "docs_per_s": round(n / seconds),
            "senders_cpu_us": round(self_cpu / n * 1e6, 1), "producer_cpu_us": round(child_cpu / n * 1e6, 1)}


def profiled_producer(corpus: Path, top: int) -> str:
    from indexer.prepare import produce
    from indexer.readers import sniff
    from papersearch.taxonomy import Taxonomy

    taxonomy = Taxonomy.load()
    sources = [sniff(corpus, taxonomy)]
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    produce(sources, taxonomy, lambda item: None)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--corpus", type=Path, help="a real corpus (JSON Lines) instead of the synthetic one")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-load", action="store_true", help="skip the load into Elasticsearch")
    args = parser.parse_args(argv)
    if args.corpus and not args.corpus.is_file():
        log(f"{args.corpus}: not there; skipped")
        return 0
    corpus = args.corpus or ensure_corpus(args.size, args.seed, log=log)
    print("producer stages, CPU µs per paper:", json.dumps(stages(corpus)))
    if not args.no_load:
        print("load, producer in its own process:", json.dumps(measured_load(corpus)))
    print(profiled_producer(corpus, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
