"""The producer: sources → validated papers → documents → bulk request bodies, in chunks.

Runs beside the bulk senders (indexer.loading.loader): in a forked process when that is safe, so parsing
uses the core Elasticsearch leaves free and starts before the index exists; else in a thread. Either
way it hands over finished `Chunk`s through a bounded queue, so memory stays flat (DECISIONS.md
D-011).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import threading
import traceback
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from indexer.loading import vectors
from indexer.loading.documents import DocumentBuilder
from indexer.loading.models import Paper
from indexer.loading.readers import Source, SourceError, located_records, open_source, sniff
from indexer.loading.rejects import Reject
from papersearch import added as added_date
from papersearch import concepts, meaning
from papersearch.index_definition import search_config
from papersearch.taxonomy import Taxonomy

CHUNK_DOCS = 1000
CHUNK_BYTES = 8 * 1024 * 1024  # bulk requests sized by bytes as well as by count
QUEUE_CHUNKS = 4  # finished chunks waiting for a sender: the memory bound (with BULK_THREADS in flight)
MAX_PENDING_REJECTS = 1000  # a file of nothing but rejects still reaches the rejects file as it goes
PRODUCER_PROCESS: bool | None = None  # None: a forked process when that is safe, else a thread


@dataclass
class Chunk:
    """One bulk request: NDJSON action/document pairs, and where each document came from.

    Everything per document is a flat array, so handing a chunk to another process is a few copies
    of memory rather than a thousand small objects pickled (measured: 7.7 µs per paper that way)."""

    body: bytearray = field(default_factory=bytearray)
    offsets: array = field(default_factory=lambda: array("q"))  # where each document's action line starts
    lines: array = field(default_factory=lambda: array("q"))  # each document's input line (0: unknown)
    files: list[tuple[int, str]] = field(default_factory=list)  # (first document's index, input file)
    rejects: list[Reject] = field(default_factory=list)  # rejected since the previous chunk, in file order
    read: int = 0  # input records behind this chunk (papers and rejects)
    embedded: int = 0  # papers embedded so far in this load (the encoder ran), vectors found in the cache, seconds
    reused: int = 0  # in the encoder: the producer's counts when this chunk was handed over
    embed_seconds: float = 0.0
    position: int = 0  # input bytes (as stored, so compressed for gzip) consumed so far, all sources

    def add(self, paper: Paper, file: str, line: int | None, document: bytes) -> None:
        if not self.files or self.files[-1][1] != file:
            self.files.append((len(self.offsets), file))
        self.offsets.append(len(self.body))
        self.lines.append(line or 0)
        self.body += b'{"index":{"_id":' + orjson.dumps(paper.id) + b"}}\n" + document + b"\n"

    def __len__(self) -> int:
        return len(self.offsets)

    def ids(self) -> list[str]:
        """Every document's paper id, in order."""
        body = self.body
        return [orjson.loads(body[start:body.index(b"\n", start)])["index"]["_id"] for start in self.offsets]

    def set_added(self, i: int, date: bytes, written: bytes) -> None:
        """Put another date into the i-th document in place: `added` is its last value (DocumentBuilder.build),
        written as `written`, and every date has the same width (papersearch.added)."""
        end = (self.offsets[i + 1] if i + 1 < len(self.offsets) else len(self.body)) - 3  # before "}\n
        start = end - len(written)
        if len(date) != len(written) or self.body[start:end] != written:
            raise RuntimeError(f"document {i} does not end with the date {written!r}")
        self.body[start:end] = date

    def where(self, i: int) -> tuple[str, int | None, str]:
        """(input file, line, paper id) of the i-th document (for reporting its failure)."""
        file = next(name for first, name in reversed(self.files) if first <= i)
        start = self.offsets[i]
        action = orjson.loads(self.body[start:self.body.index(b"\n", start)])
        return file, self.lines[i] or None, action["index"]["_id"]

    def part(self, indices: list[int]) -> bytes:
        """The body of only these documents (for retrying them)."""
        ends = [*self.offsets[1:], len(self.body)]
        return b"".join(self.body[self.offsets[i]:ends[i]] for i in indices)


