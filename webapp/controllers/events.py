"""What the site records about its use: each search counted in /metrics and written to the query log,
and the search page's beacons (a result click, a query retyped soon after the previous one).

Nothing identifying is recorded: no IP address, cookie or user agent (papersearch/querylog.py). With
PAPERSEARCH_QUERY_LOG=off the counting stays and nothing is written.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from papersearch import querylog
from papersearch.text import MAX_ID_BYTES
from webapp import metrics
from webapp.controllers.params import ParamError
from webapp.domain import SearchResult
from webapp.querylog import QueryLogWriter

MAX_BEACON_BYTES = 2048
MAX_POSITION = 100_000
QueryId = Annotated[str, Field(pattern=querylog.QUERY_ID_PATTERN)]


class _Beacon(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query_id: QueryId


class ClickBeacon(_Beacon):
    """A result link followed: its 1-based position over all pages of the search `query_id`."""

    type: Literal["click"]
    position: int = Field(ge=1, le=MAX_POSITION)
    paper_id: str = Field(min_length=1, max_length=MAX_ID_BYTES)


class RetypeBeacon(_Beacon):
    """The search `query_id` was typed in the same tab soon after `previous_query_id`, with no click between."""

    type: Literal["retype"]
    previous_query_id: QueryId


BEACONS: tuple[type[BaseModel], ...] = (ClickBeacon, RetypeBeacon)  # also the OpenAPI request bodies
Beacon = Annotated[ClickBeacon | RetypeBeacon, Field(discriminator="type")]
_BEACON = TypeAdapter(Beacon)


def filters_of(result: SearchResult) -> list[str]:
    """Every list-valued search parameter as "name=value" (areas, subareas, years, and any facet added later)."""
    return [f"{name}={value}" for name, values in result.params if isinstance(values, list) for value in values]


class Recorder:
    def __init__(self, writer: QueryLogWriter | None) -> None:
        self.writer = writer

    def search(self, result: SearchResult, source: querylog.Source, lang: str) -> None:
        """Count the search; when the query log is on, write it and give the result its query id."""
        metrics.count_search(source, result.total, result.fallbacks)
        if self.writer is None:
            return
        p = result.params
        event = querylog.SearchEvent(
            query_id=querylog.new_query_id(), q=p.q[:querylog.MAX_LOGGED_QUERY], filters=filters_of(result),
            sort=p.sort, page=p.page, size=p.size, total=result.total, took_ms=result.took_ms,
            fallbacks=result.fallbacks, did_you_mean=result.did_you_mean, lang=lang, source=source,
        )
        self.writer.submit(event)
        result.query_id = event.query_id

    def beacon(self, body: bytes) -> None:
        """One beacon from the search page (JSON); ParamError when it is not one."""
        if len(body) > MAX_BEACON_BYTES:
            raise ParamError("error.event", detail=f"larger than {MAX_BEACON_BYTES} bytes")
        try:
            beacon = _BEACON.validate_json(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "body"
            raise ParamError("error.event", detail=f"{where}: {first['msg']}"[:200]) from None
        if isinstance(beacon, ClickBeacon):
            metrics.CLICKS.inc()
        if self.writer is None:
            return
        if isinstance(beacon, ClickBeacon):
            self.writer.submit(querylog.ClickEvent(query_id=beacon.query_id, position=beacon.position,
                                                   paper_id=beacon.paper_id))
        else:
            self.writer.submit(querylog.RetypeEvent(query_id=beacon.query_id,
                                                    previous_query_id=beacon.previous_query_id))
