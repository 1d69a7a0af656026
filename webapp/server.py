"""The gunicorn worker of the site (config/gunicorn.conf.py names it): gunicorn's own gevent worker, with

- every connection in a greenlet, so a client that trickles its request or never reads its answer holds a
  greenlet and a socket, never one of a few threads (issue 45.1: 30 stalled readers froze all 8 gthread
  threads); gunicorn's parser alone frames requests (its limit_request_* settings);
- a deadline on each connection's socket (IO_TIMEOUT): a send or receive that makes no progress for that long
  closes the connection, so stalled readers and silent senders are let go; the head of each request must come
  within HEAD_TIMEOUT (gunicorn's gevent worker wraps reading a head in `timeout_ctx`);
- a whole-request deadline (`Limits.request_timeout`): from a request's first byte to the last byte of its body,
  however steadily it trickles in; a body still coming after that is answered 408 and the connection closed
  (DECISIONS.md D-192);
- a cap on the connections one client address holds open in this worker (`Limits.per_address`): past it a new
  connection is answered 429 at once and closed, so one address cannot take every slot (DECISIONS.md D-191);
- on SIGTERM (a restart, a rolling update), kept-alive connections waiting for their next request are closed at
  once, as a request in flight is after its answer: gunicorn waits for every open connection before the worker
  exits, so each idle one held a restart for up to HEAD_TIMEOUT (10 s);
- over-long request lines (414) and too many or too large header fields (431) answered with the API's JSON
  error instead of gunicorn's HTML page, as the OpenAPI document says. gunicorn refuses such a request before
  the app sees it, so the answer cannot depend on the path (DECISIONS.md D-026).

DECISIONS.md D-158 says why this replaced our gthread read-ahead worker.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import RequestTimeout

from papersearch.settings import Settings

# gunicorn's request limits (config/gunicorn.conf.py sets them from here; the OpenAPI document states them):
# past them the request is answered 414 or 431 before the app sees it. The request line at gunicorn's maximum:
# a 500-character Chinese query alone is 4.5 KB percent-encoded (gunicorn's default is 4094).
LIMIT_REQUEST_LINE = 8190
LIMIT_REQUEST_FIELDS = 100  # gunicorn's defaults, written down
LIMIT_REQUEST_FIELD_SIZE = 8190
HEAD_TIMEOUT = 10.0  # seconds for a request's head to come (and for a kept-alive connection's next one)
IO_TIMEOUT = 20.0  # seconds one send or receive may go without completing before the connection is closed
REASONS = {414: "URI Too Long", 429: "Too Many Requests", 431: "Request Header Fields Too Large"}
JSON_ERRORS = ((LimitRequestLine, 414), (LimitRequestHeaders, 431))
RETRY_AFTER_CAPPED = 5  # seconds: about when a browser's kept-alive connections to the site have closed


@dataclass(frozen=True)
class Limits:
    """What one worker allows a client (DECISIONS.md D-191, D-192)."""

    per_address: int  # open connections per client address in this worker; 0: no cap
    request_timeout: float  # seconds from a request's first byte to the last byte of its body


def limits(settings: Settings) -> Limits:
    """The worker's limits from the settings. Behind trusted proxies (PAPERSEARCH_TRUSTED_PROXIES > 0) every
    connection comes from a proxy, which holds the per-address cap itself (docker/haproxy.cfg): here it would
    throttle the proxy, so there is none."""
    per_address = 0 if settings.trusted_proxies else settings.connections_per_address
    return Limits(per_address=per_address, request_timeout=settings.request_timeout)


class RequestDeadline(RequestTimeout):
    """The request's body was still coming at its deadline: the app answers 408 (webapp/routes/errors.py)."""


class TimedConnection:
    """A client socket whose receives share one deadline per request, counted from the request's first byte; the
    rest (sends, close, fileno …) is the socket's own. gunicorn's parser and the request body read through it.

    Past the deadline a receive for the app (its body) raises RequestDeadline and marks the request to close; any
    other (the head, or draining a body the app left unread) raises TimeoutError, which gunicorn takes as the end
    of the connection. The head keeps its own, shorter HEAD_TIMEOUT."""

    def __init__(self, sock: Any, limit: float) -> None:
        self._sock = sock
        self._limit = limit
        self._started: float | None = None  # when this request's first byte came
        self._request: Any = None  # the request the app is serving, if it is

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def serving(self, request: Any) -> None:
        self._request = request

    def served(self) -> None:
        self._request, self._started = None, None

    def close_if_idle(self) -> None:
        """Ends the connection when no request is under way on it (none served, none's first byte come): its
        greenlet's wait for the next head reads the end and returns. A client's request crossing this is the
        kept-alive race every HTTP client meets when a server closes an idle connection; it sends it again."""
        if self._started is None and self._request is None:
            # Through a duplicate of the descriptor: gevent's own shutdown() makes the waiting receive raise
            # (logged as a socket error), where the shutdown alone lets it read the end of the stream.
            with contextlib.suppress(OSError), socket.fromfd(self._sock.fileno(), self._sock.family,
                                                             self._sock.type) as duplicate:
                duplicate.shutdown(socket.SHUT_RDWR)

    def recv(self, size: int) -> bytes:
        if self._started is None:
            data = self._sock.recv(size)
            if data:
                self._started = time.monotonic()
            return data
        remaining = self._started + self._limit - time.monotonic()
        if remaining > 0:
            self._sock.settimeout(min(IO_TIMEOUT, remaining))
            try:
                return self._sock.recv(size)
            except TimeoutError:
                if time.monotonic() < self._started + self._limit:
                    raise  # IO_TIMEOUT: no progress at all
            finally:
                self._sock.settimeout(IO_TIMEOUT)
        if self._request is None:
            raise TimeoutError("the request deadline passed")
        self._request.must_close = True
        raise RequestDeadline()


