"""Streaming readers: each input record becomes either a validated Paper or a Reject (with its line).

Formats (see `detect_format`):
    listing  .txt pages copied from the paper-listing site (see indexer.readers.listing)
    papers   our JSON schema (see indexer.models): JSON Lines (.jsonl/.ndjson), or .json holding
             JSON Lines, a top-level array, or one (pretty-printed) object
    arxiv    the arXiv metadata snapshot, one object per line (see indexer.readers.arxiv)
Any of them may be gzip-compressed (".gz" or gzip magic bytes). Files are read line by line (or in
bounded chunks for a JSON array), so memory stays flat however large the input.

An unreadable file or unknown format raises SourceError from `read_records` itself, before anything
is yielded. A file that breaks mid-way (truncated gzip) raises SourceError naming the line.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from indexer.models import Paper
from indexer.rejects import Reject
from papersearch.taxonomy import Taxonomy

Record = Paper | Reject

FORMATS = ("listing", "papers", "arxiv")
MAX_LINE = 32 * 1024 * 1024  # longer lines are rejected and skipped, not held in memory
SNIFF_BYTES = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
READ_ERRORS = (OSError, EOFError, zlib.error)  # gzip.BadGzipFile is an OSError


class SourceError(Exception):
    """An input file that cannot be read at all (missing, not a file, corrupt, unknown format)."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


def open_binary(path: str | Path) -> IO[bytes]:
    """Open for reading, transparently decompressing gzip (recognised by its magic bytes)."""
    path = Path(path)
    if not path.is_file():
        raise SourceError(path, "no such file" if not path.exists() else "not a regular file")
    try:
        with path.open("rb") as probe:
            magic = probe.read(2)
        return gzip.open(path, "rb") if magic == _GZIP_MAGIC else path.open("rb")
    except OSError as exc:
        raise SourceError(path, f"cannot open: {exc.strerror or exc}") from exc


def read_head(path: str | Path, size: int = SNIFF_BYTES) -> bytes:
    """The first bytes (decompressed), without a BOM."""
    try:
        with open_binary(path) as f:
            head = f.read(size)
    except READ_ERRORS as exc:
        raise SourceError(path, f"cannot read: {exc}") from exc
    return head.removeprefix(_BOM)


def iter_lines(f: IO[bytes], source: str, path: str | Path) -> Iterator[tuple[int, str | Reject]]:
    """(line number, text) per line, without the line ending; undecodable or huge lines become Rejects."""
    number = 0
    while True:
        try:
            raw = f.readline(MAX_LINE + 1)
        except READ_ERRORS as exc:
            raise SourceError(path, f"read error after line {number}: {exc}") from exc
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            _skip_rest_of_line(f, path, number)
            yield number, Reject.make(source, number, "", "line too long", detail=f"over {MAX_LINE} bytes")
            continue
        if number == 1:
            raw = raw.removeprefix(_BOM)
        try:
            yield number, raw.rstrip(b"\r\n").decode("utf-8")
        except UnicodeDecodeError as exc:
            yield number, Reject.make(source, number, "", "not valid UTF-8", detail=str(exc))


def _skip_rest_of_line(f: IO[bytes], path: str | Path, number: int) -> None:
    try:
        while chunk := f.readline(MAX_LINE):
            if chunk.endswith(b"\n"):
                return
    except READ_ERRORS as exc:
        raise SourceError(path, f"read error in line {number}: {exc}") from exc


def _inner_suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def detect_format(path: str | Path, taxonomy: Taxonomy | None = None) -> str:
    """ "listing", "papers" or "arxiv", by extension, else by sniffing the first bytes.

    JSON input counts as arXiv when its first object has arXiv's keys: id, categories and authors as a
    string (or authors_parsed). Raises SourceError for unreadable files and unknown formats.
    """
    from indexer.readers import arxiv, jsonl, listing

    path = Path(path)
    suffix = _inner_suffix(path)
    head = read_head(path)
    if suffix == ".txt":
        return "listing"
    if suffix in _JSON_SUFFIXES or head.lstrip()[:1] in (b"{", b"["):
        first = jsonl.first_value(path)
        return "arxiv" if arxiv.is_arxiv_record(first) else "papers"
    if b"\x00" in head:
        raise SourceError(path, "unknown format (binary data)")
    text = head.decode("utf-8", errors="replace")
    if listing.looks_like_listing(text, taxonomy or Taxonomy.load()):
        return "listing"
    raise SourceError(path, f"unknown format (extension {suffix or 'none'!r}, content not recognised)")


def read_records(
    path: str | Path, taxonomy: Taxonomy | None = None, fmt: str | None = None
) -> Iterator[Record]:
    """Papers and Rejects from one file, in file order. Detection happens now, reading lazily."""
    from indexer.readers import arxiv, jsonl, listing

    path = Path(path)
    taxonomy = taxonomy or Taxonomy.load()
    if fmt is None:
        fmt = detect_format(path, taxonomy)
    else:
        read_head(path, 2)  # fail now, not at the first next(), if the file cannot be read
    source = path.name
    if fmt == "listing":
        return listing.read_listing(path, source, taxonomy)
    if fmt == "papers":
        return jsonl.read_papers(path, source)
    if fmt == "arxiv":
        return arxiv.read_arxiv(path, source, taxonomy)
    raise SourceError(path, f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
