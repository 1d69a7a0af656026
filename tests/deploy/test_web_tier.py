"""The web tier of docker-compose.yml: HAProxy in front of two webapp replicas, Redis for their shared limits,
one signing secret (docker/haproxy.cfg; docs/operations.md "The web tier").

On the stack of tests/deploy/conftest.py, after test_stack.py. Searches from the host reach the proxy from
the bridge's gateway; requests made inside the proxy container come from 127.0.0.1: two client addresses.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import requests
from deploy_support import RATE_LIMIT, REPLICAS, Stack, run
from support import ROOT, free_port

INSIDE = "http://127.0.0.1:8000"  # a replica, from inside its own container


def inside(container: str, script: str) -> str:
    """Runs a Python script in one replica's container; its stdout."""
    return run(["docker", "exec", container, "python3", "-c", script]).stdout


def replica_names(stack: Stack) -> list[str]:
    return [row["Name"] for row in stack.replicas()]


def wait_replicas(stack: Stack, count: int = REPLICAS) -> None:
    """Until `count` webapp containers run healthy, and the proxy has had time to check them."""
    stack.wait_healthy(count, timeout=180)
    time.sleep(5)  # the proxy's DNS hold and two checks (docker/haproxy.cfg)


@dataclass
class Loop:
    ok: int = 0
    failed: list[str] = field(default_factory=list)


@contextmanager
def searching(stack: Stack, threads: int = 3, pause: float = 0.2) -> Iterator[Loop]:
    """Searches through the proxy from `threads` clients until the block ends (about 12 a second: far below
    the rate limit); every answer that is not 200 is a failure."""
    loop, stop = Loop(), threading.Event()

    def client(n: int) -> None:
        session = requests.Session()
        i = 0
        while not stop.is_set():
            i += 1
            try:
                r = session.get(stack.web + "/api/search", params={"q": f"neural networks {n} {i % 5}"}, timeout=30)
                if r.status_code == 200:
                    loop.ok += 1
                else:
                    loop.failed.append(f"{r.status_code} {r.text[:200]}")
            except requests.RequestException as exc:
                loop.failed.append(repr(exc)[:300])
            stop.wait(pause)

    workers = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(threads)]
    for w in workers:
        w.start()
    try:
        yield loop
    finally:
        stop.set()
        for w in workers:
            w.join(60)


def served_by(stack: Stack, status: int, since: str) -> set[str]:
    """The replicas (proxy server names) that answered `status`, from the proxy's log since `since`."""
    log = stack("logs", "--no-color", "--since", since, "proxy").stdout
    return set(re.findall(rf" webapp/(web\d+) \S+ {status} ", log))


def test_a_search_served_by_one_replica_is_clicked_on_another(stack: Stack) -> None:
    first, second = replica_names(stack)[:2]
    search = ("import json, urllib.request; r = urllib.request.urlopen("
              f"'{INSIDE}/api/search?q=neural+networks', timeout=20); d = json.load(r); "
              "print(json.dumps({'query_id': d['query_id'], 'paper_id': d['hits'][0]['id']}))")
    found = json.loads(inside(first, search))
    beacon = json.dumps({"type": "click", "position": 1, **found})
    click = ("import sys, urllib.request; r = urllib.request.urlopen(urllib.request.Request("
             f"'{INSIDE}/api/events', data=sys.argv[1].encode(), headers={{'Content-Type': 'application/json'}}), "
             "timeout=20); print(r.status)")
    answer = run(["docker", "exec", second, "python3", "-c", click, beacon], check=False)
    assert answer.stdout.strip() == "204", (answer.stdout, answer.stderr[-2000:])
    # Through the proxy, which spreads the requests: every click is taken, wherever it lands.
    since = f"{int(time.time()) - 1}"
    for _ in range(2 * REPLICAS):
        hit = stack.search("reinforcement learning")
        r = requests.post(stack.web + "/api/events", json={"type": "click", "position": 1, "query_id": hit["query_id"],
                                                           "paper_id": hit["hits"][0]["id"]}, timeout=30)
        assert r.status_code == 204, r.text
    assert len(served_by(stack, 200, since) | served_by(stack, 204, since)) == REPLICAS


def test_the_webapp_sees_the_clients_address_not_the_proxys(stack: Stack) -> None:
    # /metrics answers loopback clients only (PAPERSEARCH_METRICS_ALLOW). A client on the proxy's own loopback
    # is let in, so the replica saw 127.0.0.1, not the proxy container's address, which it would refuse …
    proxy = stack("exec", "-T", "proxy", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                  "http://127.0.0.1:8080/metrics").stdout
    assert proxy == "200", proxy
    # … and the host's client is the bridge's gateway, whatever X-Forwarded-For it sends.
    assert requests.get(stack.web + "/metrics", timeout=10).status_code == 404
    spoofed = requests.get(stack.web + "/metrics", headers={"X-Forwarded-For": "127.0.0.1"}, timeout=10)
    assert spoofed.status_code == 404


def test_static_files_come_compressed_with_long_cache_headers(stack: Stack) -> None:
    page = requests.get(stack.web + "/", timeout=30).text
    (path,) = set(re.findall(r'/static/style\.css\?v=[0-9a-f]{12}', page))
    answers = [requests.get(stack.web + path, headers={"Accept-Encoding": "gzip"}, timeout=30) for _ in range(2)]
    for r in answers:
        assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip", r.headers
        assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable", r.headers
        assert "Cookie" not in r.headers.get("Vary", "") and "Set-Cookie" not in r.headers
    assert "Age" in answers[1].headers, answers[1].headers  # the proxy's cache answered the second
    html = requests.get(stack.web + "/?q=neural", headers={"Accept-Encoding": "gzip"}, timeout=30)
    assert html.headers["Content-Encoding"] == "gzip"


