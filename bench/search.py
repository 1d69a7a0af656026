"""Search latency: /api/search under gunicorn against the same request bodies sent straight to Elasticsearch.

    .venv/bin/python -m bench.search --alias papersbench_idx [--clients 1,8,32] [--seconds 20]

(a) api     GET /api/search?… on a gunicorn we start ourselves (config/gunicorn.conf.py, webapp.wsgi:app,
            a free loopback port, PAPERSEARCH_ALIAS = the bench alias, rate limit off, access log to a
            file) — the whole stack: Flask, parameter parsing, query building, ES round trip, hit and
            facet shaping, JSON.
(b) direct  POST /<alias>/_search with the exact body our service builds for the same parameters
            (webapp.controllers.params.RequestArgs → query/parser.py parse_query →
            plan.Search → render.body, imported, not re-implemented), as the same read-only web user,
            pre-serialised.
Each level of concurrency runs both targets twice in alternating order (a b, b a); every client is a
thread with its own requests.Session; each phase stops after --requests or --seconds, whichever
first. Errors = non-200 answers, ES timed_out/shard failures, exceptions.

Not included in (b): the service's "did you mean" count, which it sends only when a query word is
found nowhere in the index and a correction exists; the mix's queries find papers (checked and
reported per query).

The mix is 24 searches repeated, so after the warm-up every results page within search.result_cache.within comes
from the node's request cache (DECISIONS.md D-228): the figures of searches people repeat. --no-result-cache runs
the webapp and the direct bodies with a copy of config/ whose result_cache.within is 0, so no page asks for the cache:
the figures of searches nobody made since the last refresh (size-0 requests, the facets and the author look-up, are
still cached by Elasticsearch's default).

Modules: bench/search_mix.py (the queries, the bodies the service sends for them, the config without the result cache),
bench/search_load.py (gunicorn, client threads, the two targets), this file (levels, report, CLI).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import common
from bench.common import log
from bench.search_load import Api, CpuMeter, Direct, Gunicorn, Phase, run_phase
from bench.search_mix import QUERY_MIX, cheap_mix, check_mix, highlight_cost, without_result_cache


def run_levels(api: Api, direct: Direct, clients: list[int], seconds: float, requests_per_client: int,
               max_requests: int, meter: CpuMeter | None = None) -> list[dict]:
    levels = []
    for c in clients:
        n = min(max_requests, max(len(api.mix) * 2, requests_per_client * c))
        merged = {"api": Phase("api", c), "direct": Phase("direct", c)}
        for order in ((api, direct), (direct, api)):
            for target in order:
                phase = functools.partial(run_phase, target, c, n // 2, seconds / 2)
                merged[target.name].merge(meter.measure(phase) if meter else phase())
        a, b = merged["api"].stats(), merged["direct"].stats()
        levels.append({"clients": c, "api": a, "direct": b,
                       "p50_ratio": round(a["p50_ms"] / b["p50_ms"], 2) if b["p50_ms"] else None,
                       "p95_ratio": round(a["p95_ms"] / b["p95_ms"], 2) if b["p95_ms"] else None,
                       "p50_target_ms": round(1.2 * b["p50_ms"] + 3, 2),
                       # with errors (503 after the webapp's 2 s ES timeout) the api's latencies are cut short
                       "p50_target_met": a["errors"] == 0 and a["p50_ms"] <= 1.2 * b["p50_ms"] + 3})
        log(f"  {c:>2} clients: api p50 {a['p50_ms']} p95 {a['p95_ms']} p99 {a['p99_ms']} ms "
            f"{a['req_per_s']} req/s err {a['errors']} | direct p50 {b['p50_ms']} p95 {b['p95_ms']} "
            f"p99 {b['p99_ms']} ms {b['req_per_s']} req/s err {b['errors']} | CPU ms/request: api gunicorn "
            f"{a.get('gunicorn_cpu_ms_per_req')} es {a.get('es_cpu_ms_per_req')}, "
            f"direct es {b.get('es_cpu_ms_per_req')}")
    return levels


def bench_search(alias: str, clients: list[int], seconds: float = 20.0, requests_per_client: int = 150,
                 max_requests: int = 3000, workers: int | None = None, subset_seconds: float = 12.0) -> dict:
    """Two mixes: "full" (QUERY_MIX) and "no_fuzzy" (its queries without fuzzy clauses), which
    isolates the web stack's own overhead from the cost of highlighting fuzzy matches."""
    mix = check_mix(alias)
    highlight = highlight_cost(alias, repeats=2)
    subset = cheap_mix()
    results: dict[str, Any] = {"alias": alias, "mix": mix, "highlight_cost_took_ms": highlight,
                               "no_fuzzy_queries": [p for _, p in subset], "levels": [], "levels_no_fuzzy": []}
    with Gunicorn(alias, workers) as server:
        results["gunicorn"] = {"url": server.url, "workers": workers or "config default"}
        api, direct, meter = Api(server.url), Direct(alias), CpuMeter(server)
        for target in (api, direct):  # warm-up: caches, connections, worker imports
            run_phase(target, 4, 2 * len(QUERY_MIX), 20)
        log(f"  full mix ({len(QUERY_MIX)} queries)")
        results["levels"] = run_levels(api, direct, clients, seconds, requests_per_client, max_requests, meter)
        log(f"  no-fuzzy mix ({len(subset)} queries)")
        results["levels_no_fuzzy"] = run_levels(Api(server.url, subset), Direct(alias, subset), clients,
                                                subset_seconds, requests_per_client, max_requests, meter)
    common.delete_bench_query_log()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alias", default="papersbench_idx", help="a papersbench_* alias with data")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--seconds", type=float, default=20.0, help="max seconds per target and level")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: the config's)")
    parser.add_argument("--no-result-cache", action="store_true",
                        help="no results page asks for the request cache (result_cache.within 0)")
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    with tempfile.TemporaryDirectory(prefix="papersbench-config-") as folder:
        if args.no_result_cache:  # before the first config read, here and in the gunicorn started below
            os.chmod(folder, 0o755)  # gunicorn started as root reads it as the web user (D-213)
            os.environ["PAPERSEARCH_CONFIG_DIR"] = str(without_result_cache(Path(folder) / "config"))
        result = bench_search(args.alias, clients, args.seconds, workers=args.workers)
    result = {"command": " ".join(["python -m bench.search", *(argv or sys.argv[1:])]),
              "result_cache": not args.no_result_cache, **result}
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
