"""The indexer, end to end, while builds run: searches across the alias flip, a killed reindex, the build lock
between builds (its TTL and its heartbeat), and flat memory on large inputs. `papersearch-admin` runs as a
subprocess against the real node, behind a test alias; the large inputs are synthetic files generated here.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
import time
from pathlib import Path

import paused_admin
import psutil
import pytest
from indexer_support import SEEDS, admin_command, admin_env, alias_indices, count, live, lock_doc, reindex, run_admin
from support import ROOT, build_alias, synthetic, wait_for

from indexer import versions
from indexer.build_lock import DEFAULT_TTL, BuildLock, LockBusy

LOCK_BUSY = "another build holds the lock"

pytestmark = pytest.mark.usefixtures("cli_local_dir")  # the CLI's scratch .local (tests/integration/conftest.py)


def start_admin(cluster, alias: str, *args: object, paused: bool = False, **env: str) -> subprocess.Popen:
    """`paused`: the build stops itself right after its first chunk is written (tests/integration/paused_admin.py)."""
    return subprocess.Popen(paused_admin.command(args) if paused else admin_command(args),
                            env=admin_env(cluster, alias, **env), cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("synthetic")
    return {n: synthetic(folder / f"papers-{n}.jsonl", n) for n in (20_000, 100_000)}


# --- the live alias under change ----------------------------------------------------------------------------------


class SearchLoop(threading.Thread):
    """Searches the alias as the webapp does, as fast as it can, recording which index answered."""

    def __init__(self, cluster, alias: str) -> None:
        super().__init__(daemon=True)
        self.es = cluster.client("web")
        self.alias = alias
        self.stop = threading.Event()
        self.answers: list[tuple[int, frozenset[str]]] = []
        self.failures: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                found = self.es.search(index=self.alias, query={"match": {"abstract": "models"}}, size=10)
                hits = found["hits"]
                self.answers.append((hits["total"]["value"], frozenset(h["_index"] for h in hits["hits"])))
            except Exception as exc:  # every kind of failure counts
                self.failures.append(repr(exc))


def test_reindex_while_searching_flips_once_without_failures(cluster, alias: str) -> None:
    build_alias(cluster, alias, SEEDS)
    es = cluster.client("admin")
    old = live(es, alias)
    loop = SearchLoop(cluster, alias)
    loop.start()
    try:
        wait_for(lambda: len(loop.answers) >= 20 or loop.failures, 60, "searches before the reindex")
        reindex(cluster, alias, *SEEDS)
        new = live(es, alias)
        wait_for(lambda: sum(indices == {new} for _, indices in loop.answers) >= 20 or loop.failures, 60,
                 "searches after the flip")
    finally:
        loop.stop.set()
        loop.join(30)
    assert loop.failures == []
    assert new and new != old
    assert all(total > 0 and len(indices) == 1 for total, indices in loop.answers)
    order = [next(iter(indices)) for _, indices in loop.answers]
    flips = [name for i, name in enumerate(order) if i == 0 or name != order[i - 1]]
    assert flips == [old, new]


def test_a_killed_reindex_keeps_the_alias_and_the_next_one_takes_over_at_once(cluster, alias: str,
                                                                             big_files: dict[int, Path]) -> None:
    build_alias(cluster, alias, SEEDS)
    es = cluster.client("admin")
    old = live(es, alias)
    # Held right after its first chunk is written, so the kill comes in the middle of the build.
    proc = start_admin(cluster, alias, "reindex", "--no-progress", big_files[20_000], paused=True)
    try:
        helpers = paused_admin.wait_paused(proc).children(recursive=True)  # the producer process
        [leftover] = [v.name for v in versions.versions(es, alias) if v.name != old]
        written = es.indices.stats(index=leftover, metric="indexing")["_all"]["primaries"]["indexing"]["index_total"]
        assert written > 0, "the paused build wrote nothing"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        proc.stderr.close()
    # Nothing of the killed run keeps running: its producer notices and ends.
    wait_for(lambda: not any(h.is_running() and h.status() != psutil.STATUS_ZOMBIE for h in helpers), 30,
             "the killed run's producer to end")

    # Searches stay on the old version; the half-built one is marked incomplete; the lock is left behind.
    assert live(es, alias) == old
    assert count(cluster.client("web"), alias) == 40
    state = {v.name: v for v in versions.versions(es, alias)}
    assert state[leftover].complete is False and state[leftover].live is False
    held = lock_doc(es, alias)
    assert held is not None and held["pid"] == proc.pid

    # The holder ran here and its process is gone: the next build takes the lock at once (default ttl, 120 s).
    started = time.monotonic()
    result = reindex(cluster, alias, *SEEDS)
    assert time.monotonic() - started < DEFAULT_TTL  # a ceiling: it did not wait the ttl out
    assert f"pid {held['pid']} on this host" in result.stderr and "taking it over now" in result.stderr
    new = live(es, alias)
    assert new not in (old, leftover)
    assert count(es, alias) == 40
    assert leftover in result.stdout  # "pruned old versions: …"
    assert leftover not in alias_indices(es, alias)
    assert old in alias_indices(es, alias)  # still kept for a rollback
    assert lock_doc(es, alias) is None


def test_a_lock_from_another_host_waits_for_its_ttl(cluster, alias: str) -> None:
    """Another machine's pid says nothing here: its lock is taken over only once its heartbeat is stale."""
    build_alias(cluster, alias, [SEEDS[0]])
    es = cluster.client("admin")
    with BuildLock(cluster.client("indexer"), alias):
        pass  # creates the lock index
    body = {"owner": "elsewhere:1:1", "heartbeat": time.time(), "host_id": "another-boot/1", "pid": 999_999_999,
            "taken_ns": 1, "started": "2026-12-01T00:00:00+00:00"}
    es.index(index=f"{alias}_locks", id="build", document=body, refresh=True)
    refused = reindex(cluster, alias, *SEEDS, expect=1)
    assert LOCK_BUSY in refused.stderr and "taking it over" not in refused.stderr
    ttl = 2.0
    wait_for(lambda: time.time() - body["heartbeat"] > ttl + 0.5, 30, "the lock to go stale")
    reindex(cluster, alias, *SEEDS, PAPERSEARCH_LOCK_TTL=str(ttl))
    assert count(es, alias) == 40 and lock_doc(es, alias) is None


