"""The systems a relevance set runs against, each a Runner: query text -> (ranked ids of the top K, total).

- ours:     the webapp's SearchService in this process (parser, query builders, config/index.json)
- api:      GET /api/search of a running webapp (what users get; also how held-out sets are run)
- baseline: one plain multi_match over the same fields at boost 1, searched by the same web user
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from elasticsearch import Elasticsearch

from relevance.metrics import K, Runner

if TYPE_CHECKING:
    import requests

    from webapp.services.search_settings import WebSearchConfig

ScoredRunner = Callable[[str], tuple[list[str], int, list[float | None]]]  # … and each hit's score

API_ATTEMPTS = 5


def ours(client: Elasticsearch, alias: str, config: WebSearchConfig | None = None) -> Runner:
    """The webapp's search: parser, query builders, config/index.json — SearchService itself."""
    scored = ours_scored(client, alias, config)
    return lambda q: scored(q)[:2]


def ours_scored(client: Elasticsearch, alias: str, config: WebSearchConfig | None = None) -> ScoredRunner:
    """The same, with each hit's score (what the graded sets' flatness is read from)."""
    from webapp.domain import SearchParams
    from webapp.services.search import SearchService

    service = SearchService(client, alias, config=config)

    def run(q: str) -> tuple[list[str], int, list[float | None]]:
        result = service.search(SearchParams(q=q, size=K))
        return [h.id for h in result.hits], result.total, [h.score for h in result.hits]

    return run


def baseline_query(q: str, config: WebSearchConfig) -> dict[str, Any]:
    """One multi_match over the same fields as ours, all at boost 1: no phrase, proximity or fuzzy clause."""
    return {"multi_match": {"query": q, "fields": list(config.query_fields)}}


def baseline(client: Elasticsearch, alias: str) -> Runner:
    scored = baseline_scored(client, alias)
    return lambda q: scored(q)[:2]


def baseline_scored(client: Elasticsearch, alias: str) -> ScoredRunner:
    from webapp.services.search_settings import search_config

    config = search_config()

    def run(q: str) -> tuple[list[str], int, list[float | None]]:
        response = client.search(index=alias, query=baseline_query(q, config), size=K, source=False,
                                 track_total_hits=True).body
        hits = response["hits"]["hits"]
        return [h["_id"] for h in hits], response["hits"]["total"]["value"], [h["_score"] for h in hits]

    return run


class ApiError(RuntimeError):
    pass


def api_search(session: requests.Session, base_url: str, params: dict[str, Any]) -> dict[str, Any]:
    """GET /api/search; waits out 429 (Retry-After) and retries 5xx/connection errors a few times."""
    import requests  # here: the harnesses are unit-tested without the HTTP client (DECISIONS.md D-216)

    url = f"{base_url.rstrip('/')}/api/search"
    for attempt in range(1, API_ATTEMPTS + 1):
        try:
            response = session.get(url, params=params, timeout=30)
        except requests.RequestException as exc:
            if attempt == API_ATTEMPTS:
                raise ApiError(f"{url} unreachable: {exc}") from exc
            time.sleep(attempt)
            continue
        if response.status_code == 200:
            return response.json()
        if (response.status_code == 429 or response.status_code >= 500) and attempt < API_ATTEMPTS:
            time.sleep(float(response.headers.get("Retry-After", attempt)))
            continue
        raise ApiError(f"{url}?{params} answered {response.status_code}: {response.text[:300]}")
    raise AssertionError("unreachable")


def api(base_url: str) -> Runner:
    """/api/search of a running webapp, as a user gets it (one HTTP session per thread)."""
    local = threading.local()

    def run(q: str) -> tuple[list[str], int]:
        if not hasattr(local, "session"):
            import requests

            local.session = requests.Session()
        data = api_search(local.session, base_url, {"q": q, "size": K})
        return [h["id"] for h in data["hits"]], data["total"]

    return run
