"""JSON input in our Paper schema (documented in indexer.loading.models).

Containers, chosen from the first bytes:
    lines   one JSON object per line (.jsonl/.ndjson always; .json when its first line is a whole value).
            A broken line is rejected and reading goes on with the next line.
    array   a top-level array, decoded element by element from bounded chunks.
    stream  one or more (pretty-printed) objects one after another.
In array/stream mode there is no safe point to resume after broken JSON, so that error ends the file
with a Reject for the rest.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from indexer.loading.models import paper_from_json, paper_or_reject
from indexer.loading.readers import READ_ERRORS, Located, Source, SourceError, decode_line, iter_raw_lines
from indexer.loading.rejects import Reject

CHUNK = 1024 * 1024
MAX_VALUE = 32 * 1024 * 1024  # one array element may not exceed this
_NON_WS = re.compile(r"\S")

Value = tuple[int, Any, str]  # (line where the value starts, decoded value, its raw text)


def read_papers(f: IO[bytes], source: Source) -> Iterator[Located]:
    if source.container == "lines":
        yield from _read_paper_lines(f, source)
        return
    for item in iter_values(f, source.name, source.path, source.container):
        if isinstance(item, Reject):
            yield item.line, item
        else:
            line, obj, raw = item
            yield line, paper_or_reject(obj, source=source.name, line=line, raw=raw)


def _read_paper_lines(f: IO[bytes], source: Source) -> Iterator[Located]:
    """JSON Lines straight through pydantic's JSON parser; a line it refuses is read again the slow
    way (decode, json.loads, dict validation) so the reject says exactly what is wrong."""
    name = source.name
    for number, data in iter_raw_lines(f, name, source.path):
        if isinstance(data, Reject):
            yield number, data
            continue
        if not data or data.isspace():
            continue
        try:
            yield number, paper_from_json(data, source=name)
            continue
        except ValidationError:
            pass
        item = _decode_value(name, number, data)
        if isinstance(item, Reject):
            yield number, item
        elif item is not None:
            yield number, paper_or_reject(item[1], source=name, line=number, raw=item[2])


def _decode_value(source: str, number: int, data: bytes) -> Value | Reject | None:
    """One line's JSON value (None for a blank line), or the reject saying why it has none."""
    text = decode_line(source, number, data)
    if isinstance(text, Reject):
        return text
    if not text.strip():
        return None
    try:
        return number, json.loads(text), text
    except json.JSONDecodeError as exc:
        return Reject.make(source, number, "", "invalid JSON", detail=json_error_detail(exc), raw=text)


def first_value(f: IO[bytes], path: str | Path, container: str, attempts: int = 10) -> Any:
    """The first value that decodes (None if there is none), for format detection."""
    for n, item in enumerate(iter_values(f, Path(path).name, path, container)):
        if not isinstance(item, Reject):
            return item[1]
        if n + 1 >= attempts:
            break
    return None


def container(path: str | Path, head: bytes) -> str:
    """lines, array or stream, from the file name and its first bytes (BOM removed)."""
    suffix = Path(path).name.lower().removesuffix(".gz")
    if suffix.endswith((".jsonl", ".ndjson")):
        return "lines"
    head = head.lstrip()
    if head.startswith(b"["):
        return "array"
    first_line, newline, _ = head.partition(b"\n")
    if not newline:  # first line longer than the sniffed head (or the only line): treat as JSON Lines
        return "lines"
    try:
        json.loads(first_line.strip())
    except ValueError:
        return "stream" if head.startswith(b"{") else "lines"
    return "lines"


def iter_values(f: IO[bytes], source: str, path: str | Path, container: str) -> Iterator[Value | Reject]:
    if container == "lines":
        yield from _iter_lines(f, source, path)
    else:
        yield from _iter_stream(f, source, path, array=container == "array")


def json_error_detail(exc: json.JSONDecodeError) -> str:
    return f"{exc.msg} at column {exc.colno}" if exc.lineno == 1 else f"{exc.msg} at {exc.lineno}:{exc.colno}"


def _iter_lines(f: IO[bytes], source: str, path: str | Path) -> Iterator[Value | Reject]:
    for number, data in iter_raw_lines(f, source, path):
        item = data if isinstance(data, Reject) else _decode_value(source, number, data)
        if item is not None:
            yield item


class _Chunks:
    """A sliding window over decoded text that keeps only the unread part (plus line counting)."""

    def __init__(self, f: IO[bytes], path: str | Path) -> None:
        self.text = io.TextIOWrapper(f, encoding="utf-8-sig", newline="")
        self.path = path
        self.buf = ""
        self.pos = 0
        self.line = 1

    def more(self) -> bool:
        try:
            chunk = self.text.read(CHUNK)
        except (*READ_ERRORS, UnicodeDecodeError) as exc:
            raise SourceError(self.path, f"read error near line {self.line}: {exc}") from exc
        if not chunk:
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def advance(self, to: int) -> None:
        self.line += self.buf.count("\n", self.pos, to)
        self.pos = to

    def peek(self) -> str | None:
        """The next non-whitespace character (not consumed), None at the end."""
        while True:
            match = _NON_WS.search(self.buf, self.pos)
            if match:
                self.advance(match.start())
                return self.buf[self.pos]
            self.advance(len(self.buf))
            if not self.more():
                return None

    def value(self, decoder: json.JSONDecoder) -> Value:
        while True:
            try:
                obj, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if len(self.buf) - self.pos <= MAX_VALUE and self.more():
                    continue  # probably cut by the chunk boundary: read on and retry
                raise
            if end == len(self.buf) and not isinstance(obj, dict | list) and self.more():
                continue  # a bare number or literal may continue in the next chunk
            start, raw = self.line, self.buf[self.pos : end]
            self.advance(end)
            return start, obj, raw


def _iter_stream(f: IO[bytes], source: str, path: str | Path, *, array: bool) -> Iterator[Value | Reject]:
    chunks = _Chunks(f, path)
    decoder = json.JSONDecoder()
    if array:
        chunks.peek()
        chunks.advance(chunks.pos + 1)  # the "["
    while True:
        ch = chunks.peek()
        if ch is None:
            if array:
                yield Reject.make(source, chunks.line, "", "invalid JSON", detail="array not closed")
            return
        if array and ch == "]":
            return
        try:
            yield chunks.value(decoder)
        except json.JSONDecodeError as exc:
            detail = f"{exc.msg}; the rest of the file is skipped"
            rest = chunks.buf[chunks.pos :]
            yield Reject.make(source, chunks.line, "", "invalid JSON", detail=detail, raw=rest)
            return
        if array:
            ch = chunks.peek()
            if ch == ",":
                chunks.advance(chunks.pos + 1)
            elif ch != "]":
                detail = "expected ',' or ']' between array elements; the rest of the file is skipped"
                yield Reject.make(source, chunks.line, "", "invalid JSON", detail=detail)
                return
