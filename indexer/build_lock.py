"""One full build per alias at a time, cluster-wide, surviving nothing but a heartbeat.

The lock is a document in `<alias>_locks`, created with op_type=create (so only one run wins) and
refreshed by a background heartbeat while the build runs. Every read of it is a realtime GET by id,
so no write waits for an index refresh. A run that was killed stops beating; after `ttl`
seconds its lock counts as stale and the next run takes it over (compare-and-swap on seq_no).
The ttl defaults to PAPERSEARCH_LOCK_TTL (seconds, papersearch/settings.py) or 120. When the holder ran on
this very host (the same boot and process namespace) and its process is gone, there is nothing to wait for: the lock is
taken over at once, and the command says so.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from elasticsearch import ApiError, ConflictError, Elasticsearch, NotFoundError, TransportError

from papersearch.role_index_names import lock_index
from papersearch.settings import Settings, get_settings

log = logging.getLogger(__name__)

DEFAULT_TTL = Settings.model_fields["lock_ttl"].default  # PAPERSEARCH_LOCK_TTL unset


def host_id() -> str | None:
    """This boot of this machine and its process namespace: where a pid means the same process (None when
    it cannot be told, e.g. without /proc; a lock is then only ever taken over after its ttl)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        return None


def _started_ns(pid: int) -> int | None:
    """When process `pid` started (ns since the epoch), from /proc; None when unknown."""
    try:
        ticks = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19])
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return (boot * 10**9) + ticks * 10**9 // os.sysconf("SC_CLK_TCK")


def holder_is_gone(held: dict) -> int | None:
    """The pid of the lock's holder when it ran on this host and no longer runs, else None. A pid that
    exists again but started after the lock was taken (reused) is another process."""
    here = host_id()
    try:
        pid, taken_ns = int(held["pid"]), int(held["taken_ns"])
    except (KeyError, TypeError, ValueError):
        return None
    if here is None or held.get("host_id") != here or pid == os.getpid():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return pid
    except PermissionError:  # alive, another user's
        pass
    started = _started_ns(pid)
    return pid if started is not None and started > taken_ns + 10**9 else None  # 1 s: /proc's tick rounding


class LockBusy(RuntimeError):
    pass


class BuildLock:
    def __init__(self, client: Elasticsearch, alias: str, ttl: float | None = None) -> None:
        self.client = client
        self.index = lock_index(alias)
        self.ttl = ttl if ttl is not None else get_settings().lock_ttl
        self.taken_ns = time.time_ns()
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{self.taken_ns}"
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None

    def _body(self) -> dict:
        return {"owner": self.owner, "heartbeat": time.time(), "host_id": host_id(), "pid": os.getpid(),
                "taken_ns": self.taken_ns, "started": datetime.now(UTC).isoformat(timespec="seconds")}

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
            busy, gone = self._verdict(held)
            if busy is not None:
                raise busy from None
            if gone is not None:
                log.warning("build lock: the build that held it (pid %d on this host, started %s) is gone; "
                            "taking it over now", gone, held.get("started"))
            try:  # stale: the holder was killed. Take over only if nobody else did meanwhile.
                self.client.index(index=self.index, id="build", document=self._body(),
                                  if_seq_no=current["_seq_no"], if_primary_term=current["_primary_term"])
            except ConflictError:
                raise LockBusy("another build took over a stale lock at the same moment") from None
        self._beater = threading.Thread(target=self._beat, name="build-lock-heartbeat", daemon=True)
        self._beater.start()

    def _verdict(self, held: dict) -> tuple[LockBusy | None, int | None]:
        """(why a lock held like this refuses us, or None when it may be taken over; its holder's pid when that
        ran on this host and is gone)."""
        age = time.time() - float(held.get("heartbeat", 0))
        if age >= self.ttl:
            return None, None
        gone = holder_is_gone(held)
        if gone is not None:
            return None, gone
        return LockBusy(f"another build holds the lock on {self.index} (owner {held.get('owner')}, started "
                        f"{held.get('started')}, last heartbeat {age:.0f}s ago); try again when it has finished"), None

    def check(self) -> None:
        """Raise the LockBusy that acquire() would raise now, taking nothing (what a dry run asks)."""
        if not self.client.indices.exists(index=self.index):
            return
        found = self.client.options(ignore_status=404).get(index=self.index, id="build")
        busy = self._verdict(found["_source"])[0] if found.get("found") else None
        if busy is not None:
            raise busy

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
        except (ApiError, TransportError) as exc:  # the build's own error says what went wrong; keep it
            log.warning("build lock: not released (%s); the next build on this host takes it over at once, "
                        "elsewhere after %.0f s", exc, self.ttl)

    def __enter__(self) -> BuildLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
