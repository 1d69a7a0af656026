"""Slow clients through gunicorn with config/gunicorn.conf.py (webapp/server.py's gevent worker) on the real node,
as `make serve` runs it (issues 37 and 45.1): clients that trickle their request and clients that never read their
answers do not stop other visitors and are let go in time; gunicorn frames requests itself (pipelining, 431 as
our JSON error); gunicorn trusts no forwarded header, foreign Host headers and invented methods are refused
without leaving a trace in /metrics.
"""

from __future__ import annotations

import ast
import socket
import threading
import time
from dataclasses import dataclass, field

import pytest
import requests
from gunicorn.config import Config
from prometheus_client.parser import text_string_to_metric_families
from support import ROOT, gunicorn

from webapp.server import HEAD_TIMEOUT, IO_TIMEOUT

PUBLIC = "http://papers.test"
WORKERS = 2
TRICKLERS = 32
EVERY = 0.5  # seconds between two bytes of a trickling client
STALLED = 30  # the probe's 30 connections, each 4 pipelined requests for a large page, never read
BIG_PAGE = "/?q=learning&size=100"


@pytest.fixture(scope="module")
def server(cluster, sample_alias, tmp_path_factory):
    log = tmp_path_factory.mktemp("slow") / "gunicorn.log"
    runtime = tmp_path_factory.mktemp("xdg-runtime")  # where gunicorn would put its control socket
    with gunicorn(cluster, sample_alias, log, workers=WORKERS, PAPERSEARCH_PUBLIC_URL=PUBLIC,
                  XDG_RUNTIME_DIR=str(runtime)) as (_, base):
        yield base, int(base.rsplit(":", 1)[1]), log, runtime


def exchange(port: int, data: bytes, timeout: float = 10) -> bytes:
    """Send `data` at once, read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(data)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
        return received


@dataclass
class Trickler:
    """A client that sends its request one byte every EVERY seconds and notes when the server closed it."""

    port: int
    request: bytes
    stop: threading.Event
    started: float = field(default_factory=time.monotonic)
    closed_after: float | None = None

    def run(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port)) as conn:
            conn.settimeout(EVERY)
            for byte in self.request:
                if self.stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                    while conn.recv(4096):
                        pass
                    self.closed_after = time.monotonic() - self.started
                    return
                except TimeoutError:
                    continue
                except OSError:
                    self.closed_after = time.monotonic() - self.started
                    return


def stalled_reader(port: int) -> socket.socket:
    """The probe's client: a 4 KB receive buffer, 4 pipelined requests for a large page, and it never reads."""
    conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    conn.connect(("127.0.0.1", port))
    request = f"GET {BIG_PAGE} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: stalled\r\n\r\n".encode()
    conn.sendall(request * 4)
    return conn


def timed(base: str, path: str, timeout: float) -> tuple[int, float]:
    started = time.monotonic()
    try:
        status = requests.get(base + path, timeout=timeout).status_code
    except requests.RequestException:
        status = 0
    return status, time.monotonic() - started


