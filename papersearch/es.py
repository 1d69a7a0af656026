"""Elasticsearch clients: one per identity and process, with sane timeouts and retries.

With several nodes (ES_URL="http://a:9200,http://b:9200,…", or the local cluster) elasticsearch-py's
node pool spreads requests round-robin and, when a connection fails, marks that node dead (back-off
doubling from 1 s up to 30 s) and retries the request on another node.
"""

from __future__ import annotations

from typing import Literal

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
        **_retries(role, len(urls)),
        **auth,
    }
    if settings.es_ca_certs:
        kwargs["ca_certs"] = settings.es_ca_certs
    kwargs.update(overrides)
    return Elasticsearch(urls, **kwargs)


def _retries(role: Role, nodes: int) -> dict:
    """The indexer waits out slow requests; the webapp never retries a timeout (its callers wait) but
    tries each other node once when a connection fails, so a dead node costs one quick retry."""
    if role == "indexer":
        return {"retry_on_timeout": True, "max_retries": max(2, nodes - 1)}
    return {"retry_on_timeout": False, "max_retries": nodes - 1}