@dataclass
class Finished:
    unknown_topics: dict[str, int]


@dataclass
class Failed:
    """The producer stopped: an unreadable source (path), a broken glossary (problems) or a bug (traceback)."""

    reason: str
    path: str | None = None
    problems: list[str] | None = None

    def error(self) -> Exception:
        if self.path is not None:
            return SourceError(self.path, self.reason)
        if self.problems is not None:
            return concepts.GlossaryError(self.problems)
        return RuntimeError(f"reading the sources failed:\n{self.reason}")


def produce(sources: list[Source], taxonomy: Taxonomy, put: Callable[[object], None], added: str | None = None) -> None:
    """Read every source in order and put Chunks, then Finished (or Failed), with put(); `added`: the
    date written into every document (papersearch.added)."""
    unknown_before = Counter(taxonomy.unknown)
    chunk = Chunk()
    done_bytes = 0
    embedder = None
    try:
        # Builds the concept matcher (about half a second): here, beside the admin's own start-up.
        builder = DocumentBuilder(taxonomy, added)
        embedder = vectors.embedder()
        batch = search_config().meaning.batch
        for source in sources:
            with open_source(source) as (raw, f):
                for line, record, vector in vectors.with_vectors(located_records(source, f, taxonomy), embedder,
                                                                 batch):
                    if embedder is not None:
                        chunk.embedded, chunk.reused = embedder.embedded, embedder.reused
                        chunk.embed_seconds = embedder.seconds
                    if isinstance(record, Reject):
                        chunk.rejects.append(record)
                    else:
                        document = orjson.dumps(builder.build(record, vector), option=orjson.OPT_SERIALIZE_NUMPY)
                        if chunk.offsets and len(chunk.body) + len(document) + 100 > CHUNK_BYTES:
                            chunk.position = done_bytes + raw.tell()
                            put(chunk)
                            chunk = Chunk()
                        chunk.add(record, source.name, line, document)
                    chunk.read += 1
                    if len(chunk.offsets) >= CHUNK_DOCS or len(chunk.rejects) >= MAX_PENDING_REJECTS:
                        chunk.position = done_bytes + raw.tell()
                        put(chunk)
                        chunk = Chunk()
            done_bytes += source.path.stat().st_size
        chunk.position = done_bytes
        if chunk.read:
            put(chunk)
        put(Finished(dict(taxonomy.unknown - unknown_before)))
    except SourceError as exc:
        put(Failed(exc.reason, path=exc.path))
    except concepts.GlossaryError as exc:
        put(Failed(str(exc), problems=exc.problems))
    except meaning.EncoderUnavailable as exc:  # vectors are on but cannot be made: say so (PAPERSEARCH_MEANING=0)
        put(Failed(f"{exc}; switch search by meaning off with PAPERSEARCH_MEANING=0 to load without vectors"))
    except Exception:
        put(Failed(traceback.format_exc()))
    finally:
        if embedder is not None:
            embedder.close()


def check_sources(paths: list[Path], taxonomy: Taxonomy) -> list[Source]:
    """Each path as a Source (format and how to read it); fails before anything is written if one is
    unreadable or of unknown format (SourceError). A broken concept glossary (GlossaryError) stops the
    producer before its first chunk, so no document is sent either."""
    return [sniff(path, taxonomy) for path in paths]


def start(sources: list[Path] | Producer) -> Producer:
    """Start reading (paths are checked first); an already started Producer is used as it is."""
    if isinstance(sources, Producer):
        return sources
    taxonomy = Taxonomy.load()
    return Producer(check_sources(sources, taxonomy), taxonomy)