def test_trickling_senders_and_stalled_readers_do_not_stop_other_visitors(server):
    """Before (gthread, 2 workers × 4 threads), 30 stalled readers blocked every thread in its socket writes and
    every /healthz timed out for as long as they stayed; tricklers each held a read-ahead buffer parsed anew."""
    base, port, log, _ = server
    page = requests.get(base + BIG_PAGE, timeout=30)
    assert page.status_code == 200 and len(page.content) > 4 * 4096  # large enough to fill a stalled reader
    baseline = max(timed(base, "/api/search?q=learning", 30)[1] for _ in range(3))  # this machine's pace, now
    ceiling = 2.0 + 3 * baseline  # a generous ceiling, not a speed target: before, the probes waited for good
    stop = threading.Event()
    head = b"GET /api/search?q=learning HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: trickle\r\n\r\n"
    tricklers = [Trickler(port, head, stop) for _ in range(TRICKLERS)]
    threads = [threading.Thread(target=t.run, daemon=True) for t in tricklers]
    stalled = [stalled_reader(port) for _ in range(STALLED)]
    try:
        for t in threads:
            t.start()
        # /healthz answers at once all along. Rendering the stalled readers' first pages is work they asked for
        # (and the limiter's to bound), so searches may wait while it is done; then they are answered as usual
        # while the stalled readers stay. Before, both waited for as long as the stalled readers stayed.
        healthz, searches, until = [], [], time.monotonic() + 30
        while time.monotonic() < until and not (len(searches) >= 3 and all(ok for ok, _ in searches[-3:])):
            healthz.append(timed(base, "/healthz", ceiling + 5))
            status, seconds = timed(base, "/api/search?q=deep", ceiling + 5)
            searches.append((status == 200 and seconds < ceiling, round(seconds, 2)))
            time.sleep(0.5)
        print(f"\n[slow clients] searches while stalled readers stay: {searches}")
        assert all(status == 200 and seconds < ceiling for status, seconds in healthz), (healthz, ceiling)
        assert all(ok for ok, _ in searches[-3:]), (searches, ceiling)
        assert time.monotonic() - tricklers[0].started < IO_TIMEOUT  # while every stalled reader is still there
        limit = HEAD_TIMEOUT + 10  # gunicorn's own deadline on a head, with room for a loaded machine
        for t in threads:
            t.join(max(0.1, limit - (time.monotonic() - tricklers[0].started)))
        assert all(t.closed_after is not None for t in tricklers), "a trickling connection is still open"
        assert max(t.closed_after for t in tricklers) < limit
        # The stalled readers are let go once a write has made no progress for IO_TIMEOUT: they read up to the
        # end of what was sent and then find the connection closed.
        time.sleep(max(0.0, IO_TIMEOUT + 5 - (time.monotonic() - tricklers[0].started)))
        closed = 0
        for conn in stalled:
            conn.settimeout(10)
            try:
                while conn.recv(65536):
                    pass
                closed += 1
            except OSError:
                closed += 1  # reset: also closed by the server
        assert closed == STALLED
    finally:
        stop.set()
        for conn in stalled:
            conn.close()
    assert timed(base, "/healthz", 10)[0] == 200
    assert "Traceback" not in log.read_text()


def with_body(head: str, body: bytes = b"") -> bytes:
    return head.replace("\n", "\r\n").encode() + b"\r\n" + body


def test_gunicorn_frames_requests_and_refuses_large_heads_with_our_json_error(server):
    """gunicorn's parser is the only one (webapp/request_reading.py, a second one, took the largest of duplicate
    Content-Length values). Its 431 was an HTML page; it is the API's JSON error like the 414."""
    _, port, log, _ = server
    many = "".join(f"X-Field-{i}: {i}\n" for i in range(Config().limit_request_fields + 5))
    for headers in (many, f"X-Big: {'a' * 9000}\n"):
        answer = exchange(port, with_body("GET /api/search?q=x HTTP/1.1\nHost: 127.0.0.1\n" + headers))
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert b"Content-Type: application/json" in answer and b'"code":"headers_too_large"' in answer
        assert b"<html" not in answer.lower()
    duplicate = "POST /api/events HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
    answer = exchange(port, with_body(duplicate + "Content-Length: 2\nContent-Length: 40\n", b"{}"))
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    # Two requests in one packet, on a kept-alive connection: both answered, in order.
    get = "GET /healthz HTTP/1.1\nHost: 127.0.0.1\n"
    answer = exchange(port, with_body(get) + with_body(get.replace("/healthz", "/readyz") + "Connection: close\n"))
    assert answer.count(b"HTTP/1.1 200 OK") == 2 and answer.index(b'"ok"') < answer.index(b'"ready"')
    assert "Traceback" not in log.read_text()


