"""Stream parsed papers into an index with the client's bulk helper, counting everything.

Rejected input records and per-document bulk failures both go to the rejects file; nothing is
dropped without a line there and a count in the summary.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from elasticsearch import Elasticsearch
from elasticsearch.helpers import streaming_bulk
from tqdm import tqdm

from indexer.models import Paper, to_document
from indexer.readers import read_records
from indexer.rejects import Reject, RejectsWriter
from papersearch.taxonomy import Taxonomy

CHUNK_DOCS = 1000
CHUNK_BYTES = 8 * 1024 * 1024  # bulk requests sized by bytes as well as by count
# Two requests in flight: while Elasticsearch indexes one chunk, the other thread parses and sends the
# next, so both cores of a small box stay busy (bench/: 27% faster than one serial stream).
BULK_THREADS = 2


@dataclass
class LoadStats:
    read: int = 0
    indexed: int = 0
    created: int = 0
    updated: int = 0
    rejected: int = 0
    failed: int = 0
    seconds: float = 0.0
    unknown_topics: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.indexed / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        return (f"read {self.read}, indexed {self.indexed} ({self.created} new, {self.updated} updated), "
                f"rejected {self.rejected}, failed {self.failed}, {self.seconds:.1f}s ({self.rate:.0f} docs/s)")


def estimate_records(paths: Iterable[Path]) -> int | None:
    """Lines in the inputs (one record per line for JSON Lines), for the progress bar's ETA."""
    total = 0
    for path in paths:
        if path.suffix == ".gz" or path.suffix == ".txt":
            return None  # compressed or listing pages: no cheap estimate, show count and rate only
        with path.open("rb") as f:
            total += sum(block.count(b"\n") for block in iter(lambda f=f: f.read(1 << 20), b""))
    return total


def paper_actions(sources: list[Path], index: str, taxonomy: Taxonomy, rejects: RejectsWriter,
                  stats: LoadStats, locations: dict[str, deque[str]]) -> Iterator[dict]:
    for path in sources:
        for record in read_records(path, taxonomy):
            stats.read += 1
            if isinstance(record, Reject):
                rejects.write(record)
                stats.rejected += 1
                continue
            assert isinstance(record, Paper)
            locations[record.id].append(record.source or path.name)
            yield {"_op_type": "index", "_index": index, "_id": record.id, "_source": to_document(record, taxonomy)}


class _SharedActions:
    """One action stream feeding several bulk threads. Whichever thread asks next does the parsing,
    under the lock that also guards the counters and the rejects file."""

    def __init__(self, actions: Iterator[dict], lock: threading.Lock) -> None:
        self._actions = actions
        self._lock = lock
        self.stopped = False

    def __iter__(self) -> _SharedActions:
        return self

    def __next__(self) -> dict:
        with self._lock:
            if self.stopped:
                raise StopIteration
            return next(self._actions)


def load(client: Elasticsearch, index: str, sources: list[Path], rejects: RejectsWriter,
         taxonomy: Taxonomy | None = None, progress: bool = True) -> LoadStats:
    """Index every accepted paper from `sources` into `index` (an index or a write alias)."""
    taxonomy = taxonomy or Taxonomy.load()
    stats = LoadStats()
    started = time.monotonic()
    locations: dict[str, deque[str]] = defaultdict(deque)
    lock = threading.Lock()
    actions = _SharedActions(paper_actions(sources, index, taxonomy, rejects, stats, locations), lock)
    bar = tqdm(total=estimate_records(sources), unit="doc", desc="indexing", disable=not progress,
               file=sys.stderr, dynamic_ncols=True, mininterval=0.5)
    pending_bar = 0

    def record(ok: bool, item: dict) -> None:
        nonlocal pending_bar
        op = item.get("index") or item.get("create") or {}
        doc_id = str(op.get("_id"))
        where = locations[doc_id].popleft() if locations.get(doc_id) else "?"
        if not locations.get(doc_id):
            locations.pop(doc_id, None)
        if ok:
            stats.indexed += 1
            if op.get("result") == "created":
                stats.created += 1
            else:
                stats.updated += 1
        else:
            stats.failed += 1
            error = op.get("error", {})
            if not isinstance(error, dict):
                error = {"reason": error}
            detail = f"id {doc_id}: {error.get('type', '')} {error.get('reason', '')}".strip()
            rejects.write(Reject.make(where, None, "", "indexing failed", detail=detail))
        pending_bar += 1
        if pending_bar >= 250:  # tqdm's per-call cost is visible at thousands of docs/s
            bar.update(pending_bar)
            bar.set_postfix(rejected=stats.rejected, failed=stats.failed, refresh=False)
            pending_bar = 0

    def consume() -> None:
        for ok, item in streaming_bulk(
            client, actions, chunk_size=CHUNK_DOCS, max_chunk_bytes=CHUNK_BYTES,
            max_retries=5, initial_backoff=1, max_backoff=30,  # 429s are retried with backoff
            raise_on_error=False, raise_on_exception=False, yield_ok=True,
        ):
            with lock:
                record(ok, item)

    with ThreadPoolExecutor(BULK_THREADS, thread_name_prefix="bulk") as pool:
        futures = [pool.submit(consume) for _ in range(BULK_THREADS)]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                future.result()  # re-raise a reader error (say a truncated gzip) at once
            for future in futures:
                future.result()
        except BaseException:
            actions.stopped = True  # the other thread finishes its chunk and stops
            raise
    bar.update(pending_bar)
    bar.close()
    stats.seconds = time.monotonic() - started
    stats.unknown_topics = dict(taxonomy.unknown)
    return stats
