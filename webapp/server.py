"""The gunicorn worker of the site (config/gunicorn.conf.py names it): gunicorn's gthread worker, except that

- a request is read whole in the worker's main loop, without blocking, before a thread takes it: a client
  that trickles its head or its body costs a buffer, never one of the worker's few threads, and is answered
  408 and closed when its head has not come within HEAD_TIMEOUT or its body within BODY_TIMEOUT after the
  head (DECISIONS.md D-119);
- a request line over `limit_request_line` is answered with our JSON error (414, code "uri_too_long")
  instead of gunicorn's HTML page, as the OpenAPI document says. gunicorn refuses such a request before the
  app sees it, without parsing the path, so the answer cannot depend on the path (DECISIONS.md D-026). Heads over
  MAX_HEAD (431), bodies over MAX_BODY (413) or of unknown length (411) get the same kind
  of JSON error from the main loop.

Only plain HTTP/1.x is read ahead (TLS and HTTP/2 are left to gthread as it is): TLS ends at a reverse proxy.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import time
from functools import partial

from gunicorn import http, util
from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.gthread import TConn, ThreadWorker

from webapp import i18n
from webapp.headers_and_limits import HEADERS
from webapp.request_reading import CONTINUE, progress, without_expect
from webapp.routes.errors import CODES
from webapp.serializers import json as to_json

HEAD_TIMEOUT = 10.0  # seconds from the connection (or a kept-alive one's next byte) to the end of the head
BODY_TIMEOUT = 10.0  # seconds from the end of the head to the end of the body
REASONS = {408: "Request Timeout", 411: "Length Required", 413: "Content Too Large", 414: "URI Too Long",
           431: "Request Header Fields Too Large"}
RECV_SIZE = 65536
LINGER = 2.0  # seconds a refused connection is drained before it is closed (so the answer is not reset)


def error_response(status: int) -> bytes:
    """A whole HTTP response with the API's JSON error (the connection is closed after it)."""
    message = i18n.translate("en", f"error.http.{status}")
    body = to_json.encode(to_json.error(status, CODES[status], message))
    head = [f"HTTP/1.1 {status} {REASONS[status]}", "Connection: close", "Content-Type: application/json",
            f"Content-Length: {len(body)}", "Cache-Control: no-store",
            *(f"{name}: {value}" for name, value in HEADERS.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def uri_too_long_response() -> bytes:
    return error_response(414)


class Reading:
    """A connection whose request is still coming in."""

    def __init__(self, deadline: float, received: bytes) -> None:
        self.deadline = deadline
        self.received = bytearray(received)
        self.head_done = False
        self.registered = False
        self.closing = False  # answered and half-closed: what still comes is read and dropped


class SiteWorker(ThreadWorker):
    def init_process(self) -> None:
        self.reading: dict[TConn, Reading] = {}
        # What is read ahead is plain HTTP/1.x; TLS bytes or an HTTP/2 preface go to gthread unchanged.
        self.read_ahead = (not self.cfg.is_ssl and getattr(self.cfg, "protocol", "http") == "http"
                           and "h2" not in getattr(self.cfg, "http_protocols", ["h1"]))
        super().init_process()

    # --- a request read whole before a thread takes it -----------------------------------------------------------

    def accept(self, listener) -> None:  # type: ignore[no-untyped-def]
        if not self.read_ahead:
            super().accept(listener)
            return
        try:
            client, addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        self._read(TConn(self.cfg, client, addr, listener.getsockname()), b"")

    def on_client_socket_readable(self, conn: TConn, client) -> None:  # type: ignore[no-untyped-def]
        """A kept-alive connection's next request begins: read it like a new one."""
        if not self.read_ahead:
            super().on_client_socket_readable(conn, client)
            return
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._read(conn, b"")
        self._on_readable(conn, client)  # readable now: what has come is taken at once (before a stop's sweep)

    def finish_request(self, conn: TConn, fs) -> None:  # type: ignore[no-untyped-def]
        """After a response: bytes of the next request already read (pipelining) are read on like a new one."""
        if (self.read_ahead and self.alive and not fs.cancelled() and fs.exception() is None
                and fs.result() is True and conn.parser.unreader.buf.getvalue()):
            self._read(conn, conn.parser.unreader.take_buffered())
            return
        super().finish_request(conn, fs)

    def handle(self, conn: TConn):  # type: ignore[no-untyped-def]
        """In a thread: the request is in memory, so gunicorn's parser reads it from there."""
        received = getattr(conn, "received", b"")
        if received:
            conn.received = b""
            conn.data_ready = True  # no waiting for the socket in the thread
            if conn.parser is None:
                conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
            conn.parser.unreader.unread(received)
        return super().handle(conn)

    def _read(self, conn: TConn, received: bytes) -> None:
        conn.sock.setblocking(False)
        state = self.reading[conn] = Reading(time.monotonic() + HEAD_TIMEOUT, received)
        if received and self._advance(conn, state):
            return
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_readable, conn))
        state.registered = True

    def _on_readable(self, conn: TConn, _sock) -> None:  # type: ignore[no-untyped-def]
        state = self.reading.get(conn)
        if state is None:  # left the reading state earlier in this turn of the loop
            return
        try:
            data = conn.sock.recv(RECV_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away, or has read a refusal and closed
            self._leave(conn)
            self._close(conn)
            return
        if state.closing:
            return
        state.received += data
        self._advance(conn, state)

    def _advance(self, conn: TConn, state: Reading) -> bool:
        """Hand the request to a thread once it is whole, or refuse it; True when it is no longer read here."""
        found = progress(bytes(state.received), self.cfg.limit_request_line)
        if found.head_done and not state.head_done:
            state.head_done = True
            state.deadline = time.monotonic() + BODY_TIMEOUT
            if found.expects_continue and found.refuse is None:
                state.received = bytearray(without_expect(bytes(state.received)))
                self._send(conn, CONTINUE)
        if found.refuse is not None:
            self._leave(conn)
            self._refuse(conn, found.refuse)
            return True
        if found.complete:
            self._leave(conn)
            conn.received = bytes(state.received)
            self.enqueue_req(conn)
            return True
        return False

    def murder_pending(self) -> None:
        """Every turn of the main loop: also close what has not come in time. A stopping worker closes the
        connections that have sent nothing; a request under way is still read (until its deadline) and then
        answered with "Connection: close", as gthread answers a kept-alive connection's request when stopping."""
        super().murder_pending()
        now = time.monotonic()
        for conn, state in list(self.reading.items()):
            idle = not state.received or state.closing
            if state.deadline <= now or (idle and not self.alive):
                self._leave(conn)
                if not idle:
                    self._refuse(conn, 408)
                else:
                    self._close(conn)

    def _leave(self, conn: TConn) -> None:
        state = self.reading.pop(conn)
        if state.registered:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.poller.unregister(conn.sock)

    def _refuse(self, conn: TConn, status: int) -> None:
        """Answer, half-close, and drop what the client still sends for LINGER seconds: closing at once with
        unread bytes would reset the connection, and the client might never see the answer."""
        self.log.info("Refused a request from ip=%s: %s %s", (conn.client or ("",))[0], status, REASONS[status])
        self._send(conn, error_response(status))
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self._close(conn)
            return
        state = self.reading[conn] = Reading(time.monotonic() + LINGER, b"")
        state.closing = True
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_readable, conn))
        state.registered = True

    @staticmethod
    def _send(conn: TConn, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the client is gone, or its window full: it gets nothing
            util.write_nonblock(conn.sock, data)

    def _close(self, conn: TConn) -> None:
        self.nr_conns -= 1
        conn.close()

    # --- over-long request lines: the JSON error ---------------------------------------------------------------

    def handle_error(self, req, client, addr, exc) -> None:  # type: ignore[no-untyped-def]
        if not isinstance(exc, LimitRequestLine):
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, uri_too_long_response())
        except OSError:
            self.log.debug("Failed to send error message.")
