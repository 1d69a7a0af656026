"""What the site records about its use: each search counted in /metrics and written to the query log,
and the search page's beacons (a result click, a query retyped soon after the previous one).

Nothing identifying is recorded: no IP address, cookie or user agent (papersearch/querylog_schema.py). With
PAPERSEARCH_QUERY_LOG=off the counting stays and nothing is written. A beacon counts only for a search
the site served: JSON (415 otherwise), from the site's own pages (Sec-Fetch-Site, Origin when sent), with a
query id the site signed less than a day ago (controllers/query_ids.py), a click at a position the search
showed and for the paper it showed there, every field of its own type ("position": "1" is refused). Any
other beacon is refused (400; 403 when its query id is not one the site signed), counted in
papersearch_events_rejected_total by reason, and never written or logged. A click is stored once per (query id,
position), a retype once per search, however often either is sent (papersearch/querylog_schema.py); a retype
from a search to itself or to an earlier one is refused.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from papersearch import querylog_schema
from papersearch.text import MAX_ID_BYTES
from webapp import metrics
from webapp.controllers.params import ParamError
from webapp.controllers.query_ids import MAX_AGE, Expired, Issued, QueryIds, token_pattern
from webapp.domain import SearchParams, SearchResult
from webapp.querylog_writer import QueryLogWriter
from webapp.services.search_settings import search_config

MAX_BEACON_BYTES = 2048
# Browsers say where a request comes from (Sec-Fetch-Site); another site's page must not feed our query log.
SAME_SITE = ("same-origin", "none")
MEDIA_TYPE = "application/json"
MAX_AGE_HOURS = MAX_AGE // 3600


class WrongMediaType(ParamError):
    status = 415


class UnknownQuery(ParamError):
    """A beacon whose query id this site never signed: understood, and refused as not the site's own."""

    status = 403


@dataclass(frozen=True)
class BeaconModels:
    click: type[BaseModel]
    retype: type[BaseModel]
    adapter: TypeAdapter

    @property
    def all(self) -> tuple[type[BaseModel], ...]:  # also the OpenAPI request bodies
        return (self.click, self.retype)


