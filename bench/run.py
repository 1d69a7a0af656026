"""Run the benchmark suite: corpus → indexing (ours vs raw _bulk) → search (api vs direct), per size.

    .venv/bin/python -m bench.run --sizes 13033,100000 [--skip-search] [--repeats N] [--clients 1,8,32]
                                  [--corpus ../shared/corpora/ml-papers-iclr.jsonl.gz ...]

Needs a running node (`make node`): it never starts, stops or resets one. Uses only papersbench_*
aliases/indices and deletes them at the end (--keep to leave the last build for poking around).
Prints a table and writes bench/results/run-<UTC time>.json and bench/results/latest.json.
--corpus adds a real corpus file as an indexing input beside the synthetic sizes (skipped with a
note when the file is absent); `--sizes ""` runs only the given corpora.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import RESULTS_DIR, delete_indices, log, machine, require_node, wait_healthy
from bench.corpus import DEFAULT_SEED

TARGETS = {
    "ratio_min": 0.9,  # ours/raw docs/s at 13k and 100k
    "e2e_13033_max_s": 20.0,
    "search_p95_max_ms_32_clients_100k": 100.0,
}


def default_repeats(size: int) -> int:
    return 3 if size <= 20000 else 2 if size <= 200_000 else 1


def table(results: dict) -> str:
    lines = ["Indexing (best run each; ratio = docs/s ours / docs/s raw)",
             f"{'size':>9} {'ours s':>8} {'ours d/s':>9} {'raw s':>8} {'raw d/s':>9} {'ratio':>6} {'RSS MB':>7}"
             "  corpus"]
    for r in results["indexing"]:
        lines.append(f"{r['size']:>9} {r['ours_seconds'] or 0:>8.2f} {r['ours_docs_per_s'] or 0:>9} "
                     f"{r['raw_seconds'] or 0:>8.2f} {r['raw_docs_per_s'] or 0:>9} {r['ratio'] or 0:>6.2f} "
                     f"{r['ours_peak_rss_mb'] or 0:>7.0f}  {r['corpus']}"
                     + ("" if r.get("concept_tags", True) else " (no concept tags)"))
        if r.get("round_ratios"):
            lines.append(f"          ratio per round (ours and raw back to back): {r['round_ratios']}")
        cpu = r.get("cpu_us_per_doc") or {}
        if cpu.get("ours") or cpu.get("raw"):
            lines.append("          CPU µs/doc (median): " + "; ".join(
                f"{kind}: ES {c['es']}, client {c['client']}" for kind, c in cpu.items() if c))
    if results.get("search"):
        lines += ["", "Search (latency ms; a = /api/search under gunicorn, b = same body straight to ES)",
                  f"{'size':>9} {'cl':>3} {'a p50':>7} {'a p95':>7} {'a p99':>7} {'a r/s':>6} {'a err':>5} "
                  f"{'b p50':>7} {'b p95':>7} {'b p99':>7} {'b r/s':>6} {'b err':>5} {'p50 a/b':>7} {'p50 ok':>6}"]
        lines += level_lines(results["search"], "levels")
        lines += ["", "Search, queries without fuzzy clauses only (the web stack's own overhead)"]
        lines += level_lines(results["search"], "levels_no_fuzzy")
    return "\n".join(lines)


def level_lines(searches: list[dict], key: str) -> list[str]:
    """One line per size and level of concurrency: api (a) and direct (b) side by side."""
    lines = []
    for s in searches:
        for lv in s.get(key, []):
            a, b = lv["api"], lv["direct"]
            lines.append(f"{s['size']:>9} {lv['clients']:>3} {a['p50_ms']:>7.1f} {a['p95_ms']:>7.1f} "
                         f"{a['p99_ms']:>7.1f} {a['req_per_s']:>6} {a['errors']:>5} {b['p50_ms']:>7.1f} "
                         f"{b['p95_ms']:>7.1f} {b['p99_ms']:>7.1f} {b['req_per_s']:>6} {b['errors']:>5} "
                         f"{lv['p50_ratio']:>7} {'yes' if lv['p50_target_met'] else 'no':>6}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="13033,100000")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeats", type=int, help="indexing repeats per size (default 3 ≤20k, 2 ≤200k, else 1)")
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--no-raw", action="store_true", help="skip the raw baseline (e.g. 1M, RSS only)")
    parser.add_argument("--no-tags", action="store_true",
                        help="index without concept tags (an empty glossary), ours and raw alike")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--search-seconds", type=float, default=20.0, help="max seconds per target and level")
    parser.add_argument("--corpus", type=Path, action="append", default=[],
                        help="a real corpus file to index as well (repeatable; skipped when absent)")
    parser.add_argument("--keep", action="store_true", help="leave the benchmark indices in place")
    parser.add_argument("--out", help="results file name under bench/results/ (default run-<time>.json)")
    args = parser.parse_args(argv)

    from bench.indexing import BENCH_ALIAS, bench_indexing
    from bench.search import bench_search

    require_node()
    wait_healthy()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    started = time.time()
    results: dict = {
        "command": "python -m bench.run " + " ".join(argv if argv is not None else sys.argv[1:]),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(), "seed": args.seed, "targets": TARGETS, "indexing": [], "search": [],
    }
    try:
        for size in sizes:
            alias = f"{BENCH_ALIAS}"
            log(f"== {size} papers: indexing")
            idx = bench_indexing(size, args.repeats or default_repeats(size), args.seed, raw=not args.no_raw,
                                 alias=alias, tags=not args.no_tags)
            results["indexing"].append(idx.summary())
            if not args.skip_search:
                log(f"== {size} papers: search")
                wait_healthy()
                search = bench_search(alias, [int(c) for c in args.clients.split(",")], args.search_seconds)
                results["search"].append({"size": size, **search})
        for corpus in args.corpus:
            if not corpus.is_file():
                log(f"== {corpus}: not there; skipped")
                results.setdefault("skipped_corpora", []).append(str(corpus))
                continue
            log(f"== {corpus.name}: indexing")
            idx = bench_indexing(0, args.repeats or 3, args.seed, raw=not args.no_raw, alias=BENCH_ALIAS,
                                 corpus=corpus, tags=not args.no_tags)
            results["indexing"].append(idx.summary())
    finally:
        if not args.keep:
            removed = delete_indices(f"{BENCH_ALIAS}*") + delete_indices("papersbench_raw*")
            log(f"deleted {', '.join(removed) or 'nothing'}")
    results["elapsed_s"] = round(time.time() - started, 1)
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    name = args.out or f"run-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    text = json.dumps(results, indent=1, ensure_ascii=False)
    (RESULTS_DIR / name).write_text(text + "\n", encoding="utf-8")
    (RESULTS_DIR / "latest.json").write_text(text + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nresults: {RESULTS_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
