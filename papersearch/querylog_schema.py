"""The query log's shared definition: index names, document fields and mapping.

The webapp writes these documents (webapp/querylog_writer.py); `papersearch-admin report` and `querylog prune`
read and delete them (indexer/querylog/report.py). Both sides take every name from here.

One daily index per UTC day, `<base>-YYYY.MM.DD` (the base is PAPERSEARCH_QUERY_LOG_INDEX, default
`papersearch-querylog`): pruning is deleting whole indices, since the distribution has no ILM.
Documents never hold an IP address, a cookie or a user agent (see DECISIONS.md D-028).
"""

from __future__ import annotations

import logging
import re
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from papersearch.text import normalize_text

DEFAULT_BASE = "papersearch-querylog"
# The roles (provisioning/roles.py) grant on this pattern; every base must fall under it.
INDEX_PATTERN = f"{DEFAULT_BASE}-*"
BASE_RE = r"^papersearch-querylog(-[a-z0-9_]+)?$"
DAY_FORMAT = "%Y.%m.%d"
QUERY_ID_PATTERN = r"^[0-9a-f]{32}$"  # new_query_id(); the webapp hands it out signed
MAX_LOGGED_QUERY = 1000  # characters kept of one query (the webapp refuses longer ones anyway)

# Values of the `event` field.
SEARCH, CLICK, RETYPE = "search", "click", "retype"
Source = Literal["page", "api"]


def daily_index(base: str, when: datetime) -> str:
    return f"{base}-{when.astimezone(UTC).strftime(DAY_FORMAT)}"


def day_of_index(base: str, name: str) -> date | None:
    """The day of one of `base`'s daily indices, None for any other name (other bases included)."""
    match = re.fullmatch(re.escape(base) + r"-(\d{4}\.\d{2}\.\d{2})", name)
    if not match:
        return None
    try:
        return datetime.strptime(match.group(1), DAY_FORMAT).date()
    except ValueError:
        return None


def normalize_query(text: str) -> str:
    """The form under which the report groups queries: normalised, case-folded."""
    return normalize_text(text).casefold()


def new_query_id() -> str:
    return uuid.uuid4().hex


class Event(BaseModel):
    timestamp: datetime = Field(default_factory=lambda: datetime.now(UTC))
    query_id: str = Field(pattern=QUERY_ID_PATTERN)

    def index_time(self) -> datetime:
        """The day whose index takes the event."""
        return self.timestamp

    def document_id(self) -> str | None:
        """An id of the event's own, so that the same event sent twice is stored once; None: any id."""
        return None


class SearchEvent(Event):
    """One search as answered (the page or the API)."""

    event: Literal["search"] = SEARCH
    q: str = Field(max_length=MAX_LOGGED_QUERY)
    filters: list[str] = []  # "param=value", e.g. "area=Deep Learning", "year=2024"
    sort: str
    page: int
    size: int
    total: int
    took_ms: int
    # Names of the fallbacks and expansions that shaped the result (see webapp's SearchResult.fallbacks).
    fallbacks: list[str] = []
    did_you_mean: str | None = None  # the correction offered, or (fallback "corrected") the one shown
    lang: str
    source: Source

    @computed_field  # type: ignore[prop-decorator]
    @property
    def q_norm(self) -> str:
        return normalize_query(self.q)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def zero_result(self) -> bool:
        return self.total == 0


class ClickEvent(Event):
    """A result link followed from the search page: its 1-based position over all pages."""

    event: Literal["click"] = CLICK
    position: int = Field(ge=1)
    paper_id: str = Field(max_length=512)
    source: Source  # that of the search clicked in
    # When the search was served (its signed query id says): the click goes into that day's index under the id
    # click-<query id>-<position>, so a click sent again (a replay, a second click on the same result) is
    # refused by Elasticsearch as a duplicate wherever and whenever it comes. Not stored.
    searched_at: datetime | None = Field(default=None, exclude=True)

    def index_time(self) -> datetime:
        return self.searched_at or self.timestamp

    def document_id(self) -> str | None:
        return f"click-{self.query_id}-{self.position}"


class RetypeEvent(Event):
    """A new search typed in the same tab shortly after `previous_query_id`, without a click between."""

    event: Literal["retype"] = RETYPE
    previous_query_id: str = Field(pattern=QUERY_ID_PATTERN)
    source: Source  # that of the new search
    # When the new search was served: the retype goes into that day's index under retype-<query id>, so a search
    # is retyped once however often the beacon is sent (issue 45.8). Not stored.
    searched_at: datetime | None = Field(default=None, exclude=True)

    def index_time(self) -> datetime:
        return self.searched_at or self.timestamp

    def document_id(self) -> str | None:
        return f"retype-{self.query_id}"


