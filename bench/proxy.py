"""The web tier: searches through HAProxy (the stack's `proxy`) vs straight to the gunicorn replicas.

    .venv/bin/python -m bench.proxy [--papers FILE] [--clients 1,8,64] [--seconds 15] [--warmup 3]
                                    [--replicas 2] [--no-build] [--out FILE]

Builds the images (scripts/build-images.sh, cached), brings docker-compose.yml up under its own project name
(random secrets, free loopback ports, ES_HEAP=512m, PAPERSEARCH_RATE_LIMIT=off), loads the papers (default:
bench/corpus.py's synthetic corpus of 13,033; a .gz file is read as is) and runs closed-loop clients from a
one-off container in the compose network, so the unpublished replicas are reachable: this same file, run
with `python3 proxy.py --load …` (stdlib only), sends GET /api/search with the URL parameters of
bench/search_mix.py's QUERY_MIX in turn over keep-alive http.client connections, one thread per client.
  proxy   every client to http://proxy:8080 (HAProxy spreads the requests over the replicas)
  direct  client i to replica i % n (every address of `webapp` in Docker's DNS), port 8000
Each client count runs both targets back to back (proxy first, then direct first at the next count). The
proxy's own CPU comes from its cgroup (cpu.stat usage_usec, or cpuacct.usage on cgroup v1) before and after
each run, per request (warm-up included; "net" subtracts its idle rate during the direct runs: health checks).
Writes bench/results/proxy-<YYYYMMDD>.json (with this command) and prints the table; the stack is always
taken down (down -v --remove-orphans).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import shlex
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

HOST_HEADER = "127.0.0.1"  # one of the stack's PAPERSEARCH_ALLOWED_HOSTS
TARGETS = ("proxy", "direct")


# --- the load generator (runs inside the compose network: Python's standard library only) ---------------------
def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile of a sorted list (as bench.common.percentile)."""
    return values[max(0, min(len(values) - 1, round(p / 100 * len(values) + 0.5) - 1))] if values else float("nan")


def client(i: int, address: tuple[str, int], paths: list[str], warm_until: float, stop_at: float,
           out: list[dict[str, Any]]) -> None:
    """One closed-loop client on one keep-alive connection (http.client opens it again by itself after a close)."""
    conn = http.client.HTTPConnection(*address, timeout=30)
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    sent = 0
    while (started := time.perf_counter()) < stop_at:
        try:
            conn.request("GET", paths[(i + sent) % len(paths)], headers={"Host": HOST_HEADER})
            response = conn.getresponse()
            response.read()
            status = str(response.status)
        except Exception as exc:  # counted by kind: refused, reset, RemoteDisconnected, timeout…
            status = type(exc).__name__
            conn.close()
        ended = time.perf_counter()
        sent += 1
        if started >= warm_until and ended <= stop_at:
            if status == "200":
                latencies.append(ended - started)
            else:
                errors[status] += 1
    conn.close()
    out.append({"latencies": latencies, "errors": errors, "sent": sent})


