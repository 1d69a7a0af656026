"""The papersearch web application: server-rendered search pages and a JSON API.

    create_app()  →  one Elasticsearch client per process (the webapp's read-only identity, short
                     timeout, no retry storm), one SearchService over settings.alias, and the request
                     argument models built from config/index.json (controllers/params.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from flask import Flask
from markupsafe import Markup

from papersearch import logs, markup
from papersearch.settings import Settings, get_settings, metrics_networks
from papersearch.text import has_cjk, language_of

if TYPE_CHECKING:
    from webapp.querylog_writer import QueryLogWriter

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 2.0  # seconds; see DECISIONS.md D-019
QUERY_LOG_TIMEOUT = 5.0  # seconds for one _bulk of the query log (in the background)


def create_app(settings: Settings | None = None, service: Any = None, *,
               rate_limit: str | None = None) -> Flask:
    """`rate_limit` overrides PAPERSEARCH_RATE_LIMIT (e.g. "120/minute", "off")."""
    from webapp import caching, compression, encoding, headers_and_limits, i18n, metrics, site
    from webapp.controllers.events import Recorder
    from webapp.controllers.params import RequestArgs
    from webapp.controllers.query_ids import QueryIds
    from webapp.routes import api, crawlers, errors, exports, feeds, health, ui
    from webapp.serializers import json as to_json
    from webapp.services.pages.profiles import ProfileService
    from webapp.services.results import math_html
    from webapp.services.search_settings import search_config

    app = Flask(__name__)
    config = search_config()  # validated: a wrong config/index.json fails here, naming the key
    app.config["SEARCH_CONFIG"] = config
    app.extensions["request_args"] = RequestArgs(config)
    to_json.init_app(app)
    app.config["SEND_FILE_MAX_AGE_DEFAULT"] = 3600

    settings = settings or get_settings()
    if service is None:
        # Imported here: gunicorn's master imports this package for its worker class (webapp/server.py), and the
        # Elasticsearch client (urllib3, ssl) must be imported in a worker, after gevent patched the library.
        from papersearch.es import make_client
        from webapp.services.search import SearchService

        # With several nodes one retry on another node; none on a single node (papersearch/es.py).

        client = make_client("web", settings, request_timeout=REQUEST_TIMEOUT)
        service = SearchService(client, settings.alias, budget=REQUEST_TIMEOUT)
    app.extensions["search_service"] = service
    app.extensions["profile_service"] = ProfileService(service)  # author and topic pages, on the same client
    app.extensions["recorder"] = Recorder(_query_log_writer(settings) if settings.query_log else None,
                                          QueryIds(_signing_key(settings), _site_id(settings)))

    compression.init_app(app)  # first: its after_request hook runs last, on the final answer
    site.init_app(app, settings.public_url, settings.allowed_hosts)
    caching.init_app(app)
    i18n.init_app(app)  # first: later hooks (the 429 page) need the language
    # Before the limiter, so refused requests are timed too.
    metrics.init_app(app, settings.metrics, metrics.Access(metrics_networks(settings.metrics_allow),
                                                           _port(settings.metrics_bind), settings.trusted_proxies))
    headers_and_limits.init_app(app, rate_limit if rate_limit is not None else settings.rate_limit,
                      settings.rate_limit_storage_uri(), settings.trusted_proxies, on_limited=errors.rate_limited)
    errors.init_app(app)
    encoding.init_app(app)
    for blueprint in (ui.blueprint, api.blueprint, health.blueprint, feeds.blueprint, exports.blueprint,
                      crawlers.blueprint):
        app.register_blueprint(blueprint)

    app.jinja_env.tests["cjk"] = has_cjk  # {% if name is cjk %}
    app.jinja_env.filters["lang_of"] = language_of  # lang="{{ title|lang_of }}": text in either UI language
    app.jinja_env.filters["math"] = lambda text: Markup(math_html.text_html(text or ""))  # formulas as MathML
    app.jinja_env.filters["readable"] = lambda text: markup.to_text(text or "")  # formulas as Unicode (titles, meta)
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    if not logging.getLogger().handlers:  # gunicorn configures only its own loggers
        logs.configure(settings.log_format)
    return app


def _port(bind: str | None) -> int | None:
    return int(bind.rsplit(":", 1)[1]) if bind else None


def _signing_key(settings: Settings) -> bytes:
    if settings.secret_key is None and settings.secret_key_file is None and not settings.is_local():
        log.info("PAPERSEARCH_SECRET_KEY is not set: query ids are signed with the key in .local/secret-key; "
                    "set the variable when several hosts serve the site (README, Configuration)")
    return settings.signing_key()


def _site_id(settings: Settings) -> str:
    """What tells this site from another on the same secret: the papers it serves and the log it writes."""
    return f"{settings.alias}|{settings.query_log_index}"


def _query_log_writer(settings: Settings) -> QueryLogWriter:
    # Its own client: a slow cluster holds the writer's thread up to this long, never a search.
    from papersearch.es import make_client  # in a worker only, as above
    from webapp import metrics
    from webapp.querylog_writer import QueryLogWriter

    client = make_client("web", settings, request_timeout=QUERY_LOG_TIMEOUT, max_retries=0, retry_on_timeout=False)
    return QueryLogWriter(client, settings.query_log_index, on_drop=metrics.querylog_dropped,
                          on_written=metrics.querylog_written)
