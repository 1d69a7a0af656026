"""What the query log (and the search metrics) cost a search.

    .venv/bin/python -m bench.querylog_overhead --alias papersbench_idx [--clients 1,8] [--seconds 20]
    .venv/bin/python -m bench.search --alias papersbench_idx --query-log-overhead     (the same, after the search bench)

(a) step    the recording step alone, in process: Recorder.search() — the metrics counters, building the
            query-log event and putting it into the writer's buffer — timed call by call over the
            results of the real query mix, with the writer sending to the node in the background;
            and the same step with the query log off (counters only).
(b) e2e     GET /api/search on two gunicorns started the same way, PAPERSEARCH_QUERY_LOG=on and =off,
            phases alternating on/off/off/on per concurrency level; the difference of the p50s.
Target: ≤ 1 ms at p50 (issue 15). (b) is noisy on a shared machine; (a) is the cost itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from bench.common import BENCH_QUERY_LOG, WEB_USER, delete_bench_query_log, es_url, identity, log, percentile
from bench.search import server_arguments
from bench.search_load import Api, Gunicorn, Phase, run_phase
from bench.search_mix import QUERY_MIX

TARGET_P50_MS = 1.0


def _stats_us(samples_ns: list[int]) -> dict[str, float]:
    values = sorted(s / 1000 for s in samples_ns)
    return {"calls": len(values), "p50_us": round(percentile(values, 50), 1),
            "p95_us": round(percentile(values, 95), 1), "p99_us": round(percentile(values, 99), 1),
            "mean_us": round(sum(values) / len(values), 1)}


def recording_step(alias: str, calls: int = 5000) -> dict[str, Any]:
    from werkzeug.datastructures import MultiDict

    from papersearch.settings import Settings
    from webapp import create_app
    from webapp.controllers.events import Recorder

    user, password = identity(WEB_USER)
    settings = Settings(ES_URL=es_url(), ES_WEB_USERNAME=user, ES_WEB_PASSWORD=password, PAPERSEARCH_ALIAS=alias,
                        PAPERSEARCH_QUERY_LOG="on", PAPERSEARCH_QUERY_LOG_INDEX=BENCH_QUERY_LOG)
    app = create_app(settings, rate_limit="off")
    service, request_args = app.extensions["search_service"], app.extensions["request_args"]
    results = [service.search(request_args.search(MultiDict(
        [(k, v) for k, vs in params.items() for v in (vs if isinstance(vs, list) else [vs])])))
        for _, params in QUERY_MIX]
    out: dict[str, Any] = {}
    drops: dict[str, int] = {}
    logged = app.extensions["recorder"]
    for name, recorder in (("log_on", logged), ("log_off", Recorder(None, logged.query_ids))):
        if recorder.writer is not None:
            recorder.writer.on_drop = lambda n, reason: drops.__setitem__(reason, drops.get(reason, 0) + n)
        samples: list[int] = []
        for i in range(calls):
            result = results[i % len(results)]
            start = time.perf_counter_ns()
            recorder.search(result, "api", "en")
            samples.append(time.perf_counter_ns() - start)
            if i % 500 == 499:
                time.sleep(0.05)  # let the writer thread send, as between real requests
        out[name] = _stats_us(samples)
        if recorder.writer is not None:
            recorder.writer.close(timeout=30)
    out["dropped"] = drops
    return out


def end_to_end(alias: str, clients: list[int], seconds: float, workers: int | None) -> list[dict[str, Any]]:
    levels = []
    with Gunicorn(alias, workers, {"PAPERSEARCH_QUERY_LOG": "on"}, name="gunicorn-log-on") as on, \
            Gunicorn(alias, workers, {"PAPERSEARCH_QUERY_LOG": "off"}, name="gunicorn-log-off") as off:
        targets = {"on": Api(on.url), "off": Api(off.url)}
        for target in targets.values():  # warm-up: caches, connections, worker imports
            run_phase(target, 4, 2 * len(QUERY_MIX), 20)
        for c in clients:
            n = max(len(QUERY_MIX) * 4, 150 * c)
            merged = {"on": Phase("on", c), "off": Phase("off", c)}
            for order in (("on", "off"), ("off", "on"), ("on", "off"), ("off", "on")):
                for key in order:
                    merged[key].merge(run_phase(targets[key], c, n // 4, seconds / 4))
            a, b = merged["on"].stats(), merged["off"].stats()
            diff = round(a["p50_ms"] - b["p50_ms"], 2)
            levels.append({"clients": c, "log_on": a, "log_off": b, "p50_diff_ms": diff,
                           "p50_target_met": a["errors"] == 0 and diff <= TARGET_P50_MS})
            log(f"  {c:>2} clients: query log on p50 {a['p50_ms']} ms, off {b['p50_ms']} ms, difference {diff} ms")
    return levels


def bench_query_log(alias: str, clients: list[int], seconds: float = 20.0, workers: int | None = None) -> dict:
    log("query-log overhead: the recording step in process")
    try:
        step = recording_step(alias)
        log(f"  Recorder.search p50 {step['log_on']['p50_us']} µs with the log, {step['log_off']['p50_us']} µs without")
        log("query-log overhead: /api/search with the log on and off")
        return {"target_p50_ms": TARGET_P50_MS, "step": step,
                "step_p50_target_met": step["log_on"]["p50_us"] / 1000 <= TARGET_P50_MS,
                "levels": end_to_end(alias, clients, seconds, workers)}
    finally:
        delete_bench_query_log()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    args = server_arguments(parser, clients="1,8").parse_args(argv)
    result = bench_query_log(args.alias, [int(c) for c in args.clients.split(",")], args.seconds, args.workers)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
