"""Search throughput and latency on 1 vs 3 local nodes, same corpus, same query mix.

    .venv/bin/python -m bench.cluster [--size 100000] [--clients 1,8,32] [--seconds 20] [--nodes 1,3]

For each cluster size a separate local cluster is started (`papersearch-node` instance bench-<N>; the
project's own node is not touched), the synthetic corpus (bench.corpus, generated once) is loaded by
our indexer (replicas as the indexer's default gives them: 0 on one node, 1 on three), and
bench.search runs unchanged: /api/search under gunicorn (which gets every node's URL) and the same
bodies straight to the first node. The cluster is stopped and wiped before the next size, so the two
never share the machine. Heap: config/node.toml's (1 GB) for one node, 512 MB each for three
(PAPERSEARCH_NODE_HEAP overrides both). On a 2-core machine three JVMs share the same CPUs, so this
measures the cost of the cluster's coordination, not a gain in capacity (docs/operations.md, Sizing).

Prints a table and writes bench/results/cluster-<UTC time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import RESULTS_DIR, identity, log, machine
from bench.corpus import DEFAULT_SEED, SIZES, ensure_corpus
from bench.search import bench_search
from indexer import operations
from indexer.rejects import RejectsWriter
from papersearch.es import make_client
from papersearch.localnode.config import NodeConfig
from papersearch.localnode.node import LocalNode
from papersearch.settings import Settings

ALIAS = "papersbench_cluster"


def load(urls: list[str], corpus: Path) -> dict:
    user, password = identity("papersearch_indexer")
    settings = Settings(ES_URL=",".join(urls), ES_USERNAME=user, ES_PASSWORD=password, PAPERSEARCH_ALIAS=ALIAS)
    client = make_client("indexer", settings, request_timeout=300)
    with RejectsWriter(None) as rejects:
        report = operations.reindex(client, settings, [corpus], rejects, progress=False)
    client.cluster.health(index=ALIAS, wait_for_status="green", timeout="300s")
    return {"index": report.index, "docs_per_s": round(report.stats.rate), "seconds": round(report.stats.seconds, 1),
            "replicas": int(client.indices.get_settings(index=report.index)[report.index]["settings"]["index"]
                            ["number_of_replicas"])}


def run_size(nodes: int, corpus: Path, clients: list[int], seconds: float) -> dict:
    node = LocalNode(NodeConfig(instance=f"bench-{nodes}"), nodes=nodes)
    started = time.monotonic()
    node.start()
    start_seconds = round(time.monotonic() - started, 1)
    urls = node.urls()
    saved = os.environ.get("ES_URL")
    os.environ["ES_URL"] = ",".join(urls)  # bench.search: gunicorn gets every node, the raw baseline the first
    try:
        log(f"{nodes} node(s) up in {start_seconds}s at {', '.join(urls)}; loading {corpus.name}")
        loaded = load(urls, corpus)
        log(f"  loaded at {loaded['docs_per_s']} docs/s (replicas {loaded['replicas']}); searching")
        search = bench_search(ALIAS, clients, seconds)
    finally:
        if saved is None:
            os.environ.pop("ES_URL", None)
        else:
            os.environ["ES_URL"] = saved
        node.reset()
    return {"nodes": nodes, "heap": node.cfg.heap_for(nodes), "start_seconds": start_seconds, "load": loaded,
            "levels": search["levels"]}


def table(runs: list[dict]) -> str:
    lines = ["nodes clients  api p50  api p95  api req/s  err | raw p50  raw p95  raw req/s  err",
             "----- ------- -------- -------- ---------- ---- | -------- -------- ---------- ----"]
    for run in runs:
        for lv in run["levels"]:
            a, b = lv["api"], lv["direct"]
            lines.append(f"{run['nodes']:>5} {lv['clients']:>7} {a['p50_ms']:>8.1f} {a['p95_ms']:>8.1f} "
                         f"{a['req_per_s']:>10} {a['errors']:>4} | {b['p50_ms']:>8.1f} {b['p95_ms']:>8.1f} "
                         f"{b['req_per_s']:>10} {b['errors']:>4}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="100k", help="papers: a number, or 13k / 100k / 1m")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--nodes", default="1,3")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--seconds", type=float, default=20.0, help="max seconds per target and level")
    args = parser.parse_args(argv)
    size = SIZES.get(args.size.lower()) or int(args.size)
    corpus = ensure_corpus(size, args.seed, log=log)
    clients = [int(c) for c in args.clients.split(",")]
    runs = [run_size(int(n), corpus, clients, args.seconds) for n in args.nodes.split(",")]
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {"command": "python -m bench.cluster " + " ".join(argv if argv is not None else sys.argv[1:]),
              "when": stamp, "size": size, "machine": machine(), "runs": runs}
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / f"cluster-{stamp}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    print(table(runs))
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
