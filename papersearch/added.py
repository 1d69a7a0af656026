"""The date a paper was added to the index: its field (config/index.json) and its one written form.

The indexer writes it into every document and carries an existing paper's date into each new write of it
(a full reindex, an upsert by `add`), so feeds show what is new rather than what was rebuilt (DECISIONS.md
D-070). Every stamp has the same width, so a date can be put into a
serialised document in place.
"""

from __future__ import annotations

from datetime import UTC, datetime

FIELD = "added"
ES_FORMAT = "strict_date_time"  # how Elasticsearch gives the date back: yyyy-MM-dd'T'HH:mm:ss.SSSZ
WIDTH = len("2026-12-01T10:20:30.123Z")


def stamp(when: datetime | None = None) -> str:
    """UTC to the millisecond, always WIDTH characters: 2026-12-01T10:20:30.123Z."""
    when = (when or datetime.now(UTC)).astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def normalised(value: str) -> str:
    """A date as Elasticsearch returns it, in our one form (its own format already is, mostly)."""
    if len(value) == WIDTH and value.endswith("Z"):
        return value
    return stamp(datetime.fromisoformat(value))
