"""Search, paper, suggestion and readiness controllers. Each returns (data, HTTP status).

Bad parameters raise ParamError; the service's SearchUnavailable and BadQuery propagate to the
app's error handlers, which answer 503 / 400 as HTML or JSON depending on the route.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from werkzeug.datastructures import MultiDict

from webapp.controllers.params import parse_prefix, parse_search_args
from webapp.domain import Hit, SearchResult, Suggestion
from webapp.services.search import SearchService

log = logging.getLogger(__name__)

MAX_ID_LENGTH = 512  # ids are at most 512 UTF-8 bytes (indexer.models)
SIMILAR_COUNT = 5


def search(service: SearchService, args: MultiDict, config: dict[str, Any]) -> tuple[SearchResult, int]:
    params = parse_search_args(args, config)
    return service.search(params), HTTPStatus.OK


def paper(service: SearchService, paper_id: str) -> tuple[dict[str, Any], int]:
    """{"paper": Hit | None, "similar": [Hit]}; 404 when there is no such paper."""
    if not paper_id or len(paper_id.encode()) > MAX_ID_LENGTH:
        return {"paper": None, "similar": []}, HTTPStatus.NOT_FOUND
    hit: Hit | None = service.get_paper(paper_id)
    if hit is None:
        return {"paper": None, "similar": []}, HTTPStatus.NOT_FOUND
    return {"paper": hit, "similar": service.similar(paper_id, size=SIMILAR_COUNT)}, HTTPStatus.OK


def suggest(service: SearchService, args: MultiDict, config: dict[str, Any],
            size: int = 8) -> tuple[list[Suggestion], int]:
    prefix = parse_prefix(args, config)
    if not prefix:
        return [], HTTPStatus.OK
    return service.suggest(prefix, size=size), HTTPStatus.OK


def readiness(service: SearchService) -> tuple[dict[str, str], int]:
    try:
        ready = service.ready()
    except Exception:  # readiness must answer, whatever the cluster does
        log.exception("readiness check failed")
        ready = False
    if ready:
        return {"status": "ready"}, HTTPStatus.OK
    return {"status": "unavailable"}, HTTPStatus.SERVICE_UNAVAILABLE
