"""What people searched for and did not find: the query log summarised (`papersearch-admin report`).

Reads the daily query-log indices (papersearch/querylog_schema.py) with the indexer's identity, which may
read them, not change them (it may only append, for restores). Everything but the retyped queries is one
aggregation request; retypes join each `retype` event with the two searches it links (by query id) to compare
their queries and times.
By default only what came from the search page counts (`source`: the API is for programs, and fuzzers);
click positions are summarised by their median, which one outlier cannot move.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import UTC, date, datetime, timedelta

from elasticsearch import Elasticsearch, NotFoundError
from pydantic import BaseModel, computed_field

from papersearch import querylog_schema

RETYPE_WITHIN = timedelta(minutes=1)
TOP = 15
_DURATION = re.compile(r"^\s*(\d+)\s*([hdw])\s*$")
_UNITS = {"h": "hours", "d": "days", "w": "weeks"}
_LOOKUP_BATCH = 1000


def parse_duration(text: str) -> timedelta:
    """'7d', '12h', '2w' → timedelta; anything else is a ValueError naming the expected form."""
    match = _DURATION.match(text.lower())
    if not match or int(match.group(1)) == 0:
        raise ValueError(f"expected a duration like 7d, 12h or 2w, got {text!r}")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def log_indices(client: Elasticsearch, base: str) -> dict[str, date]:
    """The base's daily indices (name → day); other bases under the same prefix are left out."""
    try:
        found = client.indices.resolve_index(name=f"{base}-*", expand_wildcards="open")
    except NotFoundError:
        return {}
    days = {entry["name"]: querylog_schema.day_of_index(base, entry["name"]) for entry in found["indices"]}
    return {name: day for name, day in sorted(days.items()) if day is not None}


class DayRow(BaseModel):
    day: date
    searches: int
    zero_result: int


class QueryCount(BaseModel):
    query: str
    searches: int


class Retyped(BaseModel):
    query: str
    times: int
    next_query: str  # what it was most often retyped to


class Report(BaseModel):
    since: datetime
    until: datetime
    indices: list[str]
    source: str = "page"  # the events counted: page, api or all
    searches: int = 0
    zero_result: int = 0
    clicks: int = 0
    median_click_position: float | None = None
    took_p50_ms: float | None = None
    took_p95_ms: float | None = None
    days: list[DayRow] = []
    top_queries: list[QueryCount] = []
    top_zero_result_queries: list[QueryCount] = []
    retyped: list[Retyped] = []

    @computed_field  # type: ignore[prop-decorator]
    @property
    def zero_result_share(self) -> float:
        return round(self.zero_result / self.searches, 4) if self.searches else 0.0


def _aggregations() -> dict:
    queries = {"terms": {"field": "q_norm", "size": TOP, "exclude": [""]}}
    return {
        "searches": {
            "filter": {"term": {"event": querylog_schema.SEARCH}},
            "aggs": {
                "zero": {"filter": {"term": {"zero_result": True}}, "aggs": {"queries": queries}},
                "queries": queries,
                "took": {"percentiles": {"field": "took_ms", "percents": [50, 95]}},
                "per_day": {"date_histogram": {"field": "timestamp", "calendar_interval": "day",
                                               "time_zone": "UTC", "min_doc_count": 0},
                            "aggs": {"zero": {"filter": {"term": {"zero_result": True}}}}},
            },
        },
        "clicks": {"filter": {"term": {"event": querylog_schema.CLICK}},
                   "aggs": {"position": {"percentiles": {"field": "position", "percents": [50]}}}},
    }


def build(client: Elasticsearch, base: str, since: timedelta, now: datetime | None = None,
          source: str = "page") -> Report:
    """The report over `since` before `now`, of the events from `source` (page, api, all; events written
    before the log recorded a click's source count under all only)."""
    until = now or datetime.now(UTC)
    start = until - since
    indices = [name for name, day in log_indices(client, base).items() if day >= start.date()]
    report = Report(since=start, until=until, indices=indices, source=source)
    if not indices:
        return report
    window: dict = {"range": {"timestamp": {"gte": start.isoformat(), "lte": until.isoformat()}}}
    if source != "all":
        window = {"bool": {"filter": [window, {"term": {"source": source}}]}}
    response = client.search(index=",".join(indices), size=0, query=window, aggs=_aggregations(),
                             ignore_unavailable=True).body
    aggs = response["aggregations"]
    searches, clicks = aggs["searches"], aggs["clicks"]
    took = searches["took"]["values"]
    report.searches = searches["doc_count"]
    report.zero_result = searches["zero"]["doc_count"]
    report.clicks = clicks["doc_count"]
    report.median_click_position = clicks["position"]["values"].get("50.0")
    report.took_p50_ms, report.took_p95_ms = took.get("50.0"), took.get("95.0")
    report.days = [DayRow(day=datetime.fromtimestamp(b["key"] / 1000, UTC).date(), searches=b["doc_count"],
                          zero_result=b["zero"]["doc_count"]) for b in searches["per_day"]["buckets"]]
    report.top_queries = _counts(searches["queries"])
    report.top_zero_result_queries = _counts(searches["zero"]["queries"])
    report.retyped = _retyped(client, indices, window)
    return report


def _counts(agg: dict) -> list[QueryCount]:
    return [QueryCount(query=b["key"], searches=b["doc_count"]) for b in agg["buckets"]]


def _retyped(client: Elasticsearch, indices: list[str], window: dict) -> list[Retyped]:
    """Searches followed within RETYPE_WITHIN by a different query in the same tab, without a click."""
    links = [(hit["_source"]["previous_query_id"], hit["_source"]["query_id"])
             for hit in _scan(client, indices,
                              {"bool": {"filter": [window, {"term": {"event": querylog_schema.RETYPE}}]}},
                              ["query_id", "previous_query_id"])]
    ids = sorted({i for pair in links for i in pair})
    searches: dict[str, tuple[str, datetime]] = {}
    for start in range(0, len(ids), _LOOKUP_BATCH):
        query = {"bool": {"filter": [{"term": {"event": querylog_schema.SEARCH}},
                                     {"terms": {"query_id": ids[start:start + _LOOKUP_BATCH]}}]}}
        for hit in _scan(client, indices, query, ["query_id", "q_norm", "timestamp"]):
            source = hit["_source"]
            searches[source["query_id"]] = (source["q_norm"], datetime.fromisoformat(source["timestamp"]))
    followed: dict[str, Counter] = defaultdict(Counter)
    for previous, current in links:
        if previous not in searches or current not in searches:
            continue
        (before, t0), (after, t1) = searches[previous], searches[current]
        if before and before != after and timedelta(0) <= t1 - t0 <= RETYPE_WITHIN:
            followed[before][after] += 1
    ranked = sorted(followed.items(), key=lambda item: (-sum(item[1].values()), item[0]))[:TOP]
    return [Retyped(query=q, times=sum(nexts.values()), next_query=nexts.most_common(1)[0][0]) for q, nexts in ranked]


def _scan(client: Elasticsearch, indices: list[str], query: dict, fields: list[str]):
    """Every matching document, in pages (search_after on the timestamp and query id)."""
    after: list | None = None
    while True:
        page = client.search(index=",".join(indices), query=query, source=fields, size=_LOOKUP_BATCH,
                             sort=[{"timestamp": "asc"}, {"query_id": "asc"}], ignore_unavailable=True,
                             **({"search_after": after} if after else {})).body["hits"]["hits"]
        yield from page
        if len(page) < _LOOKUP_BATCH:
            return
        after = page[-1]["sort"]
