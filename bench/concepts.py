"""What the concept glossary costs: recognition per query, tagging per paper, indexing throughput.

    .venv/bin/python -m bench.concepts [--size 13033] [--repeats 3] [--corpus FILE …] [--no-index]

1. Query time: papersearch.concepts recognition plus webapp.services.expansion (the forms to add)
   for every query of bench/relevance/*.json, each parsed as the webapp parses it; p50/p95/max in µs
   (the target is p50 ≤ 1 ms).
2. Index time, no Elasticsearch: CPU of read + validate + DocumentBuilder.build per paper with the glossary
   and with an empty one (the tagging's share of the indexer's own CPU), and of ConceptMatcher.tag alone
   (best of 3), on the synthetic corpus (bench/corpus.py) and on each --corpus file
   (e.g. ../shared/corpora/*.jsonl.gz; skipped when absent).
3. Unless --no-index: indexer.loader.load() of the synthetic corpus into a fresh index, with tags and
   without (an empty glossary), alternating, best of --repeats each; throughput ratio (target ≥ 0.90).
Results go to bench/results/concepts-<UTC time>.json and a summary to stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from bench.common import DATA_DIR, RESULTS_DIR, ROOT, delete_indices, log
from bench.corpus import DEFAULT_SEED, ensure_corpus

INDEX = "papersbench_concepts"


@contextmanager
def without_tagging():
    """The indexer as it would be without the glossary: a matcher over no concepts."""
    from papersearch import concepts
    from papersearch.concepts.glossary import Glossary

    empty = concepts.ConceptMatcher(Glossary(()))
    with mock.patch.object(concepts, "matcher", lambda *a: empty):
        yield


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_queries(rounds: int = 20) -> dict:
    from papersearch import concepts
    from papersearch.index_definition import search_config
    from webapp.services.expansion import expansions
    from webapp.services.query_parser import parse_query

    queries: list[str] = []
    for path in sorted((ROOT / "bench" / "relevance").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        items = data.get("queries", []) if isinstance(data, dict) else data
        queries += [q["q"] for q in items if isinstance(q, dict) and isinstance(q.get("q"), str)]
    matcher = concepts.matcher()
    xl = search_config()["cross_lingual"]
    timings: list[float] = []
    found = 0
    for _ in range(rounds):
        for q in queries:
            started = time.perf_counter()
            terms = parse_query(q).terms
            found += len(expansions(terms, matcher, xl["max_forms"], xl["max_concepts"]))
            timings.append((time.perf_counter() - started) * 1e6)
    return {"queries": len(queries), "rounds": rounds, "p50_us": round(percentile(timings, 0.5), 1),
            "p95_us": round(percentile(timings, 0.95), 1), "max_us": round(max(timings), 1),
            "concepts_per_query": round(found / max(1, len(timings)), 2)}


def prepare(corpus: Path) -> dict:
    """Per-paper CPU of read + validate + DocumentBuilder.build, with and without tagging (no Elasticsearch)."""
    from indexer.documents import DocumentBuilder
    from indexer.models import Paper
    from indexer.readers import read_records
    from papersearch import concepts
    from papersearch.taxonomy import Taxonomy

    taxonomy = Taxonomy.load()
    concepts.matcher()  # built once per process, not part of a paper's cost
    out: dict = {"corpus": str(corpus)}
    for label in ("with", "without", "with_again"):
        with without_tagging() if label == "without" else _nothing():
            started = time.process_time()  # CPU of this process: steadier than wall time on a shared machine
            builder = DocumentBuilder(taxonomy)
            papers = [r for r in read_records(corpus, taxonomy) if isinstance(r, Paper)]
            docs = [builder.build(p) for p in papers]
            seconds = time.process_time() - started
        tags = sum(len(doc["concepts"]) for doc in docs)
        out[label] = {"papers": len(papers), "us_per_paper": round(seconds / len(papers) * 1e6, 1),
                      "tags_per_paper": round(tags / len(papers), 2)}
    best_with = min(out["with"]["us_per_paper"], out["with_again"]["us_per_paper"])
    out["tagging_us_per_paper"] = round(best_with - out["without"]["us_per_paper"], 1)
    out["cpu_ratio_without_over_with"] = round(out["without"]["us_per_paper"] / best_with, 3)
    texts = [builder.tagged_texts(doc) for doc in docs]
    out["tag_cpu_us_per_paper"] = round(min(_cpu(concepts.matcher().tag, texts) for _ in range(3)), 1)
    return out


def _cpu(fn, items: list) -> float:
    """CPU microseconds per item of fn(item) over all items."""
    started = time.process_time()
    for item in items:
        fn(item)
    return (time.process_time() - started) / max(1, len(items)) * 1e6


@contextmanager
def _nothing():
    yield


def load_once(corpus: Path, tagged: bool) -> float:
    from bench.profile_indexer import client
    from indexer import loader
    from indexer import prepare as producer
    from indexer.rejects import RejectsWriter
    from papersearch import index_definition

    es, settings = client()
    delete_indices(f"{INDEX}*")
    body = index_definition.index_body(index_definition.choose_profile(es, settings.analysis_profile))
    body["settings"]["refresh_interval"] = "-1"
    es.indices.create(index=INDEX, **body)
    try:
        with RejectsWriter(DATA_DIR / "rejects-concepts.jsonl") as rejects, \
                (_nothing() if tagged else without_tagging()):
            started = time.perf_counter()
            stats = loader.load(es, INDEX, producer.start([corpus]), rejects, progress=False)
            es.indices.refresh(index=INDEX)
            seconds = time.perf_counter() - started
        return stats.created / seconds
    finally:
        delete_indices(f"{INDEX}*")


def bench_indexing(corpus: Path, repeats: int) -> dict:
    rates: dict[str, list[float]] = {"with": [], "without": []}
    for i in range(repeats):
        order = ("with", "without") if i % 2 == 0 else ("without", "with")
        for label in order:
            rates[label].append(load_once(corpus, tagged=label == "with"))
            log(f"indexing {label} tags: {rates[label][-1]:.0f} papers/s")
    best = {k: max(v) for k, v in rates.items()}
    return {"runs_papers_per_s": {k: [round(r) for r in v] for k, v in rates.items()},
            "best_with": round(best["with"]), "best_without": round(best["without"]),
            "median_ratio": round(statistics.median(rates["with"]) / statistics.median(rates["without"]), 3),
            "ratio_with_over_without": round(best["with"] / best["without"], 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="real corpus file (optional)")
    parser.add_argument("--no-index", action="store_true", help="skip the Elasticsearch indexing runs")
    args = parser.parse_args(argv)
    synthetic = ensure_corpus(args.size, args.seed, log=log)
    results: dict = {"command": " ".join(["python -m bench.concepts", *(argv or sys.argv[1:])]),
                     "queries": bench_queries()}
    log(f"query recognition: {results['queries']}")
    results["prepare"] = [prepare(synthetic)]
    for path in args.corpus:
        if path.exists():
            results["prepare"].append(prepare(path))
        else:
            log(f"skipping {path}: not there")
    for row in results["prepare"]:
        log(f"prepare {Path(row['corpus']).name}: tag() {row['tag_cpu_us_per_paper']} µs/paper CPU, build "
            f"with/without tags differs by {row['tagging_us_per_paper']} µs, CPU ratio without/with "
            f"{row['cpu_ratio_without_over_with']}")
    if not args.no_index:
        results["indexing"] = bench_indexing(synthetic, args.repeats)
        log(f"indexing: {results['indexing']}")
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / f"concepts-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2, ensure_ascii=False))
    log(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
