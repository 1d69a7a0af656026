"""Elasticsearch client errors → the two errors the controllers know, with each request timed for /metrics."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from elasticsearch import (
    ApiError,
    AuthenticationException,
    AuthorizationException,
    BadRequestError,
    NotFoundError,
    TransportError,
)

from webapp import metrics
from webapp.domain import BadQuery, SearchUnavailable

log = logging.getLogger(__name__)


@contextmanager
def es_errors(alias: str, kind: str) -> Iterator[None]:
    """Translate client errors into the two errors the controllers know; time the request(s) as `kind`
    (the label of papersearch_es_request_duration_seconds)."""
    try:
        with metrics.es_request(kind):
            yield
    except NotFoundError as exc:
        log.error("alias %s not found: %s", alias, exc)
        raise SearchUnavailable(f"the index {alias!r} does not exist") from exc
    except BadRequestError as exc:
        log.warning("query rejected by Elasticsearch: %s", exc)
        raise BadQuery("This query could not be run; please simplify it.") from exc
    except (AuthenticationException, AuthorizationException) as exc:
        log.error("search identity refused: %s", exc)
        raise SearchUnavailable("search is misconfigured") from exc
    except ApiError as exc:
        # 5xx and anything else unexpected from the cluster (e.g. 429 when overloaded).
        log.error("search failed: %s", exc)
        raise SearchUnavailable("search failed") from exc
    except TransportError as exc:  # ConnectionError, ConnectionTimeout, SSLError, ...
        log.error("cluster unreachable: %s", exc)
        raise SearchUnavailable("search is unavailable") from exc
