"""Elasticsearch clients: one per identity and process, with sane timeouts and retries.

With several nodes (ES_URL="http://a:9200,http://b:9200,…", or the local cluster) elasticsearch-py's
node pool spreads requests round-robin and, when a connection fails, marks that node dead (back-off
doubling from 1 s up to 30 s) and retries the request on another node. The only node is never marked
dead (`NodePool` below).
"""

from __future__ import annotations

import logging
from typing import Literal

from elastic_transport import BaseNode, NodePool
from elasticsearch import Elasticsearch, OrjsonSerializer

from papersearch.settings import Settings, get_settings

Role = Literal["indexer", "web"]


def make_client(role: Role = "indexer", settings: Settings | None = None, **overrides) -> Elasticsearch:
    settings = settings or get_settings()
    urls = settings.urls()
    auth = settings.indexer_auth() if role == "indexer" else settings.web_auth()
    kwargs: dict = {
        # orjson: JSON encoding was a sixth of the indexer's own CPU with the standard library.
        "serializer": OrjsonSerializer(),
        "request_timeout": settings.es_request_timeout,
        "dead_node_backoff_factor": 1.0,
        "max_dead_node_backoff": 30.0,
        "node_pool_class": LoneNodeKept,
        **_retries(role, len(urls)),
        **auth,
    }
    if settings.es_ca_certs:
        kwargs["ca_certs"] = settings.es_ca_certs
    kwargs.update(overrides)
    _one_line_transport_warnings()
    return Elasticsearch(urls, **kwargs)


class LoneNodeKept(NodePool):
    """elastic-transport's pool, but the only node is never marked dead: with nowhere else to send a request,
    a back-off changes nothing but the log, which then read as an outage of up to 30 s each time a costly
    query outlived its page's time budget (issue 53.2, DECISIONS.md D-184). Several nodes: as before (D-040)."""

    def mark_dead(self, node: BaseNode, _now: float | None = None) -> None:
        if len(self) > 1:
            super().mark_dead(node, _now)


def _retries(role: Role, nodes: int) -> dict:
    """The indexer waits out slow requests. The webapp's callers wait, so it retries once, on another
    node, and only when there is one: a dead node (refused) or a hung one (its timeout) then costs one
    retry instead of a 503, and a slow cluster is not hit by a storm of retries (DECISIONS.md D-040)."""
    if role == "indexer":
        return {"retry_on_timeout": True, "max_retries": max(2, nodes - 1)}
    return {"retry_on_timeout": nodes > 1, "max_retries": 1 if nodes > 1 else 0}


class _WithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            record.msg, record.args = f"{record.getMessage()} ({type(exc).__name__}: {exc})", ()
            record.exc_info, record.exc_text = None, None
        return True


def _one_line_transport_warnings() -> None:
    """elastic_transport logs every failed attempt on a node with its traceback; which node failed, how,
    and that the request is retried fits on one line (and no stack trace reaches a terminal)."""
    for name in ("elastic_transport.transport", "elastic_transport.node_pool"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _WithoutTraceback) for f in logger.filters):
            logger.addFilter(_WithoutTraceback())