_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def fix_mmap_threshold(size: int = 128 * 1024) -> None:
    """Keep glibc's mmap threshold where it starts, so the chunks (megabytes each, of varying sizes)
    always come from and go back to the OS. By default glibc raises the threshold after the first such
    block is freed and serves the next ones from the heap, which they fragment: the loading process's
    RSS crept up by 18 MB per 250k papers (DECISIONS.md D-013).
    A no-op where there is no glibc."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, size)


class _Queue(Protocol):
    def get(self, timeout: float | None = None) -> Any: ...


class Producer:
    """`produce` in the background; `next()` hands out Chunks until it returns None (thread-safe)."""

    def __init__(self, sources: list[Source], taxonomy: Taxonomy, *, process: bool | None = None) -> None:
        self.sources = sources
        self.added = added_date.stamp()  # when this load began: the date its new papers are added on
        fix_mmap_threshold()  # before the fork: both processes keep it
        process = PRODUCER_PROCESS if process is None else process
        if process is None:  # forking is safe only while this process has no other threads
            process = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
        self._lock = threading.Lock()
        self._finished: Finished | None = None
        self._stop = threading.Event()
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._worker: multiprocessing.process.BaseProcess | threading.Thread
        if process:
            ctx = multiprocessing.get_context("fork")
            mpq = ctx.Queue(QUEUE_CHUNKS)
            self._queue: _Queue = mpq
            self._proc = self._worker = ctx.Process(target=_child,
                                                    args=(sources, taxonomy, mpq, os.getpid(), self.added),
                                                    name="indexer-producer", daemon=True)
        else:
            tq: queue.Queue = queue.Queue(QUEUE_CHUNKS)
            self._queue = tq
            put = _put_until(tq, self._stop.is_set)
            self._worker = threading.Thread(target=produce, args=(sources, taxonomy, put, self.added),
                                            name="indexer-producer", daemon=True)
        self._worker.start()
        if self._proc is not None:
            # Only the child writes. Were the parent to keep its copy of the write end, a child stopped
            # mid-chunk (closed, or killed) would leave a reader waiting for the rest of the chunk for
            # ever; without it, the reader sees the end of the pipe (DECISIONS.md D-084).
            mpq._writer.close()  # type: ignore[attr-defined]

    @property
    def total_bytes(self) -> int:
        return sum(s.path.stat().st_size for s in self.sources)

    @property
    def unknown_topics(self) -> dict[str, int]:
        return self._finished.unknown_topics if self._finished else {}

    def next(self) -> Chunk | None:
        with self._lock:
            if self._finished is not None:
                return None
            item = self._get()
            if isinstance(item, Failed):
                self._finished = Finished({})
                raise item.error()
            if isinstance(item, Finished):
                self._finished = item
                if self._proc is not None:
                    self._proc.join(5)
                return None
            return item

    def _get(self) -> Any:
        while True:
            try:
                return self._queue.get(timeout=0.5)
            except queue.Empty:
                if self._stop.is_set():
                    return Finished({})
                if not self._worker.is_alive():
                    raise self._stopped() from None
            except (EOFError, OSError):  # the process ended, maybe mid-chunk: nothing more will come
                if self._stop.is_set():
                    return Finished({})
                raise self._stopped() from None

    def _stopped(self) -> RuntimeError:
        code = ""
        if self._proc is not None:
            self._proc.join(5)
            code = f" (exit code {self._proc.exitcode})"
        return RuntimeError(f"the producer stopped without finishing{code}")

    def __enter__(self) -> Producer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop producing (after an error or interrupt); a finished producer has nothing to stop."""
        self._stop.set()
        if self._proc is not None and self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(5)


def _put_until(out: Any, stopped: Callable[[], bool]) -> Callable[[object], None]:
    """out.put, waiting while the queue is full, but giving up (quietly ending the producer) once
    stopped() says nobody will take the item any more."""
    def put(item: object) -> None:
        while not stopped():
            try:
                out.put(item, timeout=0.2)
                return
            except queue.Full:
                continue
        raise SystemExit

    return put


def _child(sources: list[Source], taxonomy: Taxonomy, out: Any, parent: int, added: str) -> None:
    try:
        produce(sources, taxonomy, _put_until(out, lambda: os.getppid() != parent), added)  # parent killed: stop
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C reaches the whole process group; the parent reports it
        out.cancel_join_thread()  # nobody reads any more: exit without handing over the rest
        return
    out.close()
    out.join_thread()  # everything handed over before the process exits
