"""Issue 45 in the Docker stack (docker/haproxy.cfg, docker-compose.yml): slow clients meet a buffering proxy and
the gevent worker (45.1), a trusted outer proxy's client address reaches the limiter (45.4), a 503 the webapp
answered is never sent again (45.5), Redis wants a password and no password is on a command line (45.11).

On the stack of tests/deploy/conftest.py (PAPERSEARCH_OUTER_PROXIES is the proxy container's loopback, so curl
run inside the proxy container plays the outer proxy), after test_web_tier.py.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from urllib.parse import urlsplit

import requests
from deploy_support import RATE_LIMIT, Stack, run

STALLED, TRICKLERS = 30, 16
BIG_PAGE = "/?q=learning&size=100"


def timed(url: str, timeout: float = 30) -> tuple[int, float]:
    started = time.monotonic()
    try:
        status = requests.get(url, timeout=timeout).status_code
    except requests.RequestException:
        status = 0
    return status, time.monotonic() - started


def test_stalled_readers_and_trickling_senders_do_not_stop_other_visitors(stack: Stack) -> None:
    host, port = urlsplit(stack.web).hostname, urlsplit(stack.web).port
    assert host and port
    baseline = max(timed(stack.web + "/api/search?q=learning")[1] for _ in range(3))
    ceiling = 2.0 + 3 * baseline
    stalled = []
    for _ in range(STALLED):  # 4 KB receive buffer, 4 pipelined large pages, never read
        conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        conn.connect((host, port))
        conn.sendall(f"GET {BIG_PAGE} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: stalled\r\n\r\n".encode() * 4)
        stalled.append(conn)
    closed: list[float] = []
    started = time.monotonic()
    stop = threading.Event()

    def trickle() -> None:
        head = b"GET /api/search?q=learning HTTP/1.1\r\nHost: localhost\r\n\r\n"
        with socket.create_connection((host, port)) as conn:
            conn.settimeout(0.5)
            for byte in head:
                if stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                    while conn.recv(4096):
                        pass
                    closed.append(time.monotonic() - started)
                    return
                except TimeoutError:
                    continue
                except OSError:
                    closed.append(time.monotonic() - started)
                    return

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(TRICKLERS)]
    try:
        for t in threads:
            t.start()
        healthz, searches, until = [], [], time.monotonic() + 40
        while time.monotonic() < until and not (len(searches) >= 3 and all(ok for ok, _ in searches[-3:])):
            healthz.append(timed(stack.web + "/healthz", ceiling + 5))
            status, seconds = timed(stack.web + "/api/search?q=deep", ceiling + 5)
            searches.append((status == 200 and seconds < ceiling, round(seconds, 2)))
            time.sleep(0.5)
        print(f"\n[deploy] searches while stalled readers stay: {searches}")
        assert all(status == 200 and seconds < ceiling for status, seconds in healthz), (healthz, ceiling)
        assert all(ok for ok, _ in searches[-3:]), (searches, ceiling)
        for t in threads:  # HAProxy's timeout http-request (10 s) cuts a trickled head
            t.join(max(0.1, 25 - (time.monotonic() - started)))
        assert len(closed) == TRICKLERS and max(closed) < 25, closed
    finally:
        stop.set()
        for conn in stalled:
            conn.close()


def inside_proxy(stack: Stack, *curl: str) -> list[str]:
    return stack("exec", "-T", "proxy", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}\\n", *curl,
                 timeout=300).stdout.split()


def test_a_trusted_outer_proxy_keeps_each_visitors_own_count(stack: Stack) -> None:
    """Before, HAProxy replaced X-Forwarded-For: behind a CDN every visitor shared the CDN's one count."""
    burst = RATE_LIMIT + 20
    first = inside_proxy(stack, "-H", "X-Forwarded-For: 198.51.100.1", f"http://127.0.0.1:8080/no-such-[1-{burst}]")
    assert len(first) == burst and first.count("429") >= 10, set(first)
    # Another visitor behind the same outer proxy has a count of its own …
    assert inside_proxy(stack, "-H", "X-Forwarded-For: 203.0.113.9, 198.51.100.2",
                        "http://127.0.0.1:8080/no-such-page") == ["404"]
    # … and the first is refused whichever entry it puts in front (only the outer proxy's own entry counts).
    assert inside_proxy(stack, "-H", "X-Forwarded-For: 203.0.113.10, 198.51.100.1",
                        "http://127.0.0.1:8080/no-such-page") == ["429"]
    # From an address that is not a trusted proxy (the host, through the bridge), the header is ignored.
    spoofed = requests.get(stack.web + "/metrics", headers={"X-Forwarded-For": "127.0.0.1"}, timeout=10)
    assert spoofed.status_code == 404


def test_a_503_the_webapp_answered_is_not_sent_again(stack: Stack) -> None:
    """Before, `retry-on all-retryable-errors` re-sent it up to 3 times: one search ran four times under load."""
    marker = f"retry{uuid.uuid4().hex[:8]}"
    es = stack.containers()["es"]["Name"]
    run(["docker", "pause", es])
    try:
        r = requests.get(stack.web + "/api/search", params={"q": marker}, timeout=60)
    finally:
        run(["docker", "unpause", es])
    assert r.status_code == 503, r.text[:300]
    time.sleep(1)
    webapp_log = stack("logs", "--no-color", "webapp").stdout
    assert webapp_log.count(marker) == 1, [line for line in webapp_log.splitlines() if marker in line]
    stack.wait_ready()


def test_redis_wants_its_password_and_no_password_is_on_a_command_line(stack: Stack) -> None:
    refused = stack("exec", "-T", "redis", "redis-cli", "ping", check=False)
    assert "NOAUTH" in refused.stdout + refused.stderr, refused.stdout
    authed = 'REDISCLI_AUTH="$(cat /run/redis-key/password)" redis-cli '
    assert stack("exec", "-T", "redis", "sh", "-c", authed + "ping").stdout.strip() == "PONG"
    assert stack("exec", "-T", "redis", "sh", "-c", authed + "config get protected-mode").stdout.split() == \
        ["protected-mode", "yes"]
    # The rate limits still count across the replicas: the webapp logs in with the password file.
    assert requests.get(stack.web + "/api/search", params={"q": "neural"}, timeout=30).status_code == 200
    # The healthchecks' commands: no password on a command line, as the container's processes see them.
    for service in ("es", "redis"):
        health = run(["docker", "inspect", "-f", "{{json .Config.Healthcheck.Test}}",
                      stack.containers()[service]["Name"]]).stdout
        assert "-u " not in health and "-a " not in health, (service, health)
        for name, value in stack.passwords.items():
            assert value not in health, (service, name)
