"""Records that could not be turned into a Paper, and a streaming writer for them.

A reject names the file, the line (1-based, where the record starts), the field at fault ("" for the
record as a whole), a short stable reason (so rejects can be counted per reason) and an optional
detail with the specifics (parser message, extra errors).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import IO

from pydantic import BaseModel, ConfigDict

RAW_LIMIT = 2000  # keep the rejects file small even when a broken line is huge


class Reject(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    line: int | None = None
    field: str = ""
    reason: str
    detail: str = ""
    raw: str = ""

    @classmethod
    def make(
        cls, source: str, line: int | None, field: str, reason: str, *, detail: str = "", raw: str = ""
    ) -> Reject:
        if len(raw) > RAW_LIMIT:
            raw = raw[:RAW_LIMIT] + "…"
        return cls(source=source, line=line, field=field, reason=reason, detail=detail, raw=raw)

    @property
    def key(self) -> str:
        """What rejects are counted by: field and reason, without the variable detail."""
        return f"{self.field or 'record'}: {self.reason}"

    def format(self) -> str:
        """One human line: "file:line: field: reason (detail)"."""
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        text = f"{where}: {self.key}"
        return f"{text} ({self.detail})" if self.detail else text

    def __str__(self) -> str:
        return self.format()


class RejectsWriter:
    """Appends rejects to a JSON Lines file as they come (nothing is held in memory but counts).

    With path=None only the counts are kept. Use as a context manager, or call close().
    """

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self.counts: Counter[str] = Counter()
        self._file: IO[str] | None = None
        if self.path is not None:  # opened (and truncated) now, so a stale file never survives a clean run
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("w", encoding="utf-8")

    def write(self, reject: Reject) -> None:
        self.counts[reject.key] += 1
        if self._file is not None:
            self._file.write(reject.model_dump_json() + "\n")

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> list[str]:
        """Counts per reason, most frequent first, e.g. ["     3  title: longer than 1000 characters"]."""
        return [f"{n:>7}  {key}" for key, n in self.counts.most_common()]

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> RejectsWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