EVENT_MODELS: dict[str, type[Event]] = {SEARCH: SearchEvent, CLICK: ClickEvent, RETYPE: RetypeEvent}


def document(event: Event) -> dict:
    return event.model_dump(mode="json", exclude_none=True)


_KEYWORD = {"type": "keyword"}
INDEX_BODY: dict = {
    # One replica wherever a second node exists; a single node stays green.
    "settings": {"number_of_shards": 1, "auto_expand_replicas": "0-1", "refresh_interval": "10s"},
    "mappings": {
        # Only documents of the log's own shape (issue 45.6): a field the mapping lacks is refused, so the web
        # user cannot grow a day's mapping nor hide data in it. A new field is a new template (the indexer's
        # next build puts it) before a webapp writes it.
        "dynamic": "strict",
        "properties": {
            "timestamp": {"type": "date"},
            "event": _KEYWORD,
            "query_id": _KEYWORD,
            "q": {"type": "keyword", "ignore_above": MAX_LOGGED_QUERY},
            "q_norm": {"type": "keyword", "ignore_above": MAX_LOGGED_QUERY},
            "filters": _KEYWORD,
            "sort": _KEYWORD,
            "page": {"type": "integer"},
            "size": {"type": "integer"},
            "total": {"type": "long"},
            "took_ms": {"type": "integer"},
            "zero_result": {"type": "boolean"},
            "fallbacks": _KEYWORD,
            "did_you_mean": _KEYWORD,
            "lang": _KEYWORD,
            "source": _KEYWORD,
            "position": {"type": "integer"},
            "paper_id": _KEYWORD,
            "previous_query_id": _KEYWORD,
        },
    },
}


# Each day's index is made ahead by the indexer's side (prepare_days), never by the web user, which may only
# append to an index that exists (DECISIONS.md D-188; before issue 53.7 a day's first document made it, and so
# could any document sent to any name under INDEX_PATTERN). The template gives the same settings and strict
# mapping to a day made any other way (DECISIONS.md D-154).
TEMPLATE_NAME = "papersearch-querylog"
TEMPLATE_PRIORITY = 500
# Days made ahead of today: what the webapp can write while no indexer command runs (`querylog prune` in the
# daily cron makes them too), and at most DAYS_AHEAD + 1 empty one-shard indices waiting.
DAYS_AHEAD = 7


def template_body() -> dict:
    return {"index_patterns": [INDEX_PATTERN], "priority": TEMPLATE_PRIORITY, "template": INDEX_BODY,
            "_meta": {"owner": "papersearch indexer", "what": "query log daily indices"}}


def ensure_template(client) -> None:  # type: ignore[no-untyped-def]
    """Put the query log's index template (idempotent; the indexer's identity, cluster manage_index_templates)."""
    client.indices.put_index_template(name=TEMPLATE_NAME, **template_body())


def days_to_prepare(base: str, now: datetime | None = None, ahead: int = DAYS_AHEAD) -> list[str]:
    """Today's (UTC) and the next `ahead` days' index names."""
    today = (now or datetime.now(UTC)).astimezone(UTC)
    return [daily_index(base, today + timedelta(days=n)) for n in range(ahead + 1)]


def prepare_days(client, base: str, now: datetime | None = None,  # type: ignore[no-untyped-def]
                 ahead: int = DAYS_AHEAD, template: bool = True) -> list[str]:
    """The template (unless `template` is False), then every missing index of days_to_prepare (the indexer's
    identity: create_index on the log); the names created. Idempotent, and safe beside another run."""
    from elasticsearch import BadRequestError

    if template:
        ensure_template(client)
    created = []
    for name in days_to_prepare(base, now, ahead):
        try:
            client.indices.create(index=name, **INDEX_BODY)
        except BadRequestError as exc:
            if exc.error != "resource_already_exists_exception":
                raise
            continue
        created.append(name)
    return created


def prepare_days_if_allowed(client, base: str) -> list[str]:  # type: ignore[no-untyped-def]
    """prepare_days (without the template) for the commands whose own work is something else (reindex, prune): an
    identity without create_index on the log (roles from before issue 53.7) is told what it lacks, not stopped."""
    from elasticsearch import AuthorizationException

    try:
        return prepare_days(client, base, template=False)
    except AuthorizationException as exc:
        logging.getLogger(__name__).warning(
            "query log: cannot make its next days (%s); the webapp drops its events from the first day missing. "
            "Grant create_index on %s to this identity", exc.message, INDEX_PATTERN)
        return []


# create_doc still lets its holder put mappings in this major version (a deprecation warning says so): a limit of
# exactly the log's own fields makes any added field fail, whoever sends it (issue 45.6).
INDEX_BODY["settings"]["index.mapping.total_fields.limit"] = len(INDEX_BODY["mappings"]["properties"])
