"""What kind of publication a record is — conference paper, journal article, preprint — and where its
venue really is a discipline (config/record_types.json). The indexer stores the result (record_type,
venue, subjects); the webapp's citation formats read record_type to pick their entry kinds."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from papersearch.paths import config_dir
from papersearch.text import normalize_text

RULES_FILE = "record_types.json"
RecordType = Literal["conference-paper", "journal-article", "preprint"]
TYPES: tuple[str, ...] = ("conference-paper", "journal-article", "preprint")  # = RecordType; the file must agree
_TRAILING_YEAR = re.compile(r"[\s'’,]*(?:19|20)\d\d$")


def _venue_key(venue: str) -> str:
    return _TRAILING_YEAR.sub("", normalize_text(venue)).casefold()


@dataclass(frozen=True)
class Classified:
    record_type: str | None
    venue: str
    subjects: tuple[str, ...]


class RecordTypeRules:
    def __init__(self, data: dict) -> None:
        if tuple(data["types"]) != TYPES:
            raise ValueError(f"{RULES_FILE}: types must be {list(TYPES)}, not {data['types']}")
        disciplines = data["disciplines"]
        self._discipline_type = self._type(disciplines["type"])
        self._disciplines = {normalize_text(n) for n in disciplines["names"]}
        self._venues = {_venue_key(v): self._type(kind) for kind, names in data["venues"].items() for v in names}
        self._patterns = [(re.compile(p), self._type(kind))
                          for kind, patterns in data["venue_patterns"].items() for p in patterns]

    @staticmethod
    def _type(kind: str) -> str:
        if kind not in TYPES:
            raise ValueError(f"{RULES_FILE}: unknown record type {kind!r} (known: {', '.join(TYPES)})")
        return kind

    def classify(self, record_type: str | None, venue: str, subjects: tuple[str, ...] = ()) -> Classified:
        """The record's type, its venue (empty when it was a discipline) and its subjects (the discipline added)."""
        if venue in self._disciplines:
            return Classified(record_type or self._discipline_type, "", tuple(dict.fromkeys((*subjects, venue))))
        if record_type is None and venue:
            record_type = self._venues.get(_venue_key(venue)) or next(
                (kind for pattern, kind in self._patterns if pattern.search(venue)), None)
        return Classified(record_type, venue, subjects)


@lru_cache(maxsize=1)
def rules() -> RecordTypeRules:
    path = config_dir() / RULES_FILE
    try:
        return RecordTypeRules(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, re.error) as exc:
        raise ValueError(f"{path}: cannot read the record type rules: {exc}") from exc
