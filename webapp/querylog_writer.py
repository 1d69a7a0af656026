"""The query-log writer: a bounded in-memory buffer drained by a background thread with `_bulk`.

`submit()` is all a request ever does: put one event into the buffer, or count it as dropped when
the buffer is full. It never waits for and never fails because of Elasticsearch. The thread sends
what has accumulated every `flush_every` seconds (sooner once `batch_size` events wait), each event
into its day's index. Only days that exist: the indexer's side makes them ahead, the web user cannot
create an index (DECISIONS.md D-188). A failed write is counted as dropped, not retried: a cluster that is
down costs searches nothing and memory stays bounded.
Documents and index names come from papersearch/querylog_schema.py.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable

from elasticsearch import ApiError, Elasticsearch, TransportError

from papersearch import querylog_schema

log = logging.getLogger(__name__)

DropCallback = Callable[[int, str], None]  # (events, reason)
# Drop reasons (the `reason` label of the drop metric).
FULL, UNAVAILABLE, REJECTED, NO_DAY = "buffer_full", "unavailable", "rejected", "no_day_index"
WARN_EVERY = 60.0  # seconds between two warnings of the same kind


class QueryLogWriter:
    def __init__(self, client: Elasticsearch, base: str = querylog_schema.DEFAULT_BASE, *, capacity: int = 10_000,
                 flush_every: float = 2.0, batch_size: int = 500, on_drop: DropCallback | None = None,
                 on_written: Callable[[int], None] | None = None) -> None:
        self.client = client
        self.base = base
        self.flush_every = flush_every
        self.batch_size = batch_size
        self.on_drop = on_drop or (lambda _n, _reason: None)
        self.on_written = on_written or (lambda _n: None)
        self._buffer: queue.Queue[querylog_schema.Event] = queue.Queue(maxsize=capacity)
        self._wake = threading.Event()
        self._idle = threading.Condition()
        self._in_flight = 0
        self._closed = False
        self._warned: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self._pid = 0
        atexit.register(self.close)

    # --- the request side ---------------------------------------------------------------------------

    def submit(self, event: querylog_schema.Event) -> None:
        """Buffer one event; never blocks, never raises."""
        if self._closed:
            return
        if self._pid != os.getpid():  # first use in this process (a forked worker does not inherit threads)
            self._start()
        try:
            self._buffer.put_nowait(event)
        except queue.Full:
            self._drop(1, FULL)
            return
        if self._buffer.qsize() >= self.batch_size:
            self._wake.set()

    # --- the background side ------------------------------------------------------------------------

    def _start(self) -> None:
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="querylog-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self.flush_every)
            self._wake.clear()
            self._drain()
        self._drain()

    def _drain(self) -> None:
        while True:
            batch = self._take(self.batch_size)
            if not batch:
                return
            try:
                self._send(batch)
            except Exception:  # the writer thread must survive anything a batch does
                log.exception("query log: unexpected error; %d events dropped", len(batch))
                self._drop(len(batch), REJECTED)
            finally:
                with self._idle:
                    self._in_flight -= len(batch)
                    self._idle.notify_all()

    def _take(self, limit: int) -> list[querylog_schema.Event]:
        batch: list[querylog_schema.Event] = []
        with self._idle:
            while len(batch) < limit:
                try:
                    batch.append(self._buffer.get_nowait())
                except queue.Empty:
                    break
            self._in_flight += len(batch)
        return batch

    def _send(self, batch: list[querylog_schema.Event]) -> None:
        by_index: dict[str, list[querylog_schema.Event]] = defaultdict(list)
        for event in batch:
            by_index[querylog_schema.daily_index(self.base, event.index_time())].append(event)
        for index, events in by_index.items():
            docs = [querylog_schema.document(event) for event in events]
            try:
                operations: list[dict] = []
                for event, doc in zip(events, docs, strict=True):
                    doc_id = event.document_id()
                    operations += ({"create": {"_index": index} | ({"_id": doc_id} if doc_id else {})}, doc)
                response = self.client.bulk(operations=operations)
            except (ApiError, TransportError) as exc:
                self._warn(UNAVAILABLE, "query log: cannot write to %s (%s); %d events dropped", index, exc, len(docs))
                self._drop(len(docs), UNAVAILABLE)
                continue
            # 409: an event with its own id stored already (a click sent twice): not a failure, not written again.
            failed = [item["create"] for item in response["items"]
                      if item["create"].get("error") and item["create"].get("status") != 409]
            duplicates = sum(1 for item in response["items"] if item["create"].get("status") == 409)
            missing = [f for f in failed if _no_such_day(f["error"])]
            if missing:
                self._warn(NO_DAY, "query log: %s does not exist and the webapp may not create it (the indexer "
                           "makes the days ahead: papersearch-admin querylog prepare); %d events dropped",
                           index, len(missing))
                self._drop(len(missing), NO_DAY)
                failed = [f for f in failed if not _no_such_day(f["error"])]
            if failed:
                self._warn(REJECTED, "query log: %d of %d events refused by %s, first: %s",
                           len(failed), len(docs), index, failed[0]["error"])
                self._drop(len(failed), REJECTED)
            self.on_written(len(docs) - len(failed) - len(missing) - duplicates)

    # --- shared -------------------------------------------------------------------------------------

    def _drop(self, count: int, reason: str) -> None:
        try:
            self.on_drop(count, reason)
        except Exception:  # a broken metrics callback must not break a search
            log.exception("query log: drop callback failed")

    def _warn(self, kind: str, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._warned.get(kind, -WARN_EVERY) >= WARN_EVERY:
            self._warned[kind] = now
            log.warning(message, *args)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wake the thread and wait until everything buffered so far is written or dropped (tests, exit)."""
        deadline = time.monotonic() + timeout
        self._wake.set()
        with self._idle:
            while self._buffer.qsize() or self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(min(remaining, 0.05))
                self._wake.set()
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Send what is buffered (up to `timeout`), then stop; later events are ignored."""
        if self._closed:
            return
        if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
            self.flush(timeout)
        self._closed = True
        self._wake.set()
        atexit.unregister(self.close)


def _no_such_day(error: dict) -> bool:
    """A bulk item refused because its index does not exist: the web user may not create it (403 on
    indices:admin/auto_create), or auto-creation is off (index_not_found_exception)."""
    return error.get("type") == "index_not_found_exception" or "indices:admin/auto_create" in error.get("reason", "")
