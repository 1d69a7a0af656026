"""Blueprints: ui (HTML pages), api (JSON), health (probes); errors holds the app-wide handlers. The helpers below
are what every route reads: the app's services and argument models, and the query a request runs (`asked`)."""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app, g, request

from webapp.controllers import asked as asking
from webapp.controllers.asked import Asked
from webapp.controllers.events import Recorder
from webapp.controllers.list_params import ListArgs
from webapp.controllers.params import ParamError, RequestArgs
from webapp.domain import BadQuery
from webapp.services.pages.profiles import ProfileService
from webapp.services.search import SearchService
from webapp.services.search_settings import WebSearchConfig


def service() -> SearchService:
    return current_app.extensions["search_service"]


def recorder() -> Recorder:
    return current_app.extensions["recorder"]


def request_args() -> RequestArgs:
    return current_app.extensions["request_args"]


def search_settings() -> WebSearchConfig:
    """The search settings the app was started with (create_app: loaded and validated once)."""
    return current_app.config["SEARCH_CONFIG"]


def profiles() -> ProfileService:
    return current_app.extensions["profile_service"]


def list_args() -> ListArgs:
    return current_app.extensions["list_args"]


# Every route that runs a visitor's query (q and the filters), by endpoint: how its request is read.
ASKED: dict[str, Callable[[], Asked]] = {
    "ui.search": lambda: asking.search(service(), request.args, request_args(), api=False),
    "api.search": lambda: asking.search(service(), request.args, request_args(), api=True),
    "ui.author": lambda: asking.author(service(), request.args, request_args(), api=False),
    "api.author": lambda: asking.author(service(), request.args, request_args(), api=True),
    "feeds.feed": lambda: asking.feed(service(), request.args, list_args()),
    "exports.export": lambda: asking.export(service(), request.args, list_args()),
}


def asked() -> Asked:
    """The query this request runs, validated and parsed on first use and kept for the request: the rate limit's
    price and the route share it (DECISIONS.md D-183). A bad parameter raises its ParamError (or BadQuery) on
    every use, so the route answers 400 as before."""
    kept = g.get("asked")
    if kept is None:
        try:
            kept = ASKED[request.endpoint or ""]()
        except (ParamError, BadQuery) as exc:  # kept: raised again by each use
            kept = exc
        g.asked = kept
    if isinstance(kept, Exception):
        raise kept
    return kept
