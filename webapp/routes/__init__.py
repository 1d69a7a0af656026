"""Blueprints: ui (HTML pages), api (JSON), health (probes); errors holds the app-wide handlers."""

from __future__ import annotations

from flask import current_app

from webapp.controllers.events import Recorder
from webapp.controllers.params import RequestArgs
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