def error_response(status: int, headers: tuple[str, ...] = ()) -> bytes:
    """A whole HTTP response with the API's JSON error (the connection is closed after it)."""
    # Imported here, not above: gunicorn's master imports this module, and the app's modules (the Elasticsearch
    # client, urllib3, ssl) must first be imported in a worker, after gevent has patched the standard library.
    from webapp import i18n
    from webapp.headers_and_limits import HEADERS
    from webapp.routes.errors import CODES
    from webapp.serializers import json as to_json

    message = i18n.translate("en", f"error.http.{status}")
    body = to_json.encode(to_json.error(status, CODES[status], message))
    head = [f"HTTP/1.1 {status} {REASONS[status]}", "Connection: close", "Content-Type: application/json",
            f"Content-Length: {len(body)}", "Cache-Control: no-store", *headers,
            *(f"{name}: {value}" for name, value in HEADERS.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def uri_too_long_response() -> bytes:
    return error_response(414)


class SiteWorker(GeventWorker):
    # Set by config/gunicorn.conf.py (`limits` of its settings); under another config read from the settings here.
    configured: Limits | None = None

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.limits = self.configured or limits(Settings())
        # Each worker counts its own connections (the master does not see them): an address may hold up to
        # per_address in every worker. Greenlets of one thread: no lock needed.
        self.open_by_address: Counter[str] = Counter()
        self.capped: set[str] = set()
        self.connections: set[TimedConnection] = set()  # open ones, for closing the idle ones on SIGTERM

    def handle(self, listener, client, addr) -> None:  # type: ignore[no-untyped-def]
        address = addr[0] if isinstance(addr, tuple) and addr else ""  # "" for a unix socket: not capped
        cap = self.limits.per_address
        if cap and address and self.open_by_address[address] >= cap:
            self.refuse(client, address)
            return
        self.open_by_address[address] += 1
        connection = TimedConnection(client, self.limits.request_timeout)
        self.connections.add(connection)
        try:
            # GeventWorker.handle makes the socket blocking without a deadline; this one gets IO_TIMEOUT instead.
            client.settimeout(IO_TIMEOUT)
            AsyncWorker.handle(self, listener, connection, addr)
        finally:
            self.connections.discard(connection)
            self.open_by_address[address] -= 1
            if self.open_by_address[address] <= 0:
                del self.open_by_address[address]
            if self.open_by_address[address] < cap:
                self.capped.discard(address)

    def handle_exit(self, sig, frame) -> None:  # type: ignore[no-untyped-def]
        super().handle_exit(sig, frame)
        gevent.spawn(self.close_idle)  # out of the signal handler, as gunicorn's own handle_quit does

    def close_idle(self) -> None:
        """The connections no request is under way on, closed (a request in flight closes its connection after
        its answer: gunicorn's worker says `Connection: close` once it is stopping)."""
        for connection in list(self.connections):
            connection.close_if_idle()

    def refuse(self, client, address: str) -> None:  # type: ignore[no-untyped-def]
        """429 at once, without reading anything, and close: the slot is free again within milliseconds."""
        if address not in self.capped:  # once per episode, not once per connection of a flood
            self.capped.add(address)
            self.log.warning("Refusing connections from ip=%s: %d open in this worker", address,
                             self.limits.per_address)
        try:
            util.write_nonblock(client, error_response(429, (f"Retry-After: {RETRY_AFTER_CAPPED}",)))
        except OSError:
            pass
        finally:
            util.close(client)

    def handle_request(self, listener_name, req, sock, addr):  # type: ignore[no-untyped-def]
        sock.serving(req)
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            sock.served()

    def timeout_ctx(self) -> gevent.Timeout:
        return gevent.Timeout(HEAD_TIMEOUT, False)  # the head has not come: close without an answer

    def handle_error(self, req, client, addr, exc) -> None:  # type: ignore[no-untyped-def]
        status = next((code for kind, code in JSON_ERRORS if isinstance(exc, kind)), None)
        if status is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, error_response(status))
        except OSError:
            self.log.debug("Failed to send error message.")


def warm() -> None:
    """What a worker loads before it serves rather than inside its first searches: the sentence encoder
    (papersearch/meaning.py warm()) and, when the glosses are on, CC-CEDICT (~0.5–1.5 s, ~24 MB; D-217). Inside a
    request either took more than the 2 s budget on a loaded machine (503). Called by gunicorn's post_worker_init
    and by the browser tests' server."""
    from papersearch import meaning
    from webapp.services.query import glosses
    from webapp.services.search_settings import search_config

    meaning.warm()
    if search_config().glosses.enabled:
        glosses.dictionary()
