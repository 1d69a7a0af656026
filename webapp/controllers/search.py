"""Search, paper, suggestion and readiness controllers. Each returns (data, HTTP status).

Bad parameters raise ParamError; the service's SearchUnavailable and BadQuery propagate to the
app's error handlers, which answer 503 / 400 as HTML or JSON depending on the route.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any, Literal

from werkzeug.datastructures import MultiDict

from papersearch.querylog_schema import Source
from papersearch.text import MAX_ID_BYTES
from webapp.controllers.asked import Asked
from webapp.controllers.events import Recorder
from webapp.controllers.params import RequestArgs
from webapp.domain import SearchResult, Suggestion
from webapp.serializers.citation_download import Citation, cite
from webapp.services.search import SearchService
from webapp.views.facet_labels import labelled_result

log = logging.getLogger(__name__)

SIMILAR_COUNT = 5
SUGGESTION_COUNT = 8


def search(service: SearchService, asked: Asked, recorder: Recorder, source: Source,
           lang: str) -> tuple[SearchResult, int]:
    """The search as the request asked for it (controllers/asked.py: validated and parsed once), counted in
    /metrics and written to the query log (which gives it its query_id). The page offers a few page sizes; the API
    takes any from 1 to the largest."""
    result = service.search(asked.params, prepared=asked.prepared)
    recorder.search(result, source, lang)
    return labelled_result(result, service.config, service.labels), HTTPStatus.OK


def paper(service: SearchService, paper_id: str) -> tuple[dict[str, Any], int]:
    """{"paper": Hit | None, "similar": [Hit]}; 404 when there is no such paper."""
    if not paper_id or len(paper_id.encode()) > MAX_ID_BYTES:
        return {"paper": None, "similar": []}, HTTPStatus.NOT_FOUND
    hit, similar = service.papers.paper_and_similar(paper_id, size=SIMILAR_COUNT)
    if hit is None:
        return {"paper": None, "similar": []}, HTTPStatus.NOT_FOUND
    return {"paper": hit, "similar": similar}, HTTPStatus.OK


def citation(service: SearchService, paper_id: str, args: MultiDict,
             request_args: RequestArgs) -> tuple[Citation | None, int]:
    """One paper as a citation in the format asked for; None (404) when there is no such paper."""
    fmt = request_args.citation_format(args)
    if not paper_id or len(paper_id.encode()) > MAX_ID_BYTES:
        return None, HTTPStatus.NOT_FOUND
    hit = service.papers.get_paper(paper_id)
    if hit is None:
        return None, HTTPStatus.NOT_FOUND
    return cite(hit, fmt), HTTPStatus.OK


def suggest(service: SearchService, args: MultiDict, request_args: RequestArgs) -> tuple[list[Suggestion], int]:
    prefix = request_args.suggest(args)
    if not prefix:
        return [], HTTPStatus.OK
    return service.papers.suggest(prefix, size=SUGGESTION_COUNT), HTTPStatus.OK


def readiness(service: SearchService) -> tuple[Literal["ready", "unavailable"], int]:
    try:
        ready = service.access.ready()
    except Exception:  # readiness must answer, whatever the cluster does
        log.exception("readiness check failed")
        ready = False
    if ready:
        return "ready", HTTPStatus.OK
    return "unavailable", HTTPStatus.SERVICE_UNAVAILABLE