def test_a_replica_added_by_scale_is_found_by_the_proxy(stack: Stack) -> None:
    try:
        stack("up", "-d", "--no-deps", "--no-recreate", "--scale", f"webapp={REPLICAS + 1}", "webapp")
        wait_replicas(stack, REPLICAS + 1)
        since = f"{int(time.time()) - 1}"
        for _ in range(6 * (REPLICAS + 1)):
            requests.get(stack.web + "/about", timeout=30)
        assert len(served_by(stack, 200, since) | served_by(stack, 404, since)) == REPLICAS + 1
    finally:
        stack("up", "-d", "--no-deps", "--scale", f"webapp={REPLICAS}", "webapp")
        wait_replicas(stack)


def test_a_replica_killed_under_searches_loses_none(stack: Stack) -> None:
    victim = replica_names(stack)[-1]
    try:
        with searching(stack) as loop:
            time.sleep(3)
            run(["docker", "kill", victim])
            time.sleep(10)
        assert not loop.failed, loop.failed[:5]
        assert loop.ok >= 60, loop.ok
    finally:
        # Brought back even when the assertion fails, so the tests after it meet the whole stack.
        stack("up", "-d", "--no-deps", "webapp")
        wait_replicas(stack)


def test_a_rolling_restart_loses_no_search(stack: Stack) -> None:
    before = {row["ID"] for row in stack.replicas()}
    files = [a for f in stack.files for a in ("-f", f)]
    compose_args = ["-p", stack.project, "--env-file", str(stack.env_file), *files]
    with searching(stack) as loop:
        time.sleep(2)
        proc = run([str(ROOT / "scripts" / "rolling-restart.sh"), *compose_args], timeout=600, check=False)
        time.sleep(2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"done: {REPLICAS} replicas replaced" in proc.stdout, proc.stdout
    assert not loop.failed, loop.failed[:5]
    after = stack.replicas()
    assert len(after) == REPLICAS and not before & {row["ID"] for row in after}
    wait_replicas(stack)


def test_a_burst_from_one_client_meets_the_limit_of_all_replicas_together(stack: Stack) -> None:
    since = f"{int(time.time()) - 1}"
    burst = RATE_LIMIT + 60
    # curl's URL range: one client, one keep-alive connection, requests one after the other (unknown pages
    # count too, and cost little).
    codes = stack("exec", "-T", "proxy", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}\\n",
                  f"http://127.0.0.1:8080/no-such-page-[1-{burst}]", timeout=300).stdout.split()
    assert len(codes) == burst and set(codes) <= {"404", "429"}, set(codes)
    first_refused = codes.index("429")
    assert abs(first_refused - RATE_LIMIT) <= 3, first_refused
    assert codes[first_refused + 3:].count("404") == 0, codes[first_refused:]
    assert len(served_by(stack, 429, since)) == REPLICAS  # counted once, refused by every replica
    # Another client (the host) has its own count.
    assert requests.get(stack.web + "/api/search", params={"q": "neural"}, timeout=30).status_code == 200


def test_searches_go_on_while_redis_is_down(stack: Stack) -> None:
    """The shared count is lost, not the site: each worker counts alone until Redis answers again."""
    stack("stop", "redis")
    try:
        for q in ("neural networks", "对比学习", "reinforcement learning"):
            r = requests.get(stack.web + "/api/search", params={"q": q}, timeout=30)
            assert r.status_code == 200, r.text[:500]
    finally:
        stack("start", "redis")
    deadline = time.monotonic() + 60
    while stack.containers()["redis"]["Health"] != "healthy":
        assert time.monotonic() < deadline, stack.containers()["redis"]
        time.sleep(2)


def test_tls_with_a_certificate_from_a_secret(stack: Stack, tmp_path) -> None:
    key, cert, pem = tmp_path / "key.pem", tmp_path / "cert.pem", tmp_path / "tls.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    pem.chmod(0o644)  # the proxy's user reads the bind-mounted secret; tmp_path itself is private
    tls_port = free_port()
    original = stack.env_file.read_text()
    stack.env_file.write_text(original + f"TLS_PEM_FILE={pem}\nWEB_TLS_PORT={tls_port}\n")
    stack.files.append("docker-compose.tls.yml")
    try:
        stack("up", "-d", "--no-deps", "--wait", "--wait-timeout", "120", "proxy", timeout=180)
        r = requests.get(f"https://127.0.0.1:{tls_port}/api/search", params={"q": "neural"}, verify=str(cert),
                         timeout=30)
        assert r.status_code == 200 and r.json()["total"] > 0
        assert r.headers["Strict-Transport-Security"].startswith("max-age=")
        plain = requests.get(stack.web + "/?q=neural", allow_redirects=False, timeout=30)
        assert plain.status_code == 301 and plain.headers["Location"].startswith("https://"), plain.headers
        assert requests.get(stack.web + "/proxy-healthz", timeout=10).status_code == 200
        inspect = run(["docker", "inspect", stack.containers()["proxy"]["Name"]]).stdout
        assert "PRIVATE KEY" not in inspect
    finally:
        stack.files.remove("docker-compose.tls.yml")
        stack.env_file.write_text(original)
        stack("up", "-d", "--no-deps", "--wait", "--wait-timeout", "120", "proxy", timeout=180)
