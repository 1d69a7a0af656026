"""What keeping the added dates costs a full reindex: a rebuild over a live version (one doc-values search
per chunk of 1000 papers on it, indexer/added_dates.py) against a first build of the same corpus (nothing to
look up), alternating, in the same run.

    .venv/bin/python -m bench.added_dates --size 13033 [--repeats 3] [--cleanup]

Both are `papersearch-admin reindex` as a subprocess (bench.indexing.run_ours): wall time, docs/s, CPU µs
per paper of the node and of the indexer, and peak RSS (the indexer and its producer). The rebuild's dates
are checked: every paper keeps the date of the version it was rebuilt from.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from datetime import UTC, datetime

from bench.common import RESULTS_DIR, delete_indices, ensure_node, log, machine, session
from bench.corpus import DEFAULT_SEED, ensure_corpus
from bench.indexing import Run, run_ours
from bench.processes import cpu_per_doc

ALIAS = "papersbench_added"


def added_dates(index: str) -> tuple[str, str]:
    """The oldest and newest added date in an index."""
    from bench.common import INDEXER_USER, es_url

    body = {"size": 0, "aggs": {"min": {"min": {"field": "added"}}, "max": {"max": {"field": "added"}}}}
    aggs = session(INDEXER_USER).post(f"{es_url()}/{index}/_search", json=body, timeout=60).json()["aggregations"]
    return aggs["min"]["value_as_string"], aggs["max"]["value_as_string"]


def lookup_ms(alias: str, chunks: int = 13, size: int = 1000) -> float:
    """Median ms of one chunk's look-up (indexer/added_dates.known_dates) on the live version, as the sender
    makes it, for comparison with the time a chunk takes to index."""
    import statistics

    from bench.common import INDEXER_USER, es_url, identity
    from indexer.added_dates import known_dates
    from papersearch.es import make_client
    from papersearch.settings import Settings

    user, password = identity(INDEXER_USER)
    client = make_client("indexer", Settings(ES_URL=es_url(), ES_USERNAME=user, ES_PASSWORD=password))
    hits = client.search(index=alias, size=chunks * size, source=False, sort=["_doc"])["hits"]["hits"]
    ids = [h["_id"] for h in hits]
    times = []
    for i in range(0, len(ids), size):
        started = time.perf_counter()
        found = known_dates(client, alias, ids[i:i + size])
        times.append((time.perf_counter() - started) * 1000)
        assert len(found) == len(ids[i:i + size])
    return round(statistics.median(times), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--pause", type=float, default=3.0)
    parser.add_argument("--cleanup", action="store_true")
    args = parser.parse_args(argv)
    ensure_node()
    corpus = ensure_corpus(args.size, args.seed, log=log)
    runs: dict[str, list[Run]] = {"first": [], "rebuild": []}
    checks = []
    for i in range(args.repeats):
        for kind in ("first", "rebuild") if i % 2 == 0 else ("rebuild", "first"):
            time.sleep(args.pause)
            before = added_dates(ALIAS) if kind == "rebuild" else None  # the live version it rebuilds
            run = run_ours(corpus, ALIAS, fresh=kind == "first")
            if before is not None:
                after = added_dates(run.index)
                checks.append({"kept": before == after, "before": before, "after": after})
            runs[kind].append(run)
            log(f"  {kind:<7} #{i + 1}: {run.docs} docs in {run.seconds:.2f}s = {run.rate:,.0f} docs/s, "
                f"peak RSS {run.peak_rss_mb:.0f} MB")
    best = {kind: min(rs, key=lambda r: r.seconds) for kind, rs in runs.items()}
    summary = {
        "size": args.size, "machine": machine(),
        "first_seconds": round(best["first"].seconds, 2), "rebuild_seconds": round(best["rebuild"].seconds, 2),
        "ratio_rebuild_to_first": round(best["rebuild"].seconds / best["first"].seconds, 3),
        "cpu_us_per_doc": {kind: cpu_per_doc(rs) for kind, rs in runs.items()},
        "peak_rss_mb": {kind: round(max(r.peak_rss_mb or 0 for r in rs), 1) for kind, rs in runs.items()},
        "dates_kept": checks, "lookup_ms_per_1000_papers": lookup_ms(ALIAS),
        "runs": {kind: [asdict(r) for r in rs] for kind, rs in runs.items()},
    }
    out = RESULTS_DIR / f"added-dates-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k not in ("runs", "machine")}, indent=2))
    log(f"written to {out}")
    if args.cleanup:
        delete_indices(f"{ALIAS}*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