def test_second_reindex_is_refused_while_one_runs(cluster, alias: str) -> None:
    build_alias(cluster, alias, [SEEDS[0]])
    es = cluster.client("admin")
    before, live_before = alias_indices(es, alias), live(es, alias)
    with BuildLock(cluster.client("indexer"), alias):
        result = reindex(cluster, alias, *SEEDS, expect=1)
        assert LOCK_BUSY in result.stderr
        assert "try again when it has finished" in result.stderr
        assert alias_indices(es, alias) == before
        assert live(es, alias) == live_before
        for command in (("rollback", "--yes"), ("prune", "--yes")):
            other = run_admin(cluster, alias, *command)
            assert other.returncode == 1 and LOCK_BUSY in other.stderr, command
    reindex(cluster, alias, *SEEDS)
    assert count(es, alias) == 40


# --- memory ---------------------------------------------------------------------------------------------------------


def peak_rss(cluster, alias: str, source: Path) -> int:
    """Peak RSS of the admin process and its children (the producer) added up."""
    proc = start_admin(cluster, alias, "reindex", "--no-progress", source)
    peak = 0
    try:
        watched = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                rss = watched.memory_info().rss
                for child in watched.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        rss += child.memory_info().rss
                peak = max(peak, rss)
            except psutil.NoSuchProcess:
                break
            time.sleep(0.2)
        proc.wait(300)
        stderr = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        proc.stderr.close()
    assert proc.returncode == 0, stderr
    return peak


def test_large_input_loads_with_flat_memory(cluster, alias: str, big_files: dict[int, Path]) -> None:
    es = cluster.client("admin")
    small = peak_rss(cluster, alias, big_files[20_000])
    assert count(es, alias) == 20_000
    large = peak_rss(cluster, alias, big_files[100_000])
    assert count(es, alias) == 100_000
    assert es.search(index=alias, query={"ids": {"values": ["syn0099999"]}})["hits"]["total"]["value"] == 1
    # Five times the input, (nearly) the same memory: nothing scales with the number of records.
    assert small > 0
    assert large <= small * 1.3, f"peak RSS {small / 2**20:.0f} MiB for 20k records, {large / 2**20:.0f} MiB for 100k"


def test_lock_heartbeat_keeps_a_slow_build_fresh(cluster, alias: str) -> None:
    """A build that makes no progress for longer than the TTL (a long final refresh) still holds its
    lock: the heartbeat runs in the background, not only while documents load."""
    ttl = 2.0
    es = cluster.client("admin")
    with BuildLock(cluster.client("indexer"), alias, ttl=ttl):
        taken = time.time()
        # Twice the ttl without a document loaded: the heartbeat went on beating all along.
        wait_for(lambda: lock_doc(es, alias)["heartbeat"] > taken + 2 * ttl, 60, "a heartbeat after twice the ttl")
        with pytest.raises(LockBusy, match="another build holds the lock"):
            BuildLock(cluster.client("indexer"), alias, ttl=ttl).acquire()
    # Released: the next build gets it at once.
    with BuildLock(cluster.client("indexer"), alias, ttl=ttl):
        pass
