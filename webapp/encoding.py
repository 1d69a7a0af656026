"""Requests whose address is not UTF-8: a 400 naming the parameter, on every route, before any route runs.

Werkzeug decodes the query and the path leniently (a byte that is not UTF-8 stays percent-encoded in an
argument, "%FF%FE", and becomes U+FFFD in the path), so `?q=%ff%fe` would otherwise search the text "%FF%FE".
The raw bytes are checked here once, strictly.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from flask import Flask, request

from webapp.controllers.params import ParamError

PATH = "path"  # what the message names when the path itself is not UTF-8


def undecodable(query: bytes, path: str) -> str | None:
    """The first parameter (or PATH) whose bytes are not UTF-8, else None. `path` is WSGI's PATH_INFO, whose
    characters stand for bytes (latin-1)."""
    try:
        path.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return PATH
    for pair in query.split(b"&"):
        key, _, value = (unquote_to_bytes(part.replace(b"+", b" ")) for part in pair.partition(b"="))
        try:
            name = key.decode("utf-8")
        except UnicodeDecodeError:
            return key.decode("utf-8", "replace")[:40]
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            return name[:40]
    return None


def init_app(app: Flask) -> None:
    @app.before_request
    def _utf8_only() -> None:
        bad = undecodable(request.query_string, request.environ.get("PATH_INFO", ""))
        if bad == PATH:
            raise ParamError("error.path_not_utf8")
        if bad is not None:
            raise ParamError("error.not_utf8", param=bad)
