"""Streaming readers: each input record becomes either a validated Paper or a Reject (with its line).

Formats (see `sniff`):
    listing  .txt pages copied from the paper-listing site (see indexer.loading.readers.listing_pages)
    papers   our JSON schema (see indexer.loading.models): JSON Lines (.jsonl/.ndjson), or .json holding
             JSON Lines, a top-level array, or one (pretty-printed) object
    arxiv    the arXiv metadata snapshot, one object per line (see indexer.loading.readers.arxiv)
Any of them may be gzip-compressed (".gz" or gzip magic bytes). Files are read line by line (or in
bounded chunks for a JSON array), so memory stays flat however large the input.

`sniff` opens a file once, reads its head and returns a `Source`: the path, the format and what else
the head told (gzip, JSON container). Readers take that Source and read the file once for data,
without probing again. An unreadable file or unknown format raises SourceError from `sniff` (and so
from `read_records` itself, before anything is yielded). A file that breaks mid-way (truncated gzip)
raises SourceError naming the line.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import IO, NamedTuple

from indexer.loading.models import Paper
from indexer.loading.rejects import Reject
from papersearch.taxonomy import Taxonomy

Record = Paper | Reject
Located = tuple[int | None, Record]  # a record and the line where it starts

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


class Source(NamedTuple):
    """An input file as sniffed: its format and how to read it, so no reader has to probe again."""

    path: Path
    format: str  # one of FORMATS
    gzip: bool = False
    container: str = "lines"  # JSON only: lines | array | stream (see indexer.loading.readers.jsonl)

    @property
    def name(self) -> str:
        """What rejects and documents name as their source."""
        return self.path.name


def _open_raw(path: Path) -> IO[bytes]:
    if not path.is_file():
        raise SourceError(path, "no such file" if not path.exists() else "not a regular file")
    try:
        return path.open("rb")
    except OSError as exc:
        raise SourceError(path, f"cannot open: {exc.strerror or exc}") from exc


def _decompressed(raw: IO[bytes], compressed: bool) -> AbstractContextManager[IO[bytes]]:
    return gzip.GzipFile(fileobj=raw, mode="rb") if compressed else nullcontext(raw)


@contextmanager
def open_source(source: Source) -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """(raw file, data stream): the data decompressed when gzip; the raw file's tell() is the progress."""
    with _open_raw(source.path) as raw, _decompressed(raw, source.gzip) as data:
        yield raw, data


def iter_raw_lines(f: IO[bytes], source: str, path: str | Path) -> Iterator[tuple[int, bytes | Reject]]:
    """(line number, bytes) per line, without the line ending or a leading BOM; huge lines become Rejects."""
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
        yield number, raw.rstrip(b"\r\n")


def decode_line(source: str, number: int, raw: bytes) -> str | Reject:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Reject.make(source, number, "", "not valid UTF-8", detail=str(exc))


def iter_lines(f: IO[bytes], source: str, path: str | Path) -> Iterator[tuple[int, str | Reject]]:
    """(line number, text) per line; undecodable or huge lines become Rejects."""
    for number, raw in iter_raw_lines(f, source, path):
        yield number, raw if isinstance(raw, Reject) else decode_line(source, number, raw)


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


def sniff(path: str | Path, taxonomy: Taxonomy | None = None) -> Source:
    """The Source for a file: format by extension, else by its first bytes; gzip by its magic bytes.

    JSON input counts as arXiv when its first object has arXiv's keys: id, categories and authors as a
    string (or authors_parsed). One open, one read of the head (the first JSON value may be read on
    from it). Raises SourceError for unreadable files and unknown formats.
    """
    from indexer.loading.readers import arxiv, jsonl, listing_pages

    path = Path(path)
    suffix = _inner_suffix(path)
    try:
        with _open_raw(path) as raw:
            compressed = raw.read(2) == _GZIP_MAGIC
            if suffix == ".txt":
                return Source(path, "listing", compressed)
            raw.seek(0)
            with _decompressed(raw, compressed) as f:
                head = f.read(SNIFF_BYTES).removeprefix(_BOM)
                if suffix in _JSON_SUFFIXES or head.lstrip()[:1] in (b"{", b"["):
                    container = jsonl.container(path, head)
                    f.seek(0)  # the first value may be longer than the head
                    first = jsonl.first_value(f, path, container)
                    return Source(path, "arxiv" if arxiv.is_arxiv_record(first) else "papers", compressed, container)
    except READ_ERRORS as exc:
        raise SourceError(path, f"cannot read: {exc}") from exc
    if b"\x00" in head:
        raise SourceError(path, "unknown format (binary data)")
    text = head.decode("utf-8", errors="replace")
    if listing_pages.looks_like_listing(text, taxonomy or Taxonomy.load()):
        return Source(path, "listing", compressed)
    raise SourceError(path, f"unknown format (extension {suffix or 'none'!r}, content not recognised)")


def located_records(source: Source, f: IO[bytes], taxonomy: Taxonomy) -> Iterator[Located]:
    """(line, Paper or Reject) from an opened source (see open_source), in file order."""
    from indexer.loading.readers import arxiv, jsonl, listing_pages

    if source.format == "listing":
        return listing_pages.read_listing(f, source, taxonomy)
    if source.format == "papers":
        return jsonl.read_papers(f, source)
    if source.format == "arxiv":
        return arxiv.read_arxiv(f, source, taxonomy)
    raise SourceError(source.path, f"unknown format {source.format!r} (expected one of {', '.join(FORMATS)})")


def read_records(source: str | Path | Source, taxonomy: Taxonomy | None = None) -> Iterator[Record]:
    """Papers and Rejects from one file (sniffed now unless a Source is given), read lazily."""
    taxonomy = taxonomy or Taxonomy.load()
    if not isinstance(source, Source):
        source = sniff(source, taxonomy)
    if source.format not in FORMATS:
        raise SourceError(source.path, f"unknown format {source.format!r} (expected one of {', '.join(FORMATS)})")
    raw = _open_raw(source.path)  # fails now, not at the first next()

    def generate() -> Iterator[Record]:
        with raw, _decompressed(raw, source.gzip) as f:
            for _, record in located_records(source, f, taxonomy):
                yield record

    return generate()
