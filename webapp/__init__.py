"""The papersearch web application: server-rendered search pages and a JSON API.

    create_app()  →  one Elasticsearch client per process (the webapp's read-only identity, short
                     timeout, no retry storm), one SearchService over settings.alias, and the request
                     argument models built from config/index.json (controllers/params.py).
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask

from papersearch.es import make_client
from papersearch.index_definition import search_config
from papersearch.settings import Settings, get_settings

REQUEST_TIMEOUT = 2.0  # seconds; see DECISIONS.md "2 s Elasticsearch timeout in the webapp"


def create_app(settings: Settings | None = None, service: Any = None, *,
               rate_limit: str | None = None) -> Flask:
    """`rate_limit` overrides PAPERSEARCH_RATE_LIMIT (e.g. "120/minute", "off")."""
    from webapp import i18n, security
    from webapp.controllers.params import RequestArgs
    from webapp.routes import api, errors, health, ui

    app = Flask(__name__)
    config = search_config()
    app.config["SEARCH_CONFIG"] = config
    app.extensions["request_args"] = RequestArgs(config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 3600

    settings = settings or get_settings()
    if service is None:
        from webapp.services.search import SearchService

        # With several nodes one retry on another node; none on a single node (papersearch/es.py).
        client = make_client("web", settings, request_timeout=REQUEST_TIMEOUT)
        service = SearchService(client, settings.alias)
    app.extensions["search_service"] = service

    i18n.init_app(app)  # first: later hooks (the 429 page) need the language
    security.init_app(app, rate_limit if rate_limit is not None else settings.rate_limit,
                      settings.rate_limit_storage, settings.trusted_proxies, on_limited=errors.rate_limited)
    errors.init_app(app)
    for blueprint in (ui.blueprint, api.blueprint, health.blueprint):
        app.register_blueprint(blueprint)

    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO)
    return app