@functools.cache
def beacon_models() -> BeaconModels:
    """The beacons' models. Their bounds come from the search settings (the deepest position, the marks a query id
    carries), so they are made when first asked for, not when this module is imported (DECISIONS.md D-216)."""
    QueryId = Annotated[str, Field(pattern=token_pattern(),
                                   description="The search's `query_id`, as the site gave it")]
    # No result lies deeper than the result window (the deepest page with one result per page).
    max_position = SearchParams.deepest_page(search_config().max_result_window)

    class _Beacon(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        query_id: QueryId

    class ClickBeacon(_Beacon):
        """A result link followed: its 1-based position over all pages of the search `query_id`."""

        type: Literal["click"]
        position: int = Field(ge=1, le=max_position)
        paper_id: str = Field(min_length=1, max_length=MAX_ID_BYTES)

    class RetypeBeacon(_Beacon):
        """The search `query_id` was typed in the same tab soon after `previous_query_id`, with no click between."""

        type: Literal["retype"]
        previous_query_id: QueryId

    beacon = Annotated[ClickBeacon | RetypeBeacon, Field(discriminator="type")]
    return BeaconModels(ClickBeacon, RetypeBeacon, TypeAdapter(beacon))


def filters_of(result: SearchResult) -> list[str]:
    """Every filter of the search as "param=value" with the URL's parameter names: area, subarea, and each
    facet's values and range bounds from config/index.json (year=2024, venue=ICLR, year_from=2020)."""
    p = result.params
    pairs: list[tuple[str, object]] = [("area", a) for a in p.areas] + [("subarea", s) for s in p.subareas]
    pairs += [(param, v) for param, values in p.filters.items() for v in values]
    pairs += list(p.ranges.items())
    return [f"{name}={value}" for name, value in pairs]


class Recorder:
    def __init__(self, writer: QueryLogWriter | None, query_ids: QueryIds) -> None:
        self.writer = writer
        self.query_ids = query_ids
        self.models = beacon_models()  # made with the app, before any request thread asks for them

    def search(self, result: SearchResult, source: querylog_schema.Source, lang: str) -> None:
        """Count the search; when the query log is on, write it and give the result its signed query id."""
        metrics.count_search(source, result.total, result.fallbacks)
        if self.writer is None:
            return
        p = result.params
        event = querylog_schema.SearchEvent(
            query_id=querylog_schema.new_query_id(), q=p.q[:querylog_schema.MAX_LOGGED_QUERY],
            filters=filters_of(result),
            sort=p.sort, page=p.page, size=p.size, total=result.total, took_ms=result.took_ms,
            fallbacks=result.fallbacks, did_you_mean=result.did_you_mean or result.showing_for, lang=lang,
            source=source,
        )
        self.writer.submit(event)
        result.query_id = self.query_ids.issue(event.query_id, source, p.offset, [hit.id for hit in result.hits])

    def beacon(self, body: bytes, media_type: str = MEDIA_TYPE, fetch_site: str = "same-origin",
               own_origin: bool = True) -> None:
        """One beacon from the search page (JSON); ParamError (counted, not written) when it is not one.
        `own_origin`: the request's Origin, when it has one, is this site's (webapp/site.py)."""
        if media_type != MEDIA_TYPE:
            metrics.EVENTS_REJECTED.labels("media_type").inc()
            raise WrongMediaType("error.http.415")
        if not own_origin:
            raise _rejected("cross_site", "sent from another site")
        beacon, issued = self._accepted(body, fetch_site)
        models = self.models
        if isinstance(beacon, models.click):
            metrics.CLICKS.inc()
        if self.writer is None:
            return
        if isinstance(beacon, models.click):
            self.writer.submit(querylog_schema.ClickEvent(query_id=issued[0].query_id, position=beacon.position,
                                                   paper_id=beacon.paper_id, source=issued[0].source,
                                                   searched_at=issued[0].issued_at))
        else:
            self.writer.submit(querylog_schema.RetypeEvent(query_id=issued[0].query_id, source=issued[0].source,
                                                    previous_query_id=issued[1].query_id,
                                                    searched_at=issued[0].issued_at))

    def _accepted(self, body: bytes, fetch_site: str) -> tuple[typing.Any, list[Issued]]:
        """The beacon and what its query ids say (the search's, then for a retype the previous one's)."""
        if fetch_site not in SAME_SITE:
            raise _rejected("cross_site", "sent from another site")
        if len(body) > MAX_BEACON_BYTES:
            raise _rejected("too_large", f"larger than {MAX_BEACON_BYTES} bytes")
        models = self.models
        try:
            beacon = models.adapter.validate_json(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "body"
            raise _rejected("invalid", f"{where}: {first['msg']}"[:200]) from None
        tokens = [beacon.query_id] + ([beacon.previous_query_id] if isinstance(beacon, models.retype) else [])
        try:
            issued = [self.query_ids.verify(token) for token in tokens]
        except Expired:
            raise _rejected("expired", f"the search is more than {MAX_AGE_HOURS} hours old") from None
        if None in issued:  # well-formed, but not this site's signature: forged, altered or another site's
            metrics.EVENTS_REJECTED.labels("unknown_query").inc()
            raise UnknownQuery("error.event_unknown_query")
        valid = typing.cast(list[Issued], issued)
        # A retype's previous search was served before this one (a token's time is when it was issued), and is
        # not the same one: a search cannot be retyped from itself or from a later search.
        if isinstance(beacon, models.retype) and (valid[0].query_id == valid[1].query_id
                                                 or valid[1].issued_at > valid[0].issued_at):
            raise _rejected("retype", "the previous search must be another, earlier one")
        if isinstance(beacon, models.click):
            if not valid[0].shows(beacon.position):
                raise _rejected("position", "that search did not show a result at this position")
            if not self.query_ids.shown_at(valid[0], beacon.position, beacon.paper_id):
                raise _rejected("paper", "that search did not show this paper at this position")
        return beacon, valid


def _rejected(reason: str, detail: str) -> ParamError:
    metrics.EVENTS_REJECTED.labels(reason).inc()
    return ParamError("error.event", detail=detail)
