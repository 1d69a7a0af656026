"""Search latency: /api/search under gunicorn against the same request bodies sent straight to Elasticsearch.

    .venv/bin/python -m bench.search --alias papersbench_idx [--clients 1,8,32] [--seconds 20]

(a) api     GET /api/search?… on a gunicorn we start ourselves (config/gunicorn.conf.py, webapp.wsgi:app,
            a free loopback port, PAPERSEARCH_ALIAS = the bench alias, rate limit off, access log to a
            file) — the whole stack: Flask, parameter parsing, query building, ES round trip, hit and
            facet shaping, JSON.
(b) direct  POST /<alias>/_search with the exact body our service builds for the same parameters
            (webapp.controllers.params.RequestArgs → query_parser.parse_query →
            query_builders.search_body, imported, not re-implemented), as the same read-only web user,
            pre-serialised.
Each level of concurrency runs both targets twice in alternating order (a b, b a); every client is a
thread with its own requests.Session; each phase stops after --requests or --seconds, whichever
first. Errors = non-200 answers, ES timed_out/shard failures, exceptions.

Not included in (b): the service's extra "did you mean" requests, which it sends only when a query
finds fewer than 5 papers; the query mix is chosen so that every query finds more (checked and
reported per query).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import requests

from bench import common
from bench.common import DATA_DIR, ROOT, VENV_BIN, WEB_USER, es_url, identity, log, percentile, session

# (name, URL parameters). Repeated parameters are lists.
QUERY_MIX: list[tuple[str, dict[str, Any]]] = [
    ("term", {"q": "diffusion"}),
    ("term", {"q": "convergence"}),
    ("terms", {"q": "language models"}),
    ("terms", {"q": "transformer attention scaling"}),
    ("phrase", {"q": '"large language models"'}),
    ("phrase", {"q": '"gradient descent"'}),
    ("author", {"q": "author:Müller"}),
    ("author", {"q": 'author:"Søren Hauberg"'}),
    ("author-fuzzy", {"q": "author:Soren"}),
    ("chinese", {"q": "深度学习"}),
    ("chinese", {"q": "图神经网络 方法"}),
    ("chinese", {"q": "大语言模型"}),
    ("mixed", {"q": "Transformer模型"}),
    ("facet", {"q": "reinforcement", "area": "Reinforcement Learning"}),
    ("facet", {"q": "", "area": "Deep Learning", "year": "2024"}),
    ("facet", {"q": "neural", "subarea": "Deep Learning > Large Language Models", "year": ["2023", "2024"]}),
    ("deep-page", {"q": "optimization", "page": "50"}),
    ("deep-page", {"q": "learning", "page": "99", "size": "100"}),
    ("sort-year", {"q": "neural", "sort": "year"}),
    ("sort-title", {"q": "models", "sort": "title"}),
    ("exclude", {"q": "sampling -diffusion"}),
    ("field", {"q": "title:scaling"}),
    ("typo", {"q": "stochastik optimisation"}),
    ("browse", {"q": ""}),
]


def search_body(params: dict[str, Any], fuzzy: bool = True) -> dict:
    """A body SearchService.search sends for these URL parameters (the service's own functions)."""
    from werkzeug.datastructures import MultiDict

    from papersearch.index_definition import search_config
    from webapp.controllers.params import RequestArgs
    from webapp.services import query_builders as qb
    from webapp.services.query_parser import parse_query

    config = search_config()
    args = MultiDict([(k, v) for k, vs in params.items() for v in (vs if isinstance(vs, list) else [vs])])
    parsed_params = RequestArgs(config).search(args)
    parsed = parse_query(parsed_params.q)
    return qb.search_body(parsed, parsed_params, config, fuzzy=fuzzy)


def service_bodies(alias: str, params: dict[str, Any]) -> list[dict]:
    """Every body SearchService.search sends for these parameters on this alias, in order: the words
    as typed, then the typo-tolerant form when they find fewer than FUZZY_BELOW papers (plugin-profile
    indices; the bench corpus is indexed with the plugin)."""
    from papersearch.index_definition import search_config
    from webapp.controllers.params import collapse
    from webapp.services import query_builders as qb
    from webapp.services.query_parser import parse_query
    from webapp.services.search import FUZZY_BELOW

    exact = search_body(params, fuzzy=False)
    r = session(WEB_USER).post(f"{es_url()}/{alias}/_search", data=json.dumps(exact).encode(), timeout=30)
    r.raise_for_status()
    parsed = parse_query(collapse(params.get("q", "")))
    if r.json()["hits"]["total"]["value"] < FUZZY_BELOW and qb.has_typo_fallback(parsed, search_config()):
        return [exact, search_body(params, fuzzy=True)]
    return [exact]


# --- gunicorn ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gunicorn:
    def __init__(self, alias: str, workers: int | None = None, env: dict[str, str] | None = None,
                 name: str = "gunicorn") -> None:
        self.alias = alias
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        # The query log (on by default) goes to the benchmark's own daily indices, deleted afterwards.
        self.env = {"PAPERSEARCH_QUERY_LOG_INDEX": common.BENCH_QUERY_LOG, **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.log_path = DATA_DIR / f"{name}.log"

    def __enter__(self) -> Gunicorn:
        user, password = identity(WEB_USER)
        env = {**os.environ, "ES_URL": es_url(), "ES_WEB_USERNAME": user, "ES_WEB_PASSWORD": password,
               "PAPERSEARCH_ALIAS": self.alias, "PAPERSEARCH_BIND": f"127.0.0.1:{self.port}",
               "PAPERSEARCH_RATE_LIMIT": "off", **self.env}
        if self.workers:
            env["PAPERSEARCH_WORKERS"] = str(self.workers)
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("w")
        self.proc = subprocess.Popen([str(VENV_BIN / "gunicorn"), "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"],
                                     cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited ({self.proc.returncode}): {self.log_path.read_text()[-2000:]}")
            try:
                if requests.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        self.__exit__()
        raise RuntimeError(f"gunicorn not ready on {self.url}: {self.log_path.read_text()[-2000:]}")

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # only the process we started
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


# --- load generation --------------------------------------------------------------------------------


@dataclass
class Phase:
    target: str
    clients: int
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def merge(self, other: Phase) -> None:
        self.latencies_ms += other.latencies_ms
        self.errors += other.errors
        self.error_samples = (self.error_samples + other.error_samples)[:5]
        self.seconds += other.seconds

    def stats(self) -> dict:
        lat = sorted(self.latencies_ms)
        n = len(lat)
        return {
            "requests": n, "errors": self.errors,
            "p50_ms": round(percentile(lat, 50), 2), "p95_ms": round(percentile(lat, 95), 2),
            "p99_ms": round(percentile(lat, 99), 2), "mean_ms": round(sum(lat) / n, 2) if n else None,
            "req_per_s": round(n / self.seconds, 1) if self.seconds else None,
            "error_samples": self.error_samples,
        }


class Target:
    name = ""
    mix: list[tuple[str, dict[str, Any]]] = QUERY_MIX

    def make_session(self) -> requests.Session:
        raise NotImplementedError

    def call(self, s: requests.Session, i: int) -> str | None:
        """Run query i; None on success, else an error description."""
        raise NotImplementedError


class Api(Target):
    name = "api"

    def __init__(self, base: str, mix: list[tuple[str, dict[str, Any]]] = QUERY_MIX) -> None:
        self.base = base
        self.mix = mix
        self.params = [p for _, p in mix]

    def make_session(self) -> requests.Session:
        return requests.Session()

    def call(self, s: requests.Session, i: int) -> str | None:
        r = s.get(f"{self.base}/api/search", params=self.params[i], timeout=30)
        if r.status_code != 200:
            return f"HTTP {r.status_code}: {r.text[:200]}"
        return None


class Direct(Target):
    name = "direct"

    def __init__(self, alias: str, mix: list[tuple[str, dict[str, Any]]] = QUERY_MIX) -> None:
        self.url = f"{es_url()}/{alias}/_search"
        self.mix = mix
        self.bodies = [[json.dumps(b, ensure_ascii=False).encode() for b in service_bodies(alias, p)]
                       for _, p in mix]

    def make_session(self) -> requests.Session:
        return session(WEB_USER)

    def call(self, s: requests.Session, i: int) -> str | None:
        for body in self.bodies[i]:
            r = s.post(self.url, data=body, timeout=30)
            if r.status_code != 200:
                return f"HTTP {r.status_code}: {r.text[:200]}"
            head = r.content[:300]
            if b'"timed_out":true' in head or b'"failed":0' not in head:
                return f"partial: {head[:200]!r}"
        return None


def run_phase(target: Target, clients: int, max_requests: int, max_seconds: float) -> Phase:
    phase = Phase(target.name, clients)
    lock = threading.Lock()
    counter = iter(range(max_requests))
    deadline = time.perf_counter() + max_seconds
    n_queries = len(target.mix)

    def worker(offset: int) -> None:
        s = target.make_session()
        local: list[float] = []
        errors: list[str] = []
        try:
            while time.perf_counter() < deadline:
                with lock:
                    k = next(counter, None)
                if k is None:
                    break
                i = (k + offset) % n_queries
                t0 = time.perf_counter()
                try:
                    err = target.call(s, i)
                except requests.RequestException as exc:
                    err = f"{type(exc).__name__}: {exc}"
                local.append((time.perf_counter() - t0) * 1000)
                if err:
                    errors.append(f"{target.mix[i][1]}: {err}")
        finally:
            s.close()
            with lock:
                phase.latencies_ms += local
                phase.errors += len(errors)
                phase.error_samples = (phase.error_samples + errors)[:5]

    threads = [threading.Thread(target=worker, args=(t * 7,)) for t in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.perf_counter() - started
    return phase


def check_mix(alias: str) -> list[dict]:
    """Per query: hits found and ES 'took' (direct), so the mix is known to be meaningful."""
    s = session(WEB_USER)
    out = []
    for name, params in QUERY_MIX:
        r = s.post(f"{es_url()}/{alias}/_search", data=json.dumps(search_body(params)).encode(), timeout=30)
        r.raise_for_status()
        body = r.json()
        out.append({"kind": name, "params": params, "total": body["hits"]["total"]["value"], "took_ms": body["took"]})
    return out


def strip_fuzzy(query: Any) -> Any:
    """The query without its fuzzy alternatives (fuzzy multi_match, intervals with fuzzy rules)."""
    if isinstance(query, list):
        kept = [strip_fuzzy(q) for q in query]
        return [q for q in kept if q is not None]
    if not isinstance(query, dict):
        return query
    if "multi_match" in query and "fuzziness" in query["multi_match"]:
        return None
    if "intervals" in query and "fuzzy" in json.dumps(query):
        return None
    if "bool" in query:
        inner = {k: strip_fuzzy(v) if k in ("must", "should", "filter", "must_not") else v
                 for k, v in query["bool"].items()}
        return {"bool": inner}
    return query


def highlight_cost(alias: str, repeats: int = 3) -> list[dict]:
    """Per query: ES 'took' of the service's body vs the same body with highlight_query = the query
    minus its fuzzy alternatives (best of `repeats`). Diagnostic only: shows what highlighting costs."""
    s = session(WEB_USER)
    out = []
    for name, params in QUERY_MIX:
        body = search_body(params)
        variants = {"as_sent": body}
        if "highlight" in body:
            stripped = strip_fuzzy(body["query"])
            if stripped != body["query"]:
                variants["highlight_query_without_fuzzy"] = {
                    **body, "highlight": {**body["highlight"], "highlight_query": stripped}}
            variants["no_highlight"] = {k: v for k, v in body.items() if k != "highlight"}
        row: dict[str, Any] = {"kind": name, "params": params}
        for label, b in variants.items():
            data = json.dumps(b, ensure_ascii=False).encode()
            row[label] = min(s.post(f"{es_url()}/{alias}/_search", data=data, timeout=60).json()["took"]
                             for _ in range(repeats))
        out.append(row)
    return out


def without_fuzzy_highlighting() -> list[tuple[str, dict[str, Any]]]:
    """The queries of the mix without a fuzzy multi_match (the clause whose highlighting is expensive)."""
    def fuzzy_multi_match(q: Any) -> bool:
        if isinstance(q, list):
            return any(fuzzy_multi_match(x) for x in q)
        if isinstance(q, dict):
            if "fuzziness" in q.get("multi_match", {}):
                return True
            return any(fuzzy_multi_match(v) for v in q.values())
        return False

    return [(n, p) for n, p in QUERY_MIX if not fuzzy_multi_match(search_body(p)["query"])]


def run_levels(api: Api, direct: Direct, clients: list[int], seconds: float, requests_per_client: int,
               max_requests: int) -> list[dict]:
    levels = []
    for c in clients:
        n = min(max_requests, max(len(api.mix) * 2, requests_per_client * c))
        merged = {"api": Phase("api", c), "direct": Phase("direct", c)}
        for order in ((api, direct), (direct, api)):
            for target in order:
                merged[target.name].merge(run_phase(target, c, n // 2, seconds / 2))
        a, b = merged["api"].stats(), merged["direct"].stats()
        levels.append({"clients": c, "api": a, "direct": b,
                       "p50_ratio": round(a["p50_ms"] / b["p50_ms"], 2) if b["p50_ms"] else None,
                       "p95_ratio": round(a["p95_ms"] / b["p95_ms"], 2) if b["p95_ms"] else None,
                       "p50_target_ms": round(1.2 * b["p50_ms"] + 3, 2),
                       # with errors (503 after the webapp's 2 s ES timeout) the api's latencies are cut short
                       "p50_target_met": a["errors"] == 0 and a["p50_ms"] <= 1.2 * b["p50_ms"] + 3})
        log(f"  {c:>2} clients: api p50 {a['p50_ms']} p95 {a['p95_ms']} p99 {a['p99_ms']} ms "
            f"{a['req_per_s']} req/s err {a['errors']} | direct p50 {b['p50_ms']} p95 {b['p95_ms']} "
            f"p99 {b['p99_ms']} ms {b['req_per_s']} req/s err {b['errors']}")
    return levels


def bench_search(alias: str, clients: list[int], seconds: float = 20.0, requests_per_client: int = 150,
                 max_requests: int = 3000, workers: int | None = None, subset_seconds: float = 12.0) -> dict:
    """Two mixes: "full" (QUERY_MIX) and "no_fuzzy" (its queries without fuzzy clauses), which
    isolates the web stack's own overhead from the cost of highlighting fuzzy matches."""
    mix = check_mix(alias)
    highlight = highlight_cost(alias, repeats=2)
    few = [m for m in mix if m["total"] < 5]
    if few:
        log(f"warning: queries with < 5 hits (the service adds 'did you mean' requests): {few}")
    subset = without_fuzzy_highlighting()
    results: dict[str, Any] = {"alias": alias, "mix": mix, "highlight_cost_took_ms": highlight,
                               "no_fuzzy_queries": [p for _, p in subset], "levels": [], "levels_no_fuzzy": []}
    with Gunicorn(alias, workers) as server:
        results["gunicorn"] = {"url": server.url, "workers": workers or "config default"}
        api, direct = Api(server.url), Direct(alias)
        for target in (api, direct):  # warm-up: caches, connections, worker imports
            run_phase(target, 4, 2 * len(QUERY_MIX), 20)
        log(f"  full mix ({len(QUERY_MIX)} queries)")
        results["levels"] = run_levels(api, direct, clients, seconds, requests_per_client, max_requests)
        log(f"  no-fuzzy mix ({len(subset)} queries)")
        results["levels_no_fuzzy"] = run_levels(Api(server.url, subset), Direct(alias, subset), clients,
                                                subset_seconds, requests_per_client, max_requests)
    common.delete_bench_query_log()
    return results


def server_arguments(parser: argparse.ArgumentParser, clients: str) -> argparse.ArgumentParser:
    parser.add_argument("--alias", default="papersbench_idx", help="a papersbench_* alias with data")
    parser.add_argument("--clients", default=clients)
    parser.add_argument("--seconds", type=float, default=20.0, help="max seconds per target and level")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: the config's)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = server_arguments(argparse.ArgumentParser(description=__doc__,
                                                      formatter_class=argparse.RawDescriptionHelpFormatter), "1,8,32")
    parser.add_argument("--query-log-overhead", action="store_true",
                        help="also measure the query log's cost (bench/querylog_overhead.py)")
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    result = bench_search(args.alias, clients, args.seconds, workers=args.workers)
    if args.query_log_overhead:
        from bench.querylog_overhead import bench_query_log

        result["query_log"] = bench_query_log(args.alias, clients, args.seconds, workers=args.workers)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
