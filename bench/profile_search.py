"""Where the time of one /api/search goes inside the webapp, in process, against the real node.

    .venv/bin/python -m bench.profile_search --alias papersbench_idx [--mix cheap|full] [--rounds 30] [--top 30]

The app is made by webapp.create_app as under gunicorn (metrics, query log to the benchmark's own
indices, the rate limiter on unless --no-rate-limit) and driven through Flask's test client, so there is
no HTTP server in the way. For each query of the mix it reports the wall time of the whole request and
the part spent waiting in Elasticsearch requests (the client's perform_request, which includes
encoding the body and decoding the answer): the rest is the web layer's own Python. Then cProfile over
all rounds (top functions by own and by cumulative time). Then the CPU per request with Elasticsearch's
answers replayed from a recording (no node in the way: the web layer's own cost, steady even on a
shared machine).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import threading
import time
from typing import Any

import orjson

from bench import common
from bench.common import WEB_USER, es_url, identity, log
from bench.search_mix import QUERY_MIX, cheap_mix


class EsClock:
    """Wall time spent inside Elasticsearch.perform_request (every request the service sends). With
    `replaying` set, answers from what was recorded for the same request instead of asking the node."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.requests = 0
        self.recorded: dict[tuple[str, str, bytes], Any] = {}
        self.replaying = False

    def install(self) -> None:
        from elasticsearch import Elasticsearch

        original = Elasticsearch.perform_request
        clock = self

        def timed(client: Any, method: str, path: str, **kwargs: Any) -> Any:
            if threading.current_thread() is not threading.main_thread():  # the query log's writer
                return original(client, method, path, **kwargs)
            key = (method, path, orjson.dumps(kwargs.get("body")))
            if clock.replaying and key in clock.recorded:
                return clock.recorded[key]
            started = time.perf_counter()
            try:
                clock.recorded[key] = answer = original(client, method, path, **kwargs)
                return answer
            finally:
                clock.seconds += time.perf_counter() - started
                clock.requests += 1

        Elasticsearch.perform_request = timed  # type: ignore[method-assign]


def replayed_cpu(client: Any, clock: EsClock, mix: list[tuple[str, dict]], rounds: int) -> float:
    """CPU µs per request of the whole app with Elasticsearch's answers replayed (best of 3): the web
    layer's own cost without the node, steady on a shared machine (Flask's test client included)."""
    clock.replaying = True
    best = float("inf")
    try:
        for _ in range(3):
            started = time.process_time()
            for _ in range(rounds):
                for _, params in mix:
                    client.get("/api/search", query_string=params)
            best = min(best, time.process_time() - started)
    finally:
        clock.replaying = False
    return best / (rounds * len(mix)) * 1e6


def make_app(alias: str, rate_limit: bool) -> Any:
    from papersearch.settings import Settings
    from webapp import create_app

    user, password = identity(WEB_USER)
    settings = Settings(ES_URL=es_url(), ES_WEB_USERNAME=user, ES_WEB_PASSWORD=password, PAPERSEARCH_ALIAS=alias,
                        PAPERSEARCH_QUERY_LOG_INDEX=common.BENCH_QUERY_LOG)
    return create_app(settings, rate_limit="1000000/minute" if rate_limit else "off")


def per_query(client: Any, clock: EsClock, mix: list[tuple[str, dict]], rounds: int) -> list[dict]:
    rows = []
    for name, params in mix:
        total, in_es, calls = [], [], 0
        for _ in range(rounds):
            clock.seconds, clock.requests = 0.0, 0
            started = time.perf_counter()
            r = client.get("/api/search", query_string=params)
            total.append((time.perf_counter() - started) * 1000)
            assert r.status_code == 200, r.get_data(as_text=True)[:300]
            in_es.append(clock.seconds * 1000)
            calls = clock.requests
        t, e = statistics.median(total), statistics.median(in_es)
        rows.append({"kind": name, "params": params, "total_ms": round(t, 2), "es_ms": round(e, 2),
                     "web_ms": round(t - e, 2), "es_requests": calls})
        log(f"  {name:<12} {str(params)[:60]:<60} total {t:6.2f} ms  in ES {e:6.2f} ms  "
            f"web {t - e:5.2f} ms  requests {calls}")
    return rows


def profile(client: Any, mix: list[tuple[str, dict]], rounds: int, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(rounds):
        for _, params in mix:
            client.get("/api/search", query_string=params)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alias", default="papersbench_idx")
    parser.add_argument("--mix", choices=("cheap", "full"), default="cheap")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-rate-limit", action="store_true")
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args(argv)
    clock = EsClock()
    clock.install()
    app = make_app(args.alias, not args.no_rate_limit)
    client = app.test_client()
    mix = cheap_mix() if args.mix == "cheap" else QUERY_MIX
    for _ in range(3):  # warm-up: connections, caches, the profile look-up
        for _, params in mix:
            client.get("/api/search", query_string=params)
    rows = per_query(client, clock, mix, args.rounds)
    web = [r["web_ms"] for r in rows]
    log(f"web layer per request: median {statistics.median(web):.2f} ms, mean {statistics.mean(web):.2f} ms")
    log(f"web layer CPU per request, Elasticsearch's answers replayed: {replayed_cpu(client, clock, mix, 20):.0f} µs")
    if not args.no_profile:
        print(profile(client, mix, max(1, args.rounds // 3), args.top))
    app.extensions["recorder"].writer and app.extensions["recorder"].writer.close()
    common.delete_bench_query_log()
    return 0


if __name__ == "__main__":
    sys.exit(main())
