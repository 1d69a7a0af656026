"""The server side of issue 37, through gunicorn with config/gunicorn.conf.py (webapp/server.py's worker) on the real
node: trickling clients cannot starve a search and are closed in time, requests are framed before a thread takes
them (411, 413, 431, Expect: 100-continue, pipelining), gunicorn trusts no forwarded header, foreign Host headers
and invented methods are refused without leaving a trace in /metrics.
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

from webapp.request_reading import MAX_BODY, MAX_HEAD
from webapp.server import BODY_TIMEOUT, HEAD_TIMEOUT

PUBLIC = "http://papers.test"
WORKERS, THREADS = 2, 4
TRICKLERS = 64  # eight times the threads of the server
EVERY = 0.5  # seconds between two bytes of a trickling client


@pytest.fixture(scope="module")
def server(cluster, sample_alias, tmp_path_factory):
    log = tmp_path_factory.mktemp("slow") / "gunicorn.log"
    with gunicorn(cluster, sample_alias, log, workers=WORKERS, PAPERSEARCH_THREADS=str(THREADS),
                  PAPERSEARCH_PUBLIC_URL=PUBLIC) as (_, base):
        yield base, int(base.rsplit(":", 1)[1]), log


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
    """A client that sends its request one byte every EVERY seconds and notes what came back and when."""

    port: int
    prefix: bytes  # sent at once
    request: bytes  # then trickled
    stop: threading.Event
    started: float = field(default_factory=time.monotonic)
    closed_after: float | None = None
    answer: bytes = b""

    def run(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port)) as conn:
            conn.settimeout(EVERY)
            conn.sendall(self.prefix)
            for byte in self.request:
                if self.stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                    while chunk := conn.recv(4096):
                        self.answer += chunk
                    self.closed_after = time.monotonic() - self.started
                    return
                except TimeoutError:
                    continue
                except OSError:
                    self.closed_after = time.monotonic() - self.started
                    return


def timed_search(base: str, timeout: float) -> tuple[int, float]:
    started = time.monotonic()
    r = requests.get(f"{base}/api/search", params={"q": "learning"}, timeout=timeout)
    return r.status_code, time.monotonic() - started


def test_trickling_clients_cannot_starve_a_search_and_are_closed_in_time(server):
    """The probe held a 1 × 4 server with four connections trickling a byte every 1.5 s (a /healthz waited
    10.5 s; one connection stayed open 25 s). Here 64 trickle their head or a POST body to 2 × 4 threads."""
    base, port, _ = server
    baseline = max(timed_search(base, 30)[1] for _ in range(3))  # this machine's pace, now
    ceiling = 1.0 + 3 * baseline  # a generous ceiling, not a speed target: before, the search waited for good
    head = b"GET /api/search?q=learning HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: trickle\r\n\r\n"
    body = (b"POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200\r\n\r\n")
    stop = threading.Event()
    # Three in four trickle their head; the others send the head of a POST at once and trickle its body.
    clients = [Trickler(port, b"", head, stop) if i % 4 else Trickler(port, body, b"{" * 200, stop)
               for i in range(TRICKLERS)]
    threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
    try:
        for t in threads:
            t.start()
        time.sleep(2 * EVERY)
        searches = [timed_search(base, ceiling + 5) for _ in range(3)]
        assert all(status == 200 and seconds < ceiling for status, seconds in searches), (searches, ceiling)
        limit = HEAD_TIMEOUT + BODY_TIMEOUT + 10
        for t in threads:
            t.join(max(0.1, limit - (time.monotonic() - clients[0].started)))
    finally:
        stop.set()
    assert all(c.closed_after is not None for c in clients), "a trickling connection is still open"
    assert {c.answer.split(b"\r\n", 1)[0] for c in clients} == {b"HTTP/1.1 408 Request Timeout"}
    assert max(c.closed_after for c in clients) < limit


def with_body(head: str, body: bytes = b"") -> bytes:
    return head.replace("\n", "\r\n").encode() + b"\r\n" + body


def test_requests_are_framed_before_a_thread_takes_them(server):
    _, port, log = server
    beacon = b'{"type":"view","query_id":"x"}'
    post = "POST /api/events HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\nConnection: close\n"
    refused = {
        411: with_body(post + "Transfer-Encoding: chunked\n", b"5\r\nhello\r\n0\r\n\r\n"),
        413: with_body(post + f"Content-Length: {MAX_BODY + 1}\n", b"{" * 1000),
        431: with_body("GET / HTTP/1.1\nHost: 127.0.0.1\n" + f"X-Big: {'a' * MAX_HEAD}\n"),
    }
    for status, data in refused.items():
        answer = exchange(port, data)
        assert answer.startswith(f"HTTP/1.1 {status} ".encode()), (status, answer[:200])
        assert b'"code":' in answer and b"Content-Type: application/json" in answer
    # Expect: 100-continue is answered at once, the body then read, the request answered once.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(with_body(post + f"Expect: 100-continue\nContent-Length: {len(beacon)}\n"))
        assert conn.recv(4096) == b"HTTP/1.1 100 Continue\r\n\r\n"
        conn.sendall(beacon)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 ") and b"100 Continue" not in answer
    # Two requests in one packet, on a kept-alive connection: both answered, in order.
    get = "GET /healthz HTTP/1.1\nHost: 127.0.0.1\n"
    answer = exchange(port, with_body(get) + with_body(get.replace("/healthz", "/readyz") + "Connection: close\n"))
    assert answer.count(b"HTTP/1.1 200 OK") == 2 and answer.index(b'"ok"') < answer.index(b'"ready"')
    assert "Traceback" not in log.read_text()


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
    base, port, _ = server
    answer = exchange(port, with_body("GET /robots.txt HTTP/1.1\nHost: evil.example\nConnection: close\n"))
    assert answer.startswith(b"HTTP/1.1 400 ") and b"evil.example" not in answer
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
    base, port, _ = server

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
