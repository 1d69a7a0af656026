"""Issue 53.9's probe against gunicorn as `make serve` runs it (config/gunicorn.conf.py, its defaults, 2 workers):
2,100 idle connections from one address (127.0.0.2) in a burst, then how long /healthz from another address
takes; and how long a `POST /api/events` whose body trickles in at one byte per 5 s stays open.

    python -m bench.connection_limits        # BENCHMARKS.md "Connections per address, whole-request deadline"

/healthz needs no index, so any node (or none) will do. Linux only (all of 127/8 is loopback).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
IDLE = 2100
EVERY = 5.0  # seconds between two bytes of the trickled body
GIVE_UP = 50.0  # the probe saw it open past 45 s


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthz_under_idle_connections(port: int) -> str:
    started = time.monotonic()
    idle = []
    for _ in range(IDLE):
        conn = socket.socket()
        conn.bind(("127.0.0.2", 0))
        conn.connect(("127.0.0.1", port))
        idle.append(conn)
    opened = time.monotonic() - started
    started = time.monotonic()
    try:
        status = str(requests.get(f"http://127.0.0.1:{port}/healthz", timeout=30).status_code)
    except requests.RequestException as exc:
        status = type(exc).__name__
    took = time.monotonic() - started
    for conn in idle:
        conn.close()
    return f"{IDLE} idle connections opened in {opened:.2f} s; /healthz {status} after {took:.2f} s"


def trickled_body(port: int) -> str:
    body = b'{"kind":"click","qid":"' + b"x" * 40 + b'","position":1}'
    head = (f"POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(head)
        started, answer = time.monotonic(), b""
        conn.settimeout(EVERY)
        for byte in body:
            if time.monotonic() - started > GIVE_UP:
                break
            try:
                conn.sendall(bytes([byte]))
                answer = conn.recv(200) or b"(closed)"
                break
            except TimeoutError:
                continue
            except OSError:
                answer = b"(closed)"
                break
        took = time.monotonic() - started
    first = answer.split(b"\r\n", 1)[0].decode() if answer else "still open"
    return f"body trickled at 1 byte / {EVERY:.0f} s: {first} after {took:.1f} s"


def main() -> None:
    port = free_port()
    env = os.environ | {"PAPERSEARCH_BIND": f"127.0.0.1:{port}", "PAPERSEARCH_QUERY_LOG": "off",
                        "PAPERSEARCH_METRICS": "off"}
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen([str(gunicorn), "-c", "config/gunicorn.conf.py", "--workers", "2"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        time.sleep(2)  # the second worker booted too
        print(healthz_under_idle_connections(port), flush=True)
        time.sleep(11)  # the connections a worker held are let go (HEAD_TIMEOUT)
        print(trickled_body(port), flush=True)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


if __name__ == "__main__":
    main()
