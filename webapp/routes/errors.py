"""App-wide error handlers: JSON under /api (and for /healthz, /readyz, /metrics), HTML pages elsewhere.

No handler ever shows a stack trace; unexpected errors are logged with one.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, SecurityError

from webapp import i18n
from webapp.controllers.params import ParamError
from webapp.domain import BadQuery, SearchUnavailable
from webapp.serializers import json as to_json

log = logging.getLogger(__name__)

JSON_PREFIXES = ("/api/", "/healthz", "/readyz", "/metrics")
RETRY_AFTER_UNAVAILABLE = 5  # seconds; the webapp's Elasticsearch timeout is 2 s, a node restart takes longer
CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed", 408: "request_timeout",
         411: "length_required", 413: "content_too_large", 414: "uri_too_long", 415: "unsupported_media_type",
         429: "too_many_requests", 431: "headers_too_large", 500: "internal_error", 503: "unavailable"}


def wants_json() -> bool:
    return request.path.startswith(JSON_PREFIXES)


def error_response(status: int, key: str, **values: object) -> Response:
    """JSON messages are always English (stable for API clients); pages use the UI language."""
    if wants_json():
        message = i18n.translate("en", key, **values)
        response = jsonify(to_json.error(status, CODES.get(status, "error"), message))
    else:
        title = i18n.t(f"error.title.{status}" if status in CODES else "error.title.other")
        try:
            # A search refused for its length keeps its box and the text typed; no other error page echoes it.
            settings = current_app.config["SEARCH_CONFIG"]
            typed = request.args.get("q", "") if request.endpoint == "ui.search" else ""
            search_box = status == 400 and len(typed) > settings.max_query_length
            body = render_template("error.html", status=status, message=i18n.t(key, **values), title=title,
                                   search_box=search_box, typed_q=typed if search_box else "",
                                   alternates=list,  # no language alternates: an error page is no page to index
                                   **({"config": settings} if search_box else {}))
        except Exception:  # never let a broken page turn one error into another
            log.exception("cannot render the error page")
            body = f"{status} {title}"
        response = Response(body, mimetype="text/html" if "<" in body else "text/plain")
    response.status_code = status
    return response


def rate_limited(retry_after: int) -> Response:
    return error_response(429, "error.rate_limited", seconds=retry_after)


def unavailable(key: str = "error.unavailable", retry_after: int = RETRY_AFTER_UNAVAILABLE) -> Response:
    """503 with Retry-After: the one answer for "not now, try again shortly" (the cluster down or too slow;
    any other cause of a temporary refusal should answer through here too)."""
    response = error_response(503, key)
    response.headers["Retry-After"] = str(retry_after)
    return response


def init_app(app: Flask) -> None:
    @app.errorhandler(ParamError)
    def _bad_param(exc: ParamError) -> Response:
        return error_response(exc.status, exc.key, **exc.values)

    @app.errorhandler(BadQuery)
    def _bad_query(exc: BadQuery) -> Response:
        return error_response(400, "error.bad_query", detail=str(exc)[:200])

    @app.errorhandler(SearchUnavailable)
    def _unavailable(exc: SearchUnavailable) -> Response:
        log.warning("search unavailable: %s", exc)
        return unavailable()

    @app.errorhandler(SecurityError)
    def _unknown_host(exc: SecurityError) -> Response:
        """A Host that is not one of the site's names (webapp/site.py): no URL can be built for it, so no page
        either; a short answer in English."""
        message = i18n.translate("en", "error.unknown_host")
        if wants_json():
            response = jsonify(to_json.error(400, CODES[400], message))
        else:
            response = Response(f"400 Bad Request: {message}", mimetype="text/plain")
        response.status_code = 400
        return response

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        key = f"error.http.{status}" if status in CODES else "error.http.other"
        response = error_response(status, key, code=status)
        if status == 405 and exc.get_response().headers.get("Allow"):
            response.headers["Allow"] = exc.get_response().headers["Allow"]
        return response

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "error.internal")