def load(target: str, clients: int, seconds: float, warmup: float, paths: list[str]) -> dict[str, Any]:
    if target == "proxy":
        addresses = [("proxy", 8080)]
    else:
        found = socket.getaddrinfo("webapp", 8000, socket.AF_INET, socket.SOCK_STREAM)
        addresses = [(ip, 8000) for ip in sorted({a[4][0] for a in found})]
    out: list[dict[str, Any]] = []
    warm_until = time.perf_counter() + warmup
    stop_at = warm_until + seconds
    threads = [threading.Thread(target=client, args=(i, addresses[i % len(addresses)], paths, warm_until, stop_at, out))
               for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies = sorted(x * 1000 for c in out for x in c["latencies"])
    errors: Counter[str] = sum((c["errors"] for c in out), Counter())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"target": target, "clients": clients, "addresses": [f"{h}:{p}" for h, p in addresses],
            "seconds": seconds, "ok": len(latencies), "rps": round(len(latencies) / seconds, 1),
            "mean_ms": round(sum(latencies) / len(latencies), 2) if latencies else None,
            **{f"p{p}_ms": round(pct(latencies, p), 2) for p in (50, 95, 99)},
            "errors": sum(errors.values()), "error_kinds": dict(errors),
            "sent_with_warmup": sum(c["sent"] for c in out),
            "client_cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}


# --- the driver (on the host, in the project's virtualenv) -----------------------------------------------------
def compose(base: list[str], *args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    """docker compose under this run's project name and env file (base), from the repository root."""
    proc = subprocess.run([*base, *args], cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"compose {' '.join(args[:3])} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc


def up(base: list[str], timeout: float = 600) -> list[dict[str, Any]]:
    """`up -d`, then until es, webapp, redis and proxy are healthy and the one-shots have exited (`up --wait` fails
    on those): the containers' rows of `ps`."""
    compose(base, "up", "-d", timeout=timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [json.loads(x) for x in compose(base, "ps", "-a", "--format", "json").stdout.splitlines() if x.strip()]
        rows = lines[0] if len(lines) == 1 and isinstance(lines[0], list) else lines
        state = {r["Service"]: r["State"] for r in rows}
        running = [r for r in rows if r["Service"] in ("es", "webapp", "redis", "proxy")]
        if any(r["State"] == "exited" for r in running):
            raise RuntimeError(f"a service exited: {rows}")
        if (len({r["Service"] for r in running}) == 4 and all(r["Health"] == "healthy" for r in running)
                and state.get("setup") == state.get("indexer") == "exited"):
            return rows
        time.sleep(2)
    raise RuntimeError(f"the stack was not healthy after {timeout:.0f} s")


def cgroup_cpu(container: str) -> tuple[str, Any]:
    """(where, a function giving the container's CPU time so far in µs) from its cgroup: the host's file when the
    engine is local (a `docker exec` costs the container ~15 ms CPU itself), else read inside it."""
    cid = subprocess.run(["docker", "inspect", "-f", "{{.Id}}", container], capture_output=True, text=True,
                         check=True).stdout.strip()
    for path in (f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage", f"/sys/fs/cgroup/docker/{cid}/cpu.stat",
                 f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat"):
        if Path(path).exists():
            return path, lambda file=Path(path): parse_cpu(file.read_text())
    command = ["docker", "exec", container, "sh", "-c",
               "cat /sys/fs/cgroup/cpu.stat 2>/dev/null || cat /sys/fs/cgroup/cpuacct/cpuacct.usage"]
    return "docker exec", lambda: parse_cpu(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def parse_cpu(text: str) -> float:
    """µs from cgroup v2 cpu.stat (usage_usec) or v1 cpuacct.usage (ns)."""
    fields = dict(line.split() for line in text.splitlines() if " " in line)
    return float(fields["usage_usec"]) if "usage_usec" in fields else int(text.split()[0]) / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--load", action="store_true", help="(inside the stack) be the load generator")
    parser.add_argument("--target", choices=TARGETS)
    parser.add_argument("--paths", type=Path, help="(--load) JSON list of request paths")
    parser.add_argument("--papers", type=Path, help="JSONL(.gz) to index (default: the synthetic 13,033)")
    parser.add_argument("--clients", default="1,8,64")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--no-build", action="store_true", help="skip scripts/build-images.sh")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.load:
        paths = json.loads(args.paths.read_text(encoding="utf-8"))
        print(json.dumps(load(args.target, int(args.clients), args.seconds, args.warmup, paths)))
        return 0
    return drive(args, argv)


def drive(args: argparse.Namespace, argv: list[str] | None) -> int:
    import secrets
    import shutil
    import tempfile
    import uuid
    from datetime import UTC, datetime
    from unittest import mock
    from urllib.parse import urlencode

    import requests

    from bench.common import RESULTS_DIR, ROOT, log, machine
    from bench.corpus import ensure_corpus
    from bench.search_load import free_port
    from bench.search_mix import QUERY_MIX

    command = shlex.join(["python", "-m", "bench.proxy", *(argv if argv is not None else sys.argv[1:])])
    started, load_before = time.time(), os.getloadavg()
    log(f"{command}  (load average {' '.join(f'{x:.2f}' for x in load_before)})")
    if not args.no_build:
        proc = subprocess.run([str(ROOT / "scripts" / "build-images.sh")], cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            log(f"scripts/build-images.sh failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
            return 1
        log(f"images ready in {time.time() - started:.0f} s")
    papers = (args.papers or ensure_corpus(13033, log=log)).resolve()
    work = Path(tempfile.mkdtemp(prefix="bench-proxy-"))
    loads = work / "load"  # read by the one-off container's user (uid 10001)
    loads.mkdir()
    paths = ["/api/search?" + urlencode(params, doseq=True) for _, params in QUERY_MIX]
    (loads / "paths.json").write_text(json.dumps(paths), encoding="utf-8")
    (loads / "healthz.json").write_text(json.dumps(["/healthz"]), encoding="utf-8")  # costs a replica ~nothing
    shutil.copy(__file__, loads / "proxy.py")
    for f in (work, loads, *loads.iterdir()):
        f.chmod(0o755)
    ports = [free_port(), free_port()]
    passwords = {k: secrets.token_urlsafe(18) for k in ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD")}
    env = {**passwords, "WEB_BIND": "127.0.0.1", "WEB_PORT": str(ports[0]), "ES_PORT": str(ports[1]),
           "ES_HEAP": "512m", "PAPERSEARCH_RATE_LIMIT": "off", "WEB_REPLICAS": str(args.replicas)}
    env_file = work / "stack.env"
    env_file.touch(mode=0o600)
    env_file.write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    project = f"papersearch-benchproxy-{uuid.uuid4().hex[:6]}"
    base = ["docker", "compose", "-p", project, "--env-file", str(env_file), "-f", "docker-compose.yml"]
    es, elastic = f"http://127.0.0.1:{ports[1]}", ("elastic", passwords["ELASTIC_PASSWORD"])
    results: dict[str, Any] = {
        "benchmark": "proxy", "command": command, "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "replicas": args.replicas, "seconds": args.seconds, "warmup_s": args.warmup, "request_paths": paths,
        "settings": {k: v for k, v in env.items() if k not in passwords}, "points": []}
    try:
        log(f"starting {project} ({args.replicas} webapp replicas)")
        rows = up(base)
        log(f"up in {time.time() - started:.0f} s; indexing {papers}")
        compose(base, "run", "--rm", "-T", "-v", f"{papers}:/data/papers.jsonl:ro", "indexer", "papersearch-admin",
                "reindex", "--no-progress", "/data/papers.jsonl", timeout=1200)
        indexed = requests.get(f"{es}/papers/_count", auth=elastic, timeout=30).json()["count"]
        results["papers"] = {"file": str(papers), "indexed": indexed}
        log(f"{indexed:,} papers indexed ({time.time() - started:.0f} s)")
        with mock.patch.dict(os.environ, {"ES_URL": es, "ES_USERNAME": elastic[0], "ES_PASSWORD": elastic[1]}):
            results["machine"] = machine()
        results["cpu_from"], proxy_cpu = cgroup_cpu(next(r["Name"] for r in rows if r["Service"] == "proxy"))
        webapp_cpus = [cgroup_cpu(r["Name"])[1] for r in rows if r["Service"] == "webapp" and r["State"] == "running"]

        def point(target: str, clients: int, seconds: float, paths_file: str = "paths.json") -> dict[str, Any]:
            before = (time.monotonic(), proxy_cpu(), sum(f() for f in webapp_cpus))
            proc = compose(base, "run", "--rm", "--no-deps", "-T", "-v", f"{loads}:/bench-load:ro", "--entrypoint",
                           "python3", "indexer", "/bench-load/proxy.py", "--load", "--target", target, "--clients",
                           str(clients), "--seconds", str(seconds), "--warmup", str(args.warmup),
                           "--paths", f"/bench-load/{paths_file}", timeout=seconds + args.warmup + 300)
            after = (time.monotonic(), proxy_cpu(), sum(f() for f in webapp_cpus))
            p = json.loads(proc.stdout.strip().splitlines()[-1])
            sent = max(p["sent_with_warmup"], 1)
            p.update(wall_s=round(after[0] - before[0], 2), proxy_cpu_us=round(after[1] - before[1]),
                     proxy_cpu_us_per_req=round((after[1] - before[1]) / sent, 1),
                     webapp_cpu_ms_per_req=round((after[2] - before[2]) / sent / 1000, 2))
            log(f"{target:6} {clients:3} clients: {p['rps']:7.1f} req/s  p50 {p['p50_ms']} ms  p99 {p['p99_ms']} ms"
                f"  errors {p['errors']} {p['error_kinds'] or ''}  proxy {p['proxy_cpu_us_per_req']} us/req")
            return p

        log(f"warming up each target (8 clients, {args.warmup + 5:g} s, not recorded); CPU from {results['cpu_from']}")
        for target in TARGETS:
            point(target, 8, 5)
        counts = [int(c) for c in args.clients.split(",") if c.strip()]
        for n, clients in enumerate(counts):  # both targets back to back, the order swapped at every count
            for target in TARGETS if n % 2 == 0 else TARGETS[::-1]:
                results["points"].append(point(target, clients, args.seconds))
        # The proxy's own latency per request: /healthz, one client, the targets alternated three times.
        rounds = [{t: point(t, 1, 5, "healthz.json")["mean_ms"] for t in TARGETS} for _ in range(3)]
        results["healthz_mean_ms_rounds"] = rounds
        results["proxy_latency_overhead_ms"] = sorted(r["proxy"] - r["direct"] for r in rounds)[1]
        log(f"proxy's own latency (/healthz, 1 client, median of 3): {results['proxy_latency_overhead_ms']:+.2f} ms")
        direct = [p for p in results["points"] if p["target"] == "direct"]
        idle = sum(p["proxy_cpu_us"] for p in direct) / sum(p["wall_s"] for p in direct)  # health checks, DNS
        results["proxy_idle_cpu_us_per_s"] = round(idle, 1)
        by = {(p["target"], p["clients"]): p for p in results["points"]}
        for p in by.values():
            if p["target"] == "proxy":
                p["proxy_cpu_us_per_req_net"] = round((p["proxy_cpu_us"] - idle * p["wall_s"]) / p["sent_with_warmup"])
        print(f"\n{indexed:,} papers, {args.replicas} replicas, {args.seconds:g} s per point, latency in ms; proxy CPU "
              f"per request net of its idle {idle:.0f} us/s")
        print(f"{'target':7}{'clients':>8}{'req/s':>9}{'p50':>9}{'p95':>9}{'p99':>9}{'mean':>9}{'errors':>8}"
              f"{'proxy us/req':>14}{'webapp ms/req':>15}")
        for key in sorted(by, key=lambda k: (counts.index(k[1]), k[0] == "direct")):
            p = by[key]
            print(f"{key[0]:7}{key[1]:>8}{p['rps']:>9}{p['p50_ms']:>9}{p['p95_ms']:>9}{p['p99_ms']:>9}{p['mean_ms']:>9}"
                  f"{p['errors']:>8}{p.get('proxy_cpu_us_per_req_net', '-'):>14}{p['webapp_cpu_ms_per_req']:>15}")
        if ("proxy", 1) in by and ("direct", 1) in by:
            overhead = results["proxy_mean_latency_overhead_ms_at_1"] = round(
                by["proxy", 1]["mean_ms"] - by["direct", 1]["mean_ms"], 2)
            print(f"proxy overhead at 1 client: {overhead:+.2f} ms mean latency")
        return 0 if direct and all(p["ok"] for p in results["points"]) else 1
    except Exception as exc:
        log(f"failed: {type(exc).__name__}: {exc}")
        results["error"] = f"{type(exc).__name__}: {exc}"
        return 1
    finally:
        log(f"taking {project} down")
        compose(base, "down", "-v", "--remove-orphans", "--timeout", "30", check=False)
        shutil.rmtree(work, ignore_errors=True)
        results.update(elapsed_s=round(time.time() - started, 1), loadavg_before=load_before,
                       loadavg_after=os.getloadavg())
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        out = RESULTS_DIR / (args.out or f"proxy-{datetime.now(UTC).strftime('%Y%m%d')}.json")
        out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nresults: {out}  (load average at the end {' '.join(f'{x:.2f}' for x in results['loadavg_after'])})")


if __name__ == "__main__":
    sys.exit(main())
