"""Send the producer's chunks to Elasticsearch as `_bulk` requests, counting everything.

Rejected input records and per-document bulk failures both go to the rejects file (file, line, id and
the cluster's reason); nothing is dropped without a line there and a count in the summary. Documents
the cluster refuses with 429 (busy) are sent again with backoff, as the client's bulk helper does —
except when the 429 is a full disk's read-only block, which no waiting lifts: that stops the load at
once (WritesBlocked), naming the cause and the fix.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from elasticsearch import ApiError, Elasticsearch

from indexer.loading.added_dates import carry_over
from indexer.loading.prepare import Chunk, Producer
from indexer.loading.rejects import Reject, RejectsWriter
from indexer.progress import Progress

# Two requests in flight: while Elasticsearch indexes one chunk it can index the other on the second
# core, and the producer prepares more meanwhile (DECISIONS.md D-011).
BULK_THREADS = 2
MAX_RETRIES, INITIAL_BACKOFF, MAX_BACKOFF = 5, 1.0, 30.0  # for 429s, as streaming_bulk's defaults here
# Per document only what we count: status, created/updated, and the error of a failure.
_FILTER = "items.*.status,items.*.result,items.*.error"
# In the reason of the cluster_block_exception (429) of an index Elasticsearch made read-only for a full disk.
FLOOD_STAGE = "flood-stage watermark"


class WritesBlocked(RuntimeError):
    """The cluster refuses every write: a node's disk passed the flood-stage watermark."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            "Elasticsearch stopped accepting writes: a node's disk usage passed the flood-stage watermark, so it "
            f"made the indices on it read-only ({reason.strip()[:300]}). Free disk space on that node (or raise "
            "cluster.routing.allocation.disk.watermark.flood_stage); Elasticsearch lifts the block by itself once "
            "usage is below the high watermark. Then run the command again")


def _flood_stage(reason: object) -> str | None:
    text = str(reason)
    return text if FLOOD_STAGE in text else None


@dataclass
class LoadStats:
    read: int = 0
    indexed: int = 0
    created: int = 0
    updated: int = 0
    rejected: int = 0
    failed: int = 0
    seconds: float = 0.0
    embedded: int = 0  # papers the encoder read (search by meaning), vectors from the cache, encoder seconds
    reused: int = 0
    embed_seconds: float = 0.0
    unknown_topics: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.indexed / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        return (f"read {self.read}, indexed {self.indexed} ({self.created} new, {self.updated} updated), "
                f"rejected {self.rejected}, failed {self.failed}, {self.seconds:.1f}s ({self.rate:.0f} docs/s)"
                + self.vectors_summary())

    def vectors_summary(self) -> str:
        if not (self.embedded or self.reused):
            return ""
        rate = f" at {self.embedded / self.embed_seconds:.0f} papers/s" if self.embed_seconds else ""
        return f"; vectors: {self.embedded} embedded{rate}, {self.reused} from the cache"


class _Sender:
    """What each bulk thread runs: take a chunk, send it (retrying 429s), account for every document."""

    def __init__(self, client: Elasticsearch, index: str, producer: Producer, rejects: RejectsWriter,
                 stats: LoadStats, progress: Progress, dates_from: str | None = None) -> None:
        self.client, self.index, self.producer, self.dates_from = client, index, producer, dates_from
        self.rejects, self.stats, self.progress = rejects, stats, progress
        self.lock = threading.Lock()
        self.stopped = False

    def run(self) -> None:
        while not self.stopped and (chunk := self.producer.next()) is not None:
            with self.lock:
                self.stats.read += chunk.read
                if chunk.embedded + chunk.reused > self.stats.embedded + self.stats.reused:  # counts so far
                    self.stats.embedded, self.stats.reused = chunk.embedded, chunk.reused
                    self.stats.embed_seconds = chunk.embed_seconds
                self.stats.rejected += len(chunk.rejects)
                for reject in chunk.rejects:
                    self.rejects.write(reject)
            if len(chunk):
                if self.dates_from:  # papers the index already has keep the date they were added on
                    carry_over(self.client, self.dates_from, chunk, self.producer.added)
                self.send(chunk)
            with self.lock:
                vectors = {"embedded": self.stats.embedded} if self.stats.embedded else {}
                self.progress.show(chunk.position, indexed=self.stats.indexed, rejected=self.stats.rejected,
                                   failed=self.stats.failed, **vectors)

    def send(self, chunk: Chunk) -> None:
        pending = list(range(len(chunk)))
        body = bytes(chunk.body)
        for attempt in range(MAX_RETRIES + 1):
            backoff = min(MAX_BACKOFF, INITIAL_BACKOFF * 2**attempt)
            try:
                items = self.client.bulk(operations=body, index=self.index, filter_path=_FILTER)["items"]
            except ApiError as exc:
                if exc.status_code == 429 and _flood_stage(exc):
                    raise WritesBlocked(str(exc)) from None
                if exc.status_code == 429 and attempt < MAX_RETRIES:
                    time.sleep(backoff)
                    continue
                error = {"type": "", "reason": str(exc)}
                items = [{"index": {"status": exc.status_code, "error": error}} for _ in pending]
            retry = self.account(chunk, pending, items, retry_429=attempt < MAX_RETRIES)
            if not retry:
                return
            pending, body = retry, chunk.part(retry)
            time.sleep(backoff)

    def account(self, chunk: Chunk, pending: list[int], items: list[dict], retry_429: bool) -> list[int]:
        """Count each document's result; returns those to send again (429)."""
        retry: list[int] = []
        with self.lock:
            stats = self.stats
            for i, item in zip(pending, items, strict=True):
                op = item.get("index") or {}
                status = op.get("status", 500)
                if 200 <= status < 300:
                    stats.indexed += 1
                    if op.get("result") == "created":
                        stats.created += 1
                    else:
                        stats.updated += 1
                elif status == 429 and _flood_stage(op.get("error")):
                    raise WritesBlocked(str((op.get("error") or {}).get("reason", op.get("error"))))
                elif status == 429 and retry_429:
                    retry.append(i)
                else:
                    stats.failed += 1
                    source, line, doc_id = chunk.where(i)
                    error = op.get("error") or {}
                    if not isinstance(error, dict):
                        error = {"reason": error}
                    detail = f"id {doc_id}: {error.get('type', '')} {error.get('reason', '')}".strip()
                    self.rejects.write(Reject.make(source, line, "", "indexing failed", detail=detail))
        return retry


def load(client: Elasticsearch, index: str, producer: Producer, rejects: RejectsWriter,
         progress: bool = True, dates_from: str | None = None) -> LoadStats:
    """Index every accepted paper the producer prepares into `index` (an index or a write alias); a paper
    that `dates_from` (an index or alias) already holds keeps its added date."""
    stats = LoadStats()
    started = time.monotonic()
    bar = Progress("indexing", progress, producer.total_bytes)
    sender = _Sender(client, index, producer, rejects, stats, bar, dates_from)
    try:
        with ThreadPoolExecutor(BULK_THREADS, thread_name_prefix="bulk") as pool:
            futures = [pool.submit(sender.run) for _ in range(BULK_THREADS)]
            try:
                done, _ = wait(futures, return_when=FIRST_EXCEPTION)
                for future in done:
                    future.result()  # re-raise a reader error (say a truncated gzip) at once
                for future in futures:
                    future.result()
            except BaseException:
                sender.stopped = True  # the other thread finishes its chunk and stops
                producer.close()
                raise
    finally:
        producer.close()
        bar.close()
    stats.seconds = time.monotonic() - started
    stats.unknown_topics = producer.unknown_topics
    return stats
