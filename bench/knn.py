"""The kNN part of search by meaning at scale (issue 55): its `took` p50/p95, the index's disk and the node's heap, at
sizes whose papers cannot be embedded here (1M papers are ~5 CPU-hours of the encoder).

    .venv/bin/python -m bench.knn --from-alias papersbench_q_plugin --size 1000000 [--repeats 3] [--keep] [--out FILE]

The vectors: the real papers' vectors of an index loaded with meaning on (--from-alias), each copied with Gaussian
noise and normalised, so the index has the real ones' clusters at N points (a uniform random set would be harder for
the graph than papers are). Indexed alone (the meaning field's mapping from config/index.json, one shard as
the site's), one bulk stream, refresh off while loading, no force merge (the site's segments are not merged either).
Queries: the questions of relevance/meaning_zh.json and descriptive.json embedded by the encoder, each as the
site's meaning round asks (k 10, and a glossed question's k, num_candidates from the config), `_source` off, request
cache off. Needs a running node; it never starts one. Deletes its index unless --keep.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from elasticsearch import helpers

from bench.common import PREFIX, log, percentile, require_node
from papersearch import meaning
from papersearch.es import make_client
from papersearch.index_definition import index_body, search_config
from papersearch.meaning_config import Meaning
from relevance.meaning import QUESTIONS

INDEX = f"{PREFIX}knn"
QUESTION_FILES = [QUESTIONS, QUESTIONS.with_name("descriptive.json")]


def real_vectors(es: Any, alias: str, field: str) -> np.ndarray:
    rows = [h["_source"][field] for h in helpers.scan(es, index=alias, query={"query": {"exists": {"field": field}}},
                                                       _source=[field], size=1000)]
    return np.asarray(rows, dtype=np.float32)


def noisy(base: np.ndarray, size: int, sigma: float, seed: int):
    """`size` unit vectors: the base ones in turn, each with Gaussian noise (sigma per dimension)."""
    rng = np.random.default_rng(seed)
    for start in range(0, size, 1000):
        n = min(1000, size - start)
        rows = base[np.arange(start, start + n) % len(base)] + rng.normal(0, sigma, (n, base.shape[1]))
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        yield from np.round(rows, 5).astype(np.float32)


def vector_mapping(field: str) -> dict[str, Any]:
    return index_body("core")["mappings"]["properties"][field]


def load(es: Any, vectors, size: int, field: str) -> float:
    mapping = {"dynamic": "strict", "properties": {field: vector_mapping(field)}}
    es.indices.create(index=INDEX, mappings=mapping,
                      settings={"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "-1"})
    started = time.perf_counter()
    actions = ({"_index": INDEX, "_id": str(i), "_source": {field: v.tolist()}} for i, v in enumerate(vectors))
    sent = helpers.streaming_bulk(es.options(request_timeout=600), actions, chunk_size=500, max_retries=3)
    for done, (ok, item) in enumerate(sent, start=1):
        if not ok:
            raise SystemExit(f"bulk failed: {item}")
        if done % 50_000 == 0:
            rate = done / (time.perf_counter() - started)
            log(f"loaded {done:,} of {size:,} ({rate:,.0f}/s, ETA {(size - done) / rate / 60:.1f} min)")
    es.indices.put_settings(index=INDEX, settings={"refresh_interval": "1s"}, request_timeout=600)
    es.indices.refresh(index=INDEX, request_timeout=3600)
    return time.perf_counter() - started


def queries(m: Meaning, repeats: int, es: Any) -> dict[str, Any]:
    texts = [q["q"] for f in QUESTION_FILES for q in json.loads(f.read_text(encoding="utf-8"))["queries"]]
    vectors = [meaning.query_vector(t) for t in texts]
    out = {}
    for k in sorted({m.k, m.glossed_questions.k}):
        took = []
        for _ in range(repeats):
            for v in vectors:
                knn = {"field": m.field, "query_vector": v, "k": k, "num_candidates": m.num_candidates}
                took.append(es.search(index=INDEX, knn=knn, size=k, source=False, request_cache=False)["took"])
        took.sort()
        out[f"k{k}"] = {"searches": len(took), "p50_ms": statistics.median(took), "p95_ms": percentile(took, 95),
                        "max_ms": took[-1]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from-alias", required=True, help="an index loaded with meaning on (its vectors: the base)")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--sigma", type=float, default=0.02, help="noise per dimension (a unit vector's is ~0.044)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the index (to query it again)")
    parser.add_argument("--reuse", action="store_true", help="query the kept index, load nothing")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    require_node()
    es = make_client("indexer")
    m = search_config().meaning
    report: dict[str, Any] = {"size": args.size, "sigma": args.sigma, "field": m.field,
                              "mapping": vector_mapping(m.field)}
    if not args.reuse:
        es.indices.delete(index=INDEX, ignore_unavailable=True)
        base = real_vectors(es, args.from_alias, m.field)
        log(f"{len(base):,} real vectors from {args.from_alias}; loading {args.size:,}")
        report["load_s"] = round(load(es, noisy(base, args.size, args.sigma, args.seed), args.size, m.field), 1)
    report["queries"] = queries(m, args.repeats, es)
    stats = es.indices.stats(index=INDEX, metric="store,segments,docs")["_all"]["primaries"]
    heap = [n["jvm"]["mem"] for n in es.nodes.stats(metric="jvm")["nodes"].values()]
    report |= {"docs": stats["docs"]["count"], "segments": stats["segments"]["count"],
               "disk_bytes": stats["store"]["size_in_bytes"],
               "disk_bytes_per_paper": round(stats["store"]["size_in_bytes"] / max(1, stats["docs"]["count"])),
               "heap_used_bytes": [h["heap_used_in_bytes"] for h in heap],
               "heap_max_bytes": [h["heap_max_in_bytes"] for h in heap]}
    if not args.keep and not args.reuse:
        es.indices.delete(index=INDEX)
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