def test_no_control_socket_shared_by_every_instance(server):
    """gunicorn's default control socket ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl) is one path for every
    instance a user starts, so `gunicornc` reached whichever started last (issue 45.11): none is made."""
    *_, runtime = server
    assert not (runtime / "gunicorn.ctl").exists() and list(runtime.iterdir()) == []


def test_gunicorn_trusts_no_forwarded_header():
    """PAPERSEARCH_TRUSTED_PROXIES is the one setting: gunicorn's own forwarded_allow_ips trusted 127.0.0.1, so
    `X-Forwarded-Proto: https` from loopback made requests https with no proxy trusted."""
    tree = ast.parse((ROOT / "config" / "gunicorn.conf.py").read_text())
    values = [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == "forwarded_allow_ips" for t in node.targets)]
    assert len(values) == 1  # a literal: no environment variable of its own beside PAPERSEARCH_TRUSTED_PROXIES
    cfg = Config()
    cfg.set("forwarded_allow_ips", values[0])
    assert cfg.forwarded_allow_ips == []


def test_foreign_hosts_and_public_urls_through_gunicorn(server):
    base, port, _, _ = server
    answer = exchange(port, with_body("GET /robots.txt HTTP/1.1\nHost: evil.example\nConnection: close\n"))
    assert answer.startswith(b"HTTP/1.1 400 ") and b"evil.example" not in answer
    # Allowed by default (localhost, 127.0.0.1, [::1]) whatever the case and port; werkzeug's TRUSTED_HOSTS
    # refused `[::1]` and `LOCALHOST` (issue 45.11). Names that only contain an allowed one stay refused.
    for host, status in (("[::1]", b"200"), ("[::1]:8000", b"200"), ("LOCALHOST", b"200"), ("LocalHost:80", b"200"),
                         ("127.0.0.1:8000", b"200"), ("localhost.evil.example", b"400"), ("[::2]", b"400"),
                         ("evil.example:8000", b"400")):
        answer = exchange(port, with_body(f"GET /healthz HTTP/1.1\nHost: {host}\nConnection: close\n"))
        assert answer.split(b" ", 2)[1] == status, (host, answer[:100])
    r = requests.get(f"{base}/robots.txt", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"},
                     timeout=10)
    assert f"Sitemap: {PUBLIC}/sitemap.xml" in r.text and r.headers["Cache-Control"].startswith("public")
    r = requests.get(f"{base}/api//search?q=x", allow_redirects=False, timeout=10)
    assert r.status_code == 308 and r.headers["Location"] == f"{PUBLIC}/api/search?q=x"


def metric_series(base: str) -> set[tuple]:
    text = requests.get(f"{base}/metrics", timeout=10).text
    return {(s.name, tuple(sorted(s.labels.items()))) for family in text_string_to_metric_families(text)
            for s in family.samples}


def test_invented_methods_and_paths_leave_metrics_as_they_were(server):
    """The probe's `SECPROBEA /zz HTTP/1.1` added a series (~1.6 KB) per invented method, kept until restart."""
    base, port, _, _ = server

    def raw(method: str, path: str) -> bytes:
        return exchange(port, with_body(f"{method} {path} HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n"))

    for _ in range(2 * WORKERS):  # whichever worker answers: every reachable label value exists from here on
        raw("SECPROBEA", "/zz")
        raw("GET", "/zz")
        metric_series(base)
    before = metric_series(base)
    size = len(requests.get(f"{base}/metrics", timeout=10).content)
    answers = {raw(f"SECPROBE{chr(65 + i % 26)}{i}", f"/probe-{i}").split(b" ", 2)[1] for i in range(300)}
    answers |= {raw("GET", f"/made/up/{i}?x={i}").split(b" ", 2)[1] for i in range(100)}
    assert answers <= {b"404", b"405"}
    assert metric_series(base) == before
    assert len(requests.get(f"{base}/metrics", timeout=10).content) < size + 2_000  # counts grow, series do not
