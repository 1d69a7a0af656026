"""Where our indexer's time goes: cProfile over operations' loader, plus the pure-Python share.

    .venv/bin/python -m bench.profile_indexer [--size 13033] [--top 25]

1. prepare only: read_records (parse + pydantic validation) → to_document → JSON serialisation,
   no Elasticsearch — the CPU our process needs per document;
2. indexer.loader.load() into a fresh index (created like versions.create) under cProfile; prints
   the top functions by own time and by cumulative time.
The index is deleted afterwards.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from pathlib import Path

from bench.common import DATA_DIR, INDEXER_USER, delete_indices, es_url, identity, log
from bench.corpus import DEFAULT_SEED, ensure_corpus

PROFILE_INDEX = "papersbench_prof"


def prepare_only(corpus: Path) -> dict[str, float]:
    from indexer.models import Paper, to_document
    from indexer.readers import read_records
    from papersearch.taxonomy import Taxonomy

    taxonomy = Taxonomy.load()
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    t0 = time.perf_counter()
    papers = [r for r in read_records(corpus, taxonomy) if isinstance(r, Paper)]
    t1 = time.perf_counter()
    docs = [to_document(p, taxonomy) for p in papers]
    t2 = time.perf_counter()
    for doc in docs:
        dumps(doc)
    t3 = time.perf_counter()
    n = len(papers)
    return {"docs": n, "parse_validate_s": t1 - t0, "to_document_s": t2 - t1, "serialize_s": t3 - t2,
            "total_s": t3 - t0, "docs_per_s": n / (t3 - t0)}


def client():
    from papersearch.es import make_client
    from papersearch.settings import Settings

    user, password = identity(INDEXER_USER)
    settings = Settings(ES_URL=es_url(), ES_USERNAME=user, ES_PASSWORD=password)
    return make_client("indexer", settings, request_timeout=120), settings


def profiled_load(corpus: Path, top: int = 25) -> tuple[float, str]:
    from indexer import loader
    from indexer.rejects import RejectsWriter
    from papersearch import index_definition

    es, settings = client()
    delete_indices(f"{PROFILE_INDEX}*")
    profile = index_definition.choose_profile(es, settings.analysis_profile)
    body = index_definition.index_body(profile, replicas=0)
    body["settings"]["refresh_interval"] = "-1"
    es.indices.create(index=PROFILE_INDEX, **body)
    profiler = cProfile.Profile()
    try:
        with RejectsWriter(DATA_DIR / "rejects-profile.jsonl") as rejects:
            started = time.perf_counter()
            profiler.enable()
            stats = loader.load(es, PROFILE_INDEX, [corpus], rejects, progress=False)
            profiler.disable()
            seconds = time.perf_counter() - started
    finally:
        delete_indices(f"{PROFILE_INDEX}*")
    out = io.StringIO()
    ps = pstats.Stats(profiler, stream=out)
    ps.sort_stats("tottime").print_stats(top)
    ps.sort_stats("cumulative").print_stats(top)
    log(f"profiled load: {stats.summary()}")
    return seconds, out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    corpus = ensure_corpus(args.size, args.seed, log=log)
    prep = prepare_only(corpus)
    print("prepare only (no Elasticsearch):", json.dumps({k: round(v, 3) for k, v in prep.items()}))
    seconds, report = profiled_load(corpus, args.top)
    print(f"load() under cProfile: {seconds:.2f}s")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
