"""The gunicorn worker of the site (config/gunicorn.conf.py names it): gunicorn's own gevent worker, with

- every connection in a greenlet, so a client that trickles its request or never reads its answer holds a
  greenlet and a socket, never one of a few threads (issue 45.1: 30 stalled readers froze all 8 gthread
  threads); gunicorn's parser alone frames requests (its limit_request_* settings);
- a deadline on each connection's socket (IO_TIMEOUT): a send or receive that makes no progress for that long
  closes the connection, so stalled readers and silent senders are let go; the head of each request must come
  within HEAD_TIMEOUT (gunicorn's gevent worker wraps reading a head in `timeout_ctx`);
- over-long request lines (414) and too many or too large header fields (431) answered with the API's JSON
  error instead of gunicorn's HTML page, as the OpenAPI document says. gunicorn refuses such a request before
  the app sees it, so the answer cannot depend on the path (DECISIONS.md D-026).

DECISIONS.md D-158 says why this replaced our gthread read-ahead worker.
"""

from __future__ import annotations

import gevent
from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

# gunicorn's request limits (config/gunicorn.conf.py sets them from here; the OpenAPI document states them):
# past them the request is answered 414 or 431 before the app sees it. The request line at gunicorn's maximum:
# a 500-character Chinese query alone is 4.5 KB percent-encoded (gunicorn's default is 4094).
LIMIT_REQUEST_LINE = 8190
LIMIT_REQUEST_FIELDS = 100  # gunicorn's defaults, written down
LIMIT_REQUEST_FIELD_SIZE = 8190
HEAD_TIMEOUT = 10.0  # seconds for a request's head to come (and for a kept-alive connection's next one)
IO_TIMEOUT = 20.0  # seconds one send or receive may go without completing before the connection is closed
REASONS = {414: "URI Too Long", 431: "Request Header Fields Too Large"}
JSON_ERRORS = ((LimitRequestLine, 414), (LimitRequestHeaders, 431))


def error_response(status: int) -> bytes:
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
            f"Content-Length: {len(body)}", "Cache-Control: no-store",
            *(f"{name}: {value}" for name, value in HEADERS.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def uri_too_long_response() -> bytes:
    return error_response(414)


class SiteWorker(GeventWorker):
    def handle(self, listener, client, addr) -> None:  # type: ignore[no-untyped-def]
        # GeventWorker.handle makes the socket blocking without a deadline; this one gets IO_TIMEOUT instead.
        client.settimeout(IO_TIMEOUT)
        AsyncWorker.handle(self, listener, client, addr)

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
