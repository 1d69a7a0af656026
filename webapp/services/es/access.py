"""One way to Elasticsearch for the webapp's services: the client, the alias, the time budget a page's requests
share (DECISIONS.md D-103), and the round sender every page goes through (a search's rounds, an author or topic
page's, a paper page's look-ups): it renders each request, sends a round as one search or one _msearch, maps
failures to the two errors the controllers know (errors.py), and shows each request to a trace."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from http import HTTPStatus
from typing import Any

from elasticsearch import ApiError, Elasticsearch, TransportError

from webapp.domain import BadQuery, SearchUnavailable
from webapp.services.es.errors import es_errors
from webapp.services.search_settings import WebSearchConfig

log = logging.getLogger(__name__)

MIN_REQUEST_TIME = 0.05  # seconds: with less of the budget left, a request is not worth sending
_deadline: ContextVar[float | None] = ContextVar("search_deadline", default=None)
_preference: ContextVar[str | None] = ContextVar("search_preference", default=None)
Answer = dict[str, Any]
# A request's body (a plan's Spelling is several bodies, sent as items of the round's _msearch).
Render = Callable[[Any, WebSearchConfig], Any]
# Whether a request whose answer failed may be left out (refused: Elasticsearch answered 400), not end the page.
MayFail = Callable[[Any, bool], bool]
# Called with each request sent, its body, and the answer (the explain command shows them).
Trace = Callable[[Any, Any, Any], None]


# Whether a request asks for the shard request cache (size-0 bodies have it by Elasticsearch's default).
Cached = Callable[[Any], bool]


def _never(request: Any, refused: bool) -> bool:
    return False


def _uncached(request: Any) -> bool:
    return False


class EsAccess:
    def __init__(self, client: Elasticsearch, alias: str, config: WebSearchConfig, budget: float | None = None) -> None:
        self.client, self.alias, self.config = client, alias, config
        # Seconds for all of one page's requests together (None: each request has the client's timeout), so
        # a slow or frozen cluster costs a visitor one budget, not one per round trip (DECISIONS.md D-103).
        self.budget = budget

    def start_budget(self, same_copies: str | None = None) -> None:
        """Start one search's (or one page's) time budget: the requests after it share what is left.
        `same_copies`: a key naming what is shown whatever its page; the requests after it are sent with it as
        their `preference`, so each page of one search reads the same copy of each shard (DECISIONS.md D-231)."""
        _deadline.set(time.monotonic() + self.budget if self.budget else None)
        _preference.set(hashlib.blake2b(same_copies.encode(), digest_size=8).hexdigest() if same_copies else None)

    def es(self) -> Elasticsearch:
        """The client, with what is left of this page's time budget as its timeout."""
        deadline = _deadline.get()
        if deadline is None:
            return self.client
        left = deadline - time.monotonic()
        if left <= MIN_REQUEST_TIME:
            log.error("search budget of %.1f s used up", self.budget or 0)
            raise SearchUnavailable("search is too slow right now")
        return self.client.options(request_timeout=left)

    def search_one(self, body: Any, cache: bool = False) -> Answer:
        """One body on this page's time budget and shard copies: a round of one request, or a look-up outside the
        plan's rounds (an author's name keys). `cache`: ask for the shard request cache (DECISIONS.md D-228)."""
        return self.es().search(index=self.alias, body=body, request_cache=True if cache else None,
                                preference=_preference.get()).body

    def send(self, requests: Sequence[Any], kind: str, render: Render, trace: Trace | None = None,
             may_fail: MayFail = _never, cached: Cached = _uncached) -> list[Answer | list[Answer] | None]:
        """One round's answers, one per request (a request of several bodies: one per body); None for a request
        that failed and may_fail. `kind` labels the round's time in /metrics; `cached`: which requests ask for the
        shard request cache (DECISIONS.md D-102, D-228)."""
        rendered = [(r, render(r, self.config)) for r in requests]
        flat = [(cached(r), b) for r, body in rendered for b in (body if isinstance(body, list) else [body])]
        try:
            with es_errors(self.alias, kind):
                if len(flat) == 1:
                    answers = [self.search_one(flat[0][1], cache=flat[0][0])]
                else:
                    items = [x for cache, b in flat for x in (_header(cache, _preference.get()), b)]
                    answers = self.es().msearch(index=self.alias, searches=items).body["responses"]
        except (SearchUnavailable, BadQuery) as exc:
            if not all(may_fail(r, isinstance(exc, BadQuery)) for r in requests):
                raise
            return [None] * len(requests)
        out: list[Answer | list[Answer] | None] = []
        for request, body in rendered:
            n = len(body) if isinstance(body, list) else 1
            answer, answers = (answers[:n] if isinstance(body, list) else answers[0]), answers[n:]
            if trace:
                trace(request, body, answer)
            out.append(_checked(answer, request, kind, may_fail))
        return out

    def ready(self) -> bool:
        """The cluster answers and the alias exists (GET / is not allowed on every distribution)."""
        try:
            return bool(self.client.indices.exists_alias(name=self.alias))
        except (ApiError, TransportError) as exc:
            log.warning("readiness check failed: %s", exc)
            return False


def _header(cache: bool, preference: str | None) -> dict[str, Any]:
    """An _msearch item's header: the shard request cache when asked for, the search's shard copies."""
    return {**({"request_cache": True} if cache else {}), **({"preference": preference} if preference else {})}


def _checked(answer: Any, request: Any, kind: str, may_fail: MayFail) -> Any:
    """An _msearch item's answer, None when it failed and may, else the failure raised as the controllers know it
    (a request of several bodies reads its items' failures itself)."""
    if isinstance(answer, list) or "error" not in answer:
        return answer
    refused = answer.get("status") == HTTPStatus.BAD_REQUEST
    if may_fail(request, refused):
        log.warning("%s request left out: %s", kind, answer["error"])
        return None
    log.error("%s failed: %s", kind, answer["error"])
    if refused:
        raise BadQuery("This query could not be run; please simplify it.")
    raise SearchUnavailable("search failed")
