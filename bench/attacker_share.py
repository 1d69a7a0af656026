"""What one client sending costly searches takes from everyone else (issues 45.2, 53.2): plain searches' latency
alone, then while an attacker sends the probe's query (Chinese concept names filling the clause bound) over
several connections to one route, against one gunicorn at the default rate limit (120/minute, memory://).

    .venv/bin/python -m bench.attacker_share [--root DIR] [--label NAME] [--seconds 20] [--size 13033]
                                              [--attackers 4] [--plain 2] [--routes search,export,feed,author]

--routes: where the attacker sends the query, one attacked phase each (a minute apart, so each starts with a
full window): `search` /api/search with size=100, `export` /api/export?format=csv&limit=1, `feed` /feed,
`author` an author page (/author/<the first author of a plain search's first hit>?q=…).
--root runs the webapp of another checkout (e.g. a worktree of the commit before the fix) on the same node
and corpus: run once with it ("before") and once without ("after"). Every client has its own address
(X-Forwarded-For, PAPERSEARCH_TRUSTED_PROXIES=1), so the limiter counts each apart as it would real visitors.
Writes bench/results/attacker-share-<label>-<UTC time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import requests

from bench.common import RESULTS_DIR, ROOT, VENV_BIN, WEB_USER, es_url, identity, log, machine, percentile, require_node
from bench.corpus import ensure_corpus
from bench.processes import cpu_seconds, es_process
from bench.query_cost import ensure_loaded
from bench.search_load import free_port

ALIAS = "papersbench_share"
PLAIN_PAUSE = 0.6  # seconds between a plain client's searches (~100/minute with their own time)
PLAIN = ["learning", "graph neural networks", "diffusion", "reinforcement learning", "transformer", "retrieval"]


def costly_query(max_clauses: int = 32) -> str:
    """Chinese concept names of the glossary, as many as the query parser takes (max_clauses words): the
    probe's query."""
    from webapp.domain import BadQuery
    from webapp.services.query.parser import parse_query

    names: list[str] = []
    for line in (ROOT / "config" / "concepts.tsv").read_text("utf-8").splitlines():
        row = line.split("\t")
        if line.startswith("#") or len(row) < 4 or not row[3]:
            continue
        try:
            parsed = parse_query(" ".join([*names, row[3].split("|")[0]]))
        except BadQuery:
            break
        if parsed.cut or len(parsed.clauses) > max_clauses:  # a longer query is searched cut (DECISIONS.md D-168)
            break
        names.append(row[3].split("|")[0])
    return " ".join(names)


class Server:
    def __init__(self, root: Path) -> None:
        self.root, self.port = root, free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        user, password = identity(WEB_USER)
        env = {**os.environ, "ES_URL": es_url(), "ES_WEB_USERNAME": user, "ES_WEB_PASSWORD": password,
               "PAPERSEARCH_ALIAS": ALIAS, "PAPERSEARCH_BIND": f"127.0.0.1:{self.port}",
               "PAPERSEARCH_RATE_LIMIT": "120/minute", "PAPERSEARCH_TRUSTED_PROXIES": "1",
               "PAPERSEARCH_QUERY_LOG": "off", "PYTHONPATH": str(self.root)}
        self.proc = subprocess.Popen([str(VENV_BIN / "gunicorn"), "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"],
                                     cwd=self.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                if requests.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                time.sleep(0.3)
        raise RuntimeError("gunicorn did not start")

    def __exit__(self, *exc: object) -> None:
        self.proc.send_signal(signal.SIGTERM)  # only the process we started
        self.proc.wait(timeout=30)


def attack(url: str, route: str) -> tuple[str, dict]:
    """The attacker's path and parameters on a route."""
    q = costly_query()
    if route == "search":
        return "/api/search", {"q": q, "size": 100}
    if route == "export":
        return "/api/export", {"format": "csv", "limit": 1, "q": q}
    if route == "feed":
        return "/feed", {"q": q}
    if route == "author":
        hit = requests.get(f"{url}/api/search", params={"q": "learning", "size": 1}, timeout=30).json()["hits"][0]
        return f"/author/{quote(hit['authors'][0])}", {"q": q}
    raise ValueError(f"unknown route {route!r}")


def run_clients(url: str, plain: int, attackers: int, seconds: float, route: str = "search") -> dict:
    stop = time.monotonic() + seconds
    plain_ms: list[float] = []
    codes: dict[str, dict[int, int]] = {"plain": {}, "attacker": {}}
    lock = threading.Lock()
    costly_path, costly = attack(url, route)

    def client(kind: str, address: str, n: int) -> None:
        s = requests.Session()
        s.headers["X-Forwarded-For"] = address
        i = n
        while time.monotonic() < stop:
            path, params = ((costly_path, costly) if kind == "attacker"
                            else ("/api/search", {"q": PLAIN[i % len(PLAIN)], "page": 1 + i % 3}))
            i += 1
            start = time.perf_counter()
            try:
                status = s.get(f"{url}{path}", params=params, timeout=30).status_code
            except requests.RequestException:
                status = 0
            elapsed = 1000 * (time.perf_counter() - start)
            with lock:
                codes[kind][status] = codes[kind].get(status, 0) + 1
                if kind == "plain" and status == 200:
                    plain_ms.append(elapsed)
            if kind == "plain":
                time.sleep(PLAIN_PAUSE)  # a visitor's pace, well inside the limit

    # The attacker is one client (one address) over several connections; each plain client has its own.
    threads = [threading.Thread(target=client, args=("plain", f"198.51.100.{i + 1}", i)) for i in range(plain)]
    threads += [threading.Thread(target=client, args=("attacker", "203.0.113.66", i)) for i in range(attackers)]
    es = es_process()
    cpu_before = cpu_seconds(es)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lat = sorted(plain_ms)
    return {"plain_requests": len(lat), "plain_p50_ms": round(percentile(lat, 50), 1),
            "plain_p95_ms": round(percentile(lat, 95), 1), "codes": codes,
            "es_cpu_s": round(cpu_seconds(es) - cpu_before, 1) if es else None, "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--label", default="after")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--size", type=int, default=13033)
    parser.add_argument("--attackers", type=int, default=4)
    parser.add_argument("--plain", type=int, default=2)
    parser.add_argument("--routes", default="search", help="comma-separated: search, export, feed, author")
    args = parser.parse_args(argv)
    require_node()
    papers = ensure_loaded(ALIAS, [ensure_corpus(args.size, log=log)], reload=False)
    command = ["python -m bench.attacker_share", *(sys.argv[1:] if argv is None else argv)]
    results = {"command": " ".join(command), "label": args.label,
               "root": str(args.root), "started": datetime.now(UTC).isoformat(timespec="seconds"),
               "machine": machine(), "papers": papers, "costly_query": costly_query()}
    with Server(args.root.resolve()) as server:
        requests.get(f"{server.url}/api/search", params={"q": "warm up"}, timeout=30)
        results["alone"] = run_clients(server.url, args.plain, 0, args.seconds)
        log(f"alone: {results['alone']}")
        for route in args.routes.split(","):
            time.sleep(61)  # the attacker starts with a full window, the plain clients with an empty one
            key = "attacked" if route == "search" else f"attacked_{route}"
            results[key] = run_clients(server.url, args.plain, args.attackers, args.seconds, route)
            log(f"{key}: {results[key]}")
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = RESULTS_DIR / f"attacker-share-{args.label}-{stamp}.json"
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
