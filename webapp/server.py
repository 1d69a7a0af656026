"""gunicorn's gthread worker, except that a request line over `limit_request_line` is answered with our
JSON error (414, code "uri_too_long") instead of gunicorn's HTML page, as the OpenAPI document says.

gunicorn refuses such a request before the app sees it, without parsing the path, so the answer cannot
depend on the path: it is the API's JSON for every path (the pages never build such URLs). See
DECISIONS.md "Over-long URLs". Named by config/gunicorn.conf.py (`worker_class`).
"""

from __future__ import annotations

from gunicorn import util
from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker

from webapp import i18n
from webapp.routes.errors import CODES
from webapp.security import HEADERS
from webapp.serializers import json as to_json

STATUS = 414


def uri_too_long_response() -> bytes:
    """The whole HTTP response (the connection is closed after it)."""
    message = i18n.translate("en", "error.http.414")
    body = to_json.encode(to_json.error(STATUS, CODES[STATUS], message))
    head = [f"HTTP/1.1 {STATUS} URI Too Long", "Connection: close", "Content-Type: application/json",
            f"Content-Length: {len(body)}", *(f"{name}: {value}" for name, value in HEADERS.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


class JsonErrorThreadWorker(ThreadWorker):
    def handle_error(self, req, client, addr, exc) -> None:  # type: ignore[no-untyped-def]
        if not isinstance(exc, LimitRequestLine):
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, uri_too_long_response())
        except OSError:
            self.log.debug("Failed to send error message.")
