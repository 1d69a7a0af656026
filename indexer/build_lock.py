"""One full build per alias at a time, cluster-wide, surviving nothing but a heartbeat.

The lock is a document in `<alias>_locks`, created with op_type=create (so only one run wins) and
refreshed by a background heartbeat while the build runs. Every read of it is a realtime GET by id,
so no write waits for an index refresh. A run that was killed stops beating; after `ttl`
seconds its lock counts as stale and the next run takes it over (compare-and-swap on seq_no).
The ttl defaults to PAPERSEARCH_LOCK_TTL (seconds) or 120.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from datetime import UTC, datetime

from elasticsearch import ConflictError, Elasticsearch, NotFoundError

DEFAULT_TTL = 120.0
TTL_ENV = "PAPERSEARCH_LOCK_TTL"


class LockBusy(RuntimeError):
    pass


class BuildLock:
    def __init__(self, client: Elasticsearch, alias: str, ttl: float | None = None) -> None:
        self.client = client
        self.index = f"{alias}_locks"
        self.ttl = ttl if ttl is not None else float(os.environ.get(TTL_ENV) or DEFAULT_TTL)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{time.time_ns()}"
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None

    def _body(self) -> dict:
        return {"owner": self.owner, "heartbeat": time.time(),
                "started": datetime.now(UTC).isoformat(timespec="seconds")}

    def acquire(self) -> None:
        if not self.client.indices.exists(index=self.index):
            try:
                self.client.indices.create(
                    index=self.index, settings={"number_of_shards": 1, "auto_expand_replicas": "0-1"},
                    mappings={"dynamic": False, "properties": {}},
                )
            except Exception:
                if not self.client.indices.exists(index=self.index):  # lost a creation race: fine
                    raise
        try:
            self.client.index(index=self.index, id="build", document=self._body(), op_type="create")
        except ConflictError:
            current = self.client.get(index=self.index, id="build")
            held = current["_source"]
            age = time.time() - float(held.get("heartbeat", 0))
            if age < self.ttl:
                raise LockBusy(
                    f"another build holds the lock on {self.index} (owner {held.get('owner')}, started "
                    f"{held.get('started')}, last heartbeat {age:.0f}s ago); try again when it has finished"
                ) from None
            try:  # stale: the holder was killed. Take over only if nobody else did meanwhile.
                self.client.index(index=self.index, id="build", document=self._body(),
                                  if_seq_no=current["_seq_no"], if_primary_term=current["_primary_term"])
            except ConflictError:
                raise LockBusy("another build took over a stale lock at the same moment") from None
        self._beater = threading.Thread(target=self._beat, name="build-lock-heartbeat", daemon=True)
        self._beater.start()

    def _beat(self) -> None:
        """Refresh the heartbeat several times per ttl until released, from a background thread, so
        that long steps without progress (the final refresh of a big index) never look stale."""
        while not self._stop.wait(self.ttl / 4):
            try:
                self.client.update(index=self.index, id="build", doc={"heartbeat": time.time()})
            except Exception:  # a missed beat is retried; a dead cluster fails the build itself
                continue

    def release(self) -> None:
        self._stop.set()
        if self._beater is not None:
            self._beater.join()
        try:
            held = self.client.get(index=self.index, id="build")
            if held["_source"].get("owner") == self.owner:
                self.client.delete(index=self.index, id="build", if_seq_no=held["_seq_no"],
                                   if_primary_term=held["_primary_term"])
        except (NotFoundError, ConflictError):
            pass

    def __enter__(self) -> BuildLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
