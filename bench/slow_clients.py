"""Slow clients against gunicorn: connections that trickle their request (one byte every `--every` seconds, the
head or a POST body), and meanwhile a normal search on a new connection. Reports how long the search took and
how long the server kept each trickling connection open (DECISIONS.md "Slow clients: requests read before a
thread takes them").

    python -m bench.slow_clients --workers 1 --threads 4 --connections 4
    python -m bench.slow_clients --workers 1 --threads 4 --connections 64 --args="--worker-class gevent"
    python -m bench.slow_clients --connections 0 --searches 300 --args="--worker-class gthread"   # plain gthread

Uses the local node and the alias `papers` (`make sample`); gunicorn is started with config/gunicorn.conf.py.
"""

from __future__ import annotations

import argparse
import json
import shlex
import socket
import threading
import time

import requests

from bench.search_load import Gunicorn

HEAD = b"GET /api/search?q=learning HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: trickle\r\n\r\n"
BODY_HEAD = (b"POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 200\r\n\r\n")


def trickle(port: int, what: str, every: float, stop: threading.Event, held: list[float]) -> None:
    """Send the request a byte at a time until the server closes the connection or `stop` is set."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.settimeout(every)
        data = HEAD if what == "head" else BODY_HEAD + b"{" * 200
        if what == "body":
            conn.sendall(BODY_HEAD)
            data = b"{" * 200
        for byte in data:
            if stop.is_set():
                break
            try:
                conn.sendall(bytes([byte]))
                if conn.recv(1024) == b"":
                    break  # closed by the server
            except TimeoutError:
                continue  # nothing to read: still open
            except OSError:
                break
    held.append(time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--connections", type=int, default=4, help="trickling connections")
    parser.add_argument("--what", choices=("head", "body"), default="head")
    parser.add_argument("--every", type=float, default=1.5, help="seconds between two bytes")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds the trickling goes on at most")
    parser.add_argument("--searches", type=int, default=5, help="searches meanwhile (one connection each)")
    parser.add_argument("--args", default="", help="more gunicorn options, e.g. '--worker-class gevent'")
    args = parser.parse_args(argv)

    extra = [*shlex.split(args.args), "--threads", str(args.threads)]
    with Gunicorn("papers", args.workers, {"PAPERSEARCH_QUERY_LOG": "off"}, name="gunicorn-slow", args=extra) as web:
        port = web.port
        stop, held = threading.Event(), []
        threads = [threading.Thread(target=trickle, args=(port, args.what, args.every, stop, held), daemon=True)
                   for _ in range(args.connections)]
        for t in threads:
            t.start()
        time.sleep(2.0)  # every trickler connected and sending
        searches = []
        for _ in range(args.searches):
            started = time.monotonic()
            try:
                status = requests.get(f"{web.url}/api/search?q=learning", timeout=60).status_code
            except requests.RequestException as exc:
                status = type(exc).__name__
            searches.append({"status": status, "seconds": round(time.monotonic() - started, 3)})
            time.sleep(0.5 if args.connections else 0)
        deadline = time.monotonic() + args.hold
        while time.monotonic() < deadline and any(t.is_alive() for t in threads):
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(5)
    seconds = sorted(s["seconds"] for s in searches)
    print(json.dumps({"args": vars(args), "searches": searches if len(searches) <= 10 else len(searches),
                      "search_seconds": {"median": seconds[len(seconds) // 2], "max": seconds[-1]},
                      "held_seconds": {"max": round(max(held), 1) if held else None,
                                       "min": round(min(held), 1) if held else None,
                                       "closed_by_server": sum(1 for h in held if h < args.hold)}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
