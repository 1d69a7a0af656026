"""The faults a one-server deployment meets first, on the project's own local node (started if the session runs
on another cluster): a full disk during a reindex, a frozen node under a search loop through gunicorn, and the
node restarting during a reindex (mid-request, and between two requests).

Each test leaves the node as it found it — running, answering, no watermark override, no index blocked — even
when it fails (finally blocks), so the tests after it are not affected. Named to run after the other
integration tests (test_zz_…): they leave the node cold, as tests/integration/test_zz_node_restart.py does.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
import requests
from faults_support import admin, blocked, building, run_admin, wait_for, wait_out, warm_up
from support import SAMPLE, Cluster, build_alias, delete_alias_indices, gunicorn, synthetic

from indexer import versions
from papersearch import credentials
from papersearch.localnode.node import LocalNode
from webapp import REQUEST_TIMEOUT, create_app
from webapp.routes.errors import RETRY_AFTER_UNAVAILABLE

BIG = 200_000  # papers: loading takes minutes here, so every fault lands in the middle of it
MID = 30_000  # papers: the build is paused at its first write, so this is what it loads after the restart
# A free-space watermark no disk meets: the node is over the flood stage at once. The ClusterInfo refresh
# behind the disk monitor runs at most every 10 s (its minimum), so the block lands within seconds.
FLOOD = {"cluster.routing.allocation.disk.threshold_enabled": True, "cluster.info.update.interval": "10s",
         "cluster.routing.allocation.disk.watermark.low": "99999tb",
         "cluster.routing.allocation.disk.watermark.high": "99998tb",
         "cluster.routing.allocation.disk.watermark.flood_stage": "99997tb"}


@pytest.fixture(scope="module")
def node(cluster) -> LocalNode:
    node = LocalNode()
    if cluster.kind != "local node":
        node.start()  # the session runs on another cluster; these faults are the project's own node's
    return node


@pytest.fixture(scope="module")
def local(node: LocalNode) -> Cluster:
    creds = credentials.load()
    return Cluster(node.url(), (credentials.ELASTIC, creds[credentials.ELASTIC]),
                   (credentials.INDEXER, creds[credentials.INDEXER]), (credentials.WEB, creds[credentials.WEB]),
                   "local node")


@pytest.fixture
def old_alias(local: Cluster) -> Iterator[str]:
    """A fresh alias holding the sample (its live version is what every fault must leave alone)."""
    name = f"paperstest_fault_{uuid.uuid4().hex[:8]}"
    build_alias(local, name, [SAMPLE])
    yield name
    delete_alias_indices(local.client("admin"), name)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic(tmp_path_factory.mktemp("faults") / "big.jsonl", BIG, prefix="fault")


@pytest.fixture(scope="module")
def mid_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic(tmp_path_factory.mktemp("faults") / "mid.jsonl", MID, prefix="fault")



def test_a_full_disk_during_a_reindex_fails_it_at_once_and_searches_go_on(local, old_alias, big_file, tmp_path):
    es = local.client("admin")
    old = versions.live_index(es, old_alias)
    proc = admin(local, old_alias, tmp_path, "reindex", "--no-progress", big_file)
    try:
        new = wait_for(lambda: building(es, old_alias, old) or proc.poll() is not None, 120, "the build to write")
        assert proc.poll() is None, "the build ended before the disk filled"
        es.cluster.put_settings(persistent=FLOOD)
        block_seen = None
        while proc.poll() is None:
            if block_seen is None and blocked(es, str(new)):
                block_seen = time.monotonic()
            time.sleep(0.1)
            assert block_seen is None or time.monotonic() - block_seen < 30, "the build went on after the block"
        ended = time.monotonic()
        out, err = proc.communicate(timeout=30)
        # Within seconds of the block, naming the cause and the fix; the alias stays on the old version.
        assert proc.returncode == 1, out + err
        assert "flood-stage watermark" in err and "Free disk space" in err and "alias was not changed" in err, err
        assert block_seen is None or ended - block_seen < 10, f"{ended - block_seen:.1f} s after the block"
        assert "Traceback" not in err
        assert versions.live_index(es, old_alias) == old
        # Searches go on: reads are not blocked.
        web = create_app(local.settings(old_alias), rate_limit="off").test_client()
        answer = web.get("/api/search?q=learning")
        assert answer.status_code == 200 and answer.get_json()["total"] > 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        es.cluster.put_settings(persistent=dict.fromkeys(FLOOD))
        # Elasticsearch lifts the blocks itself at its next look at the disks (seconds).
        wait_for(lambda: not blocked(es), 90, "the read-only blocks to be lifted")
    again = run_admin(local, old_alias, tmp_path, "reindex", "--no-progress", SAMPLE)
    assert again.returncode == 0, again.stdout + again.stderr
    assert versions.live_index(es, old_alias) not in (old, None)
    assert es.count(index=old_alias)["count"] == 40


@dataclass
class Answer:
    started: float
    ended: float
    status: int | None  # None: no answer at all (connection failed or the client gave up)
    retry_after: str | None = None


def test_a_frozen_node_answers_503_with_retry_after_and_searches_recover(node, local, old_alias, tmp_path):
    """SIGSTOP the node for 10 s (a GC pause, a stalled VM) under a search loop through gunicorn."""
    answers: list[Answer] = []
    stop = threading.Event()
    queries = ["q=learning", "q=graph+neural", "q=大语言模型", "q=diffusion&size=25", "q=attention&sort=year"]
    with gunicorn(local, old_alias, tmp_path / "gunicorn.log", workers=2) as (server, base):
        workers = {p.pid for p in psutil.Process(server.pid).children()}

        def loop(n: int) -> None:
            with requests.Session() as http:
                while not stop.is_set():
                    started = time.monotonic()
                    try:
                        r = http.get(f"{base}/api/search?{queries[n % len(queries)]}", timeout=20)
                        answers.append(Answer(started, time.monotonic(), r.status_code, r.headers.get("Retry-After")))
                    except requests.RequestException:
                        answers.append(Answer(started, time.monotonic(), None))
                    n += 1

        threads = [threading.Thread(target=loop, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        pid = node.pid()
        assert pid
        try:
            time.sleep(2)
            os.kill(pid, signal.SIGSTOP)
            frozen = time.monotonic()
            time.sleep(10)
        finally:
            os.kill(pid, signal.SIGCONT)
            thawed = time.monotonic()
        time.sleep(5)
        stop.set()
        for t in threads:
            t.join(30)
        after = {p.pid for p in psutil.Process(server.pid).children()}
        log = (tmp_path / "gunicorn.log").read_text()

    assert all(a.status is not None for a in answers), "a request got no answer"
    assert after == workers and "WORKER TIMEOUT" not in log, "a worker hung or was killed"
    assert "Traceback" not in log, log[-3000:]
    before = [a for a in answers if a.ended < frozen]
    during = [a for a in answers if frozen + 0.1 < a.started and a.ended < thawed]
    assert before and all(a.status == 200 for a in before)
    assert len(during) >= 4 and {a.status for a in during} == {503}
    assert {a.retry_after for a in during} == {str(RETRY_AFTER_UNAVAILABLE)}
    slowest = max(a.ended - a.started for a in answers)
    # One search asks the cluster twice at most before it answers (the index's analysis profile, once a minute,
    # then the search), each within the webapp's Elasticsearch timeout.
    assert slowest < 2 * REQUEST_TIMEOUT + 1, f"slowest answer {slowest:.1f} s"
    recovered = [a for a in answers if a.started > thawed and a.status == 200]
    assert recovered and recovered[0].ended - thawed < 2, "searches did not succeed within 2 s of SIGCONT"
    assert all(a.status == 200 for a in answers if a.started > thawed + 2)
    print(f"frozen 10 s: {len(during)} answers 503, slowest {slowest:.2f} s, first success "
          f"{recovered[0].ended - thawed:.2f} s after SIGCONT")


def test_a_node_restart_during_a_reindex_never_leaves_a_partial_index_live(node, local, old_alias, big_file,
                                                                            tmp_path):
    es = local.client("admin")
    old = versions.live_index(es, old_alias)
    proc = admin(local, old_alias, tmp_path, "reindex", "--no-progress", big_file)
    try:
        wait_for(lambda: building(es, old_alias, old) or proc.poll() is not None, 120, "the build to write")
        assert proc.poll() is None, "the build ended before the restart"
        t0 = time.monotonic()
        assert node.stop() is True
        t1 = time.monotonic()
    finally:
        node.start()  # a restart: the node comes back while the build still runs, or has just failed
    t2 = time.monotonic()
    # The indexer waits out a slow request (up to 120 s, retried): a node that hung while shutting down
    # must not fail the test, only an unclean outcome or a build that stops moving.
    out, err = wait_out(proc, es, old_alias, old, 600)
    print(f"stop {t1 - t0:.1f} s, start {t2 - t1:.1f} s, the build ended {time.monotonic() - t2:.1f} s later")
    es = local.client("admin")
    es.cluster.health(index=old_alias, wait_for_status="yellow", timeout="60s")
    live = versions.live_index(es, old_alias)
    if proc.returncode == 0:  # its retries bridged the restart: every paper behind the alias
        assert live != old and es.count(index=old_alias)["count"] == BIG
    else:  # it failed cleanly: said why, and the alias still on the complete old version
        assert proc.returncode == 1, out + err
        assert re.search(r"papersearch-admin: (cannot reach Elasticsearch|Elasticsearch refused the request)", err), err
        assert "Traceback" not in err
        assert live == old and es.count(index=old_alias)["count"] == 40
    assert all(v.complete for v in versions.versions(es, old_alias) if v.live)
    again = run_admin(local, old_alias, tmp_path, "reindex", "--no-progress", SAMPLE)
    assert again.returncode == 0, again.stdout + again.stderr
    assert es.count(index=old_alias)["count"] == 40
    assert all(v.complete for v in versions.versions(es, old_alias))  # the half-built one was pruned
    warm_up(local, old_alias)


def test_a_build_paused_over_a_node_restart_reconnects_and_completes(node, local, old_alias, mid_file, tmp_path):
    """A node restarts between two of the build's requests (here the build is paused over it, as a busy or
    swapped-out admin host would be): the kept connections are gone, the next requests reconnect, retried
    if need be, and the build ends with every paper behind the alias. The restart test above mostly meets
    the other case (a request refused mid-restart fails the build cleanly)."""
    es = local.client("admin")
    old = versions.live_index(es, old_alias)
    proc = admin(local, old_alias, tmp_path, "reindex", "--no-progress", mid_file)
    paused = []
    try:
        wait_for(lambda: building(es, old_alias, old) or proc.poll() is not None, 120, "the build to write")
        assert proc.poll() is None, "the build ended before the restart"
        paused = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
        for p in paused:
            p.suspend()
        assert node.stop() is True
    finally:
        node.start()
        for p in paused:
            p.resume()
    out, err = wait_out(proc, es, old_alias, old, 300)
    assert proc.returncode == 0, out + err
    assert f"read {MID}, indexed {MID}" in out and "rejected 0, failed 0" in out, out
    es = local.client("admin")
    assert versions.live_index(es, old_alias) != old and es.count(index=old_alias)["count"] == MID
    assert all(v.complete for v in versions.versions(es, old_alias))
    warm_up(local, old_alias)
