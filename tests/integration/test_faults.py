"""The faults a one-server deployment meets first, on the project's own local node (started if the session runs
on another cluster): a full disk during a reindex, a frozen node under a search loop through gunicorn, and the
node restarting during a reindex (mid-request, and between two requests).

Every fault lands at a point the test controls, whatever the machine's speed: a build is held right after its
first chunk is written (tests/integration/paused_admin.py) while the fault is put in place, and time limits are
ceilings that only catch a hang (DECISIONS.md D-130).

Each test leaves the node as it found it — running, answering, no watermark override, no index blocked — even
when it fails (finally blocks), so the tests after it are not affected. Marked `destructive`, so they run
after every other test (tests/conftest.py): they leave the node cold, as tests/integration/test_node_restart.py
does.
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
from faults_support import blocked, building, paused_build, run_admin, wait_out, warm_up
from support import SAMPLE, Cluster, build_alias, delete_alias_indices, gunicorn, synthetic, wait_for

from indexer import versions
from papersearch import credentials
from provisioning.localnode.node import LocalNode
from webapp import create_app
from webapp.routes.errors import RETRY_AFTER_UNAVAILABLE

pytestmark = pytest.mark.destructive

PAPERS = 30_000  # papers per build: all of them load after the paused restart; the other faults stop the build
# A free-space watermark no disk meets: the node is over the flood stage at once. The ClusterInfo refresh
# behind the disk monitor runs at most every 10 s (its minimum), so the block lands within seconds.
INTERVAL = "cluster.info.update.interval"
FLOOD = {"cluster.routing.allocation.disk.threshold_enabled": True, INTERVAL: "10s",
         "cluster.routing.allocation.disk.watermark.low": "99999tb",
         "cluster.routing.allocation.disk.watermark.high": "99998tb",
         "cluster.routing.allocation.disk.watermark.flood_stage": "99997tb"}
# A ceiling on a build that the block must end at its next request (well under a second here); the same block
# retried as "busy" cost ~30 s per chunk, minutes for the whole file.
AT_ONCE = 60
FREEZE = 10  # seconds the node stays frozen: a long GC pause, a stalled VM


@pytest.fixture(scope="module")
def node(cluster) -> LocalNode:
    node = LocalNode()
    if cluster.kind != "local node":
        node.start()  # the session runs on another cluster; these faults are the project's own node's
    return node


@pytest.fixture(scope="module")
def local(node: LocalNode) -> Iterator[Cluster]:
    creds = credentials.load()
    local = Cluster(node.url(), (credentials.ELASTIC, creds[credentials.ELASTIC]),
                    (credentials.INDEXER, creds[credentials.INDEXER]), (credentials.WEB, creds[credentials.WEB]),
                    "local node")
    # A run killed inside the full-disk test leaves its watermarks in the cluster's persistent settings, and
    # every later write on this node is refused: take them back before the first test. The disks are looked at
    # every 10 s (the least Elasticsearch takes) from here on: a new interval counts from the next look (up to
    # 30 s away), so the full-disk test comes last, after the restarts, and waits 10 s, not 30, for each block.
    admin = local.client("admin")
    admin.cluster.put_settings(persistent=dict.fromkeys(FLOOD) | {INTERVAL: FLOOD[INTERVAL]})
    yield local
    admin.cluster.put_settings(persistent={INTERVAL: None})


@pytest.fixture
def old_alias(local: Cluster) -> Iterator[str]:
    """A fresh alias holding the sample (its live version is what every fault must leave alone)."""
    name = f"paperstest_fault_{uuid.uuid4().hex[:8]}"
    build_alias(local, name, [SAMPLE])
    yield name
    delete_alias_indices(local.client("admin"), name)


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthetic(tmp_path_factory.mktemp("faults") / "papers.jsonl", PAPERS, prefix="fault")


@dataclass
class Answer:
    started: float
    ended: float
    status: int | None  # None: no answer at all (connection failed or the client gave up)
    retry_after: str | None = None


def succeeding(answers: list[Answer], since: float, streak: int) -> Answer | None:
    """The first of the last `streak` answers when all of them started after `since` and succeeded."""
    last = answers[-streak:]
    return last[0] if len(last) == streak and all(a.started > since and a.status == 200 for a in last) else None


def test_a_frozen_node_answers_503_with_retry_after_and_searches_recover(node, local, old_alias, tmp_path):
    """SIGSTOP the node for FREEZE seconds (a GC pause, a stalled VM) under a search loop through gunicorn."""
    answers: list[Answer] = []
    stop = threading.Event()
    queries = ["q=learning", "q=graph+neural", "q=大语言模型", "q=diffusion&size=25", "q=attention&sort=year"]
    warm_up(local, old_alias)  # a fresh alias's first searches may exceed the webapp's timeout on a loaded machine
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
            try:
                wait_for(lambda: len(answers) >= 2 * len(threads), 60, "searches before the freeze")
                os.kill(pid, signal.SIGSTOP)
                frozen = time.monotonic()
                time.sleep(FREEZE)  # the fault itself: this long the node answers nothing
            finally:
                os.kill(pid, signal.SIGCONT)
                thawed = time.monotonic()
            # Searches recover: three in a row per search loop succeed after the thaw.
            first = wait_for(lambda: succeeding(answers, thawed, 3 * len(threads)), 60,
                             "searches to succeed again after the thaw")
        finally:
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
    # While frozen every search gives up within its time budget (webapp.REQUEST_TIMEOUT, 2 s: the answers
    # took 2.0-2.2 s here) and says when to try again; none waits for the thaw.
    assert len(during) >= 4 and {a.status for a in during} == {503}
    assert {a.retry_after for a in during} == {str(RETRY_AFTER_UNAVAILABLE)}
    slowest = max(a.ended - a.started for a in answers)
    assert slowest < FREEZE, f"a search waited {slowest:.1f} s for the frozen node"
    recovered = next(a for a in answers if a.started > thawed and a.status == 200)
    print(f"frozen {FREEZE} s: {len(during)} answers 503, slowest {slowest:.2f} s, first success "
          f"{recovered.ended - thawed:.2f} s after SIGCONT, {first.ended - thawed:.2f} s to a run of successes")


def test_a_node_restart_during_a_reindex_never_leaves_a_partial_index_live(node, local, old_alias, papers,
                                                                            tmp_path):
    es = local.client("admin")
    old = versions.live_index(es, old_alias)
    with paused_build(local, old_alias, tmp_path, papers) as (proc, build):
        assert building(es, old_alias, old), "the paused build's first chunk is not in a new version"
        build.resume()  # held until now: the build is writing when the node is told to stop
        t0 = time.monotonic()
        try:
            assert node.stop() is True
            t1 = time.monotonic()
        finally:
            node.start()  # a restart: the node comes back while the build still runs, or has just failed
        t2 = time.monotonic()
        # The indexer waits out a slow request (up to 120 s, retried): a node that hung while shutting down
        # must not fail the test, only an unclean outcome or a build that stops moving.
        out, err = wait_out(proc, es, old_alias, old, 600)
    print(f"stop {t1 - t0:.1f} s, start {t2 - t1:.1f} s, the build ended {time.monotonic() - t2:.1f} s later "
          f"(exit {proc.returncode})")
    es = local.client("admin")
    es.cluster.health(index=old_alias, wait_for_status="yellow", timeout="60s")
    live = versions.live_index(es, old_alias)
    if proc.returncode == 0:  # its retries bridged the restart: every paper behind the alias
        assert live != old and es.count(index=old_alias)["count"] == PAPERS
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


def test_a_build_paused_over_a_node_restart_reconnects_and_completes(node, local, old_alias, papers, tmp_path):
    """A node restarts between two of the build's requests (here the build is paused over it, as a busy or
    swapped-out admin host would be): the kept connections are gone, the next requests reconnect, retried
    if need be, and the build ends with every paper behind the alias. The restart test above mostly meets
    the other case (a request refused mid-restart fails the build cleanly)."""
    es = local.client("admin")
    old = versions.live_index(es, old_alias)
    with paused_build(local, old_alias, tmp_path, papers) as (proc, build):
        assert building(es, old_alias, old), "the paused build's first chunk is not in a new version"
        paused = [build, *build.children(recursive=True)]  # the producer too, as on a suspended host
        for p in paused[1:]:
            p.suspend()
        t0 = time.monotonic()
        try:
            assert node.stop() is True
            t1 = time.monotonic()
        finally:
            node.start()
            for p in paused:
                p.resume()
        t2 = time.monotonic()
        out, err = wait_out(proc, es, old_alias, old, 300)
    print(f"stop {t1 - t0:.1f} s, start {t2 - t1:.1f} s, the build ended {time.monotonic() - t2:.1f} s later")
    assert proc.returncode == 0, out + err
    assert f"read {PAPERS}, indexed {PAPERS}" in out and "rejected 0, failed 0" in out, out
    es = local.client("admin")
    assert versions.live_index(es, old_alias) != old and es.count(index=old_alias)["count"] == PAPERS
    assert all(v.complete for v in versions.versions(es, old_alias))
    warm_up(local, old_alias)


def test_a_full_disk_during_a_reindex_fails_it_at_once_and_searches_go_on(local, old_alias, papers, tmp_path):
    es = local.client("admin")
    old = versions.live_index(es, old_alias)
    try:
        with paused_build(local, old_alias, tmp_path, papers) as (proc, build):
            new = building(es, old_alias, old)
            assert new, "the paused build's first chunk is not in a new version"
            es.cluster.put_settings(persistent=FLOOD)
            # Elasticsearch's own disk monitor makes the indices read-only, at its next look at the disks.
            wait_for(lambda: blocked(es, new), 120, "the flood-stage block on the new version")
            build.resume()
            out, err = wait_out(proc, es, old_alias, old, AT_ONCE)
            # The next request ends the build, naming the cause and the fix; the alias stays on the old version.
            assert proc.returncode == 1, out + err
            assert "flood-stage watermark" in err and "Free disk space" in err and "alias was not changed" in err, err
            assert "Traceback" not in err
            assert versions.live_index(es, old_alias) == old
            assert not es.indices.exists(index=new), "the half-built version was kept"
            # No paper was written off as failed: the block stopped the load, it was not retried chunk by chunk.
            assert [p.read_text() for p in (tmp_path / "rejects").glob("*.jsonl")] == [""]
            # Searches go on: reads are not blocked.
            web = create_app(local.settings(old_alias), rate_limit="off").test_client()
            answer = web.get("/api/search?q=learning")
            assert answer.status_code == 200 and answer.get_json()["total"] > 0
    finally:
        es.cluster.put_settings(persistent=dict.fromkeys(FLOOD.keys() - {INTERVAL}))  # the module's interval stays
        # Elasticsearch lifts the blocks itself at its next look at the disks (seconds).
        wait_for(lambda: not blocked(es), 90, "the read-only blocks to be lifted")
    again = run_admin(local, old_alias, tmp_path, "reindex", "--no-progress", SAMPLE)
    assert again.returncode == 0, again.stdout + again.stderr
    assert versions.live_index(es, old_alias) not in (old, None)
    assert es.count(index=old_alias)["count"] == 40
