"""Failover on a real 3-node local cluster (`papersearch-node start --nodes 3`, its own instance "failover",
started in the background when the session began; see tests/conftest.py).

The tests run in order on one cluster, each leaving it as the next one needs it:
1. kill -9 the elected master, which also holds a copy of the live index (moved there if needed), while a search
   loop runs through gunicorn: no failed search, the same result set for each query throughout;
2. a full reindex while that node is down, then it restarts: green again, every copy holds the same count;
3. every request of one search, whichever page, is read from the same copy of the index; searches spread;
4. kill -9 the node holding the new version's primary in the middle of `papersearch-admin reindex` (held after
   its first chunk until the kill, tests/integration/paused_admin.py): the build completes with every paper or
   fails cleanly, the alias never points at an incomplete index, and the build lock is released (or taken
   over by the next build);
5. status names every node and the elected master, logs --node K shows node K's log, heap and certificate
   files are as promised;
6. stop and reset leave no Elasticsearch process of the cluster behind.

Marked `destructive`: run after every other test (tests/conftest.py).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import paused_admin
import pytest
import requests
from elasticsearch import Elasticsearch
from support import FAILOVER_INSTANCE, ROOT, SAMPLE, failover_env, gunicorn_server, wait_failover_start

from bench.corpus import generate
from indexer import versions
from papersearch import credentials
from papersearch.paths import local_dir
from provisioning.localnode.config import NodeConfig
from provisioning.localnode.node import LocalNode
from provisioning.localnode.process import MARKER_PROPERTY, NodeProcess
from webapp.domain import SearchParams
from webapp.services.pages.profiles import ProfileService
from webapp.services.search import SearchService

pytestmark = [pytest.mark.failover, pytest.mark.destructive]

BIN = Path(sys.executable).parent
ALIAS = "paperstest_failover"
QUERIES = ["q=language+models", "q=大语言模型", "q=diffusion", "area=Deep+Learning&size=25",
           "q=learning&sort=year", "q=neural+networks", "q=reasoning"]
MID_BUILD_PAPERS = 5000  # the build is held after its first 1,000 (paused_admin.py), resumed as the node dies


@dataclass
class Failover:
    node: LocalNode
    admin: Elasticsearch
    down: list[int] = field(default_factory=list)  # node numbers a test killed and left down

    @property
    def urls(self) -> list[str]:
        return [p.url(self.node.cfg.host) for p in self.node.processes()]

    def procs(self) -> dict[str, NodeProcess]:
        return {p.name: p for p in self.node.processes()}

    def master(self) -> str:
        return self.admin.cat.master(format="json")[0]["node"]

    def copies(self, index: str) -> dict[str, dict]:
        """node name -> shard row (prirep, state, docs) of the (single-shard) index."""
        rows = self.admin.cat.shards(index=index, format="json", h="prirep,state,node,docs")
        return {r["node"]: r for r in rows if r["node"]}

    def kill(self, name: str) -> NodeProcess:
        proc = self.procs()[name]
        pid = proc.pid()
        assert pid, f"{name} is not running"
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and _state(pid) != "Z":
            assert time.monotonic() < deadline, f"{name} (pid {pid}) still runs 30 s after SIGKILL"
            time.sleep(0.05)
        self.down.append(proc.number)
        return proc

    def wait_health(self, status: str, nodes: int, timeout: float = 180) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            health = self.admin.cluster.health(wait_for_status=status, wait_for_nodes=str(nodes), timeout="10s",
                                               wait_for_no_relocating_shards=True,
                                               wait_for_no_initializing_shards=True)
            if not health["timed_out"] and health["number_of_nodes"] == nodes:
                return health
            assert time.monotonic() < deadline, f"cluster not {status} with {nodes} nodes: {health}"

    def env(self, **extra: str) -> dict[str, str]:
        """The indexer's and webapp's environment: every node's URL, the dead ones included."""
        creds = credentials.load()
        return {"ES_URL": ",".join(self.urls), "PAPERSEARCH_ALIAS": ALIAS,
                "ES_USERNAME": credentials.INDEXER, "ES_PASSWORD": creds[credentials.INDEXER],
                "ES_WEB_USERNAME": credentials.WEB, "ES_WEB_PASSWORD": creds[credentials.WEB], **extra}


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "gone"


def cluster_pids(node: LocalNode) -> set[int]:
    """Every live Elasticsearch process whose config folder lies in this cluster's folders."""
    prefix = f"{MARKER_PROPERTY}{node.processes()[0].conf.parent.parent}/".encode()
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(a.startswith(prefix) for a in args) and _state(int(entry.name)) != "Z":
                found.add(int(entry.name))
    return found


def admin_cli(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "papersearch-admin"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=os.environ | env)


def node_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "papersearch-node"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=failover_env())


@pytest.fixture(scope="module")
def failover() -> Failover:
    wait_failover_start()
    node = LocalNode(NodeConfig(instance=FAILOVER_INSTANCE), nodes=3)
    node.start()  # reuses the background start (or starts it here and says why the background one failed)
    password = credentials.ensure()[credentials.ELASTIC]
    admin = Elasticsearch(node.urls(), basic_auth=(credentials.ELASTIC, password), request_timeout=30,
                          max_retries=3, retry_on_timeout=True)
    yield Failover(node, admin)
    node.reset()  # the last test checks stop and reset itself; this only cleans up after a failure


class SearchLoop:
    """Threads searching through gunicorn until stopped; every answer must be a 200 with the baseline's hits."""

    def __init__(self, base: str, baseline: dict[str, tuple[int, frozenset[str]]], threads: int = 2) -> None:
        self.base, self.baseline = base, baseline
        self.done = Counter()
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(n,), daemon=True) for n in range(threads)]

    def _run(self, offset: int) -> None:
        with requests.Session() as session:
            i = offset
            while not self._stop.is_set():
                query = QUERIES[i % len(QUERIES)]
                i += 1
                try:
                    r = session.get(f"{self.base}/api/search?{query}", timeout=10)
                    got = result_set(r.json()) if r.status_code == 200 else None
                    if got != self.baseline[query]:
                        self.failures.append(f"{query}: HTTP {r.status_code} {r.text[:200]}")
                except (requests.RequestException, ValueError) as exc:
                    self.failures.append(f"{query}: {type(exc).__name__}: {exc}")
                self.done[query] += 1
                time.sleep(0.02)  # steady traffic, not a saturation test: the two cores also run three nodes

    def searches(self) -> int:
        return sum(self.done.values())

    def run_for(self, at_least: int, timeout: float = 60) -> None:
        """Wait until `at_least` more searches have been answered."""
        target, deadline = self.searches() + at_least, time.monotonic() + timeout
        while self.searches() < target:
            assert time.monotonic() < deadline, f"the search loop stalled at {self.searches()} searches"
            time.sleep(0.05)

    def __enter__(self) -> SearchLoop:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)


def warm_baseline(base: str) -> dict[str, tuple[int, frozenset[str]]]:
    """Each query's result set with every node up; the first searches on a cold index may take longer than
    the webapp's 2 s timeout, so each query is asked until it answers (before anything is killed)."""
    deadline = time.monotonic() + 60
    baseline = {}
    for query in QUERIES:
        while (r := requests.get(f"{base}/api/search?{query}", timeout=10)).status_code != 200:
            assert time.monotonic() < deadline, f"{query}: {r.status_code} {r.text[:200]}"
            time.sleep(0.5)
        baseline[query] = result_set(r.json())
    return baseline


def result_set(data: dict) -> tuple[int, frozenset[str]]:
    # Sets, not lists: a primary and its replica may order equal scores differently (Lucene doc ids).
    return data["total"], frozenset(h["id"] for h in data["hits"])


def test_searches_survive_killing_the_master_that_holds_a_copy(failover: Failover) -> None:
    assert len(cluster_pids(failover.node)) == 3
    built = admin_cli(failover.env(), "reindex", "--no-progress", str(SAMPLE))
    assert built.returncode == 0, built.stdout + built.stderr
    live = versions.live_index(failover.admin, ALIAS)
    assert live
    replicas = failover.admin.indices.get_settings(index=live)[live]["settings"]["index"]["number_of_replicas"]
    assert replicas == "1", "default replicas on 3 data nodes: min(1, 3 - 1)"
    failover.wait_health("green", 3)

    env = failover.env(PAPERSEARCH_RATE_LIMIT="off")
    log = ROOT / "test-artifacts" / "failover-gunicorn.log"  # kept for a look after a failure
    log.parent.mkdir(exist_ok=True)
    master = failover.master()
    holder_to_move = next((n for n in failover.copies(live) if n != master), None)
    if master not in failover.copies(live):
        # One kill for two failures: the elected master also holds a copy of the live index.
        failover.admin.cluster.reroute(commands=[{"move": {"index": live, "shard": 0, "from_node": holder_to_move,
                                                           "to_node": master}}])
        failover.wait_health("green", 3)
    assert master in failover.copies(live)
    with gunicorn_server(env, log, workers=2) as (_, base):
        baseline = warm_baseline(base)
        assert all(total > 0 for total, _ in baseline.values()), baseline
        with SearchLoop(base, baseline) as loop:
            loop.run_for(100)
            failover.kill(master)
            loop.run_for(100)
            deadline = time.monotonic() + 120
            while failover.master() == master:  # a new master is elected while searches go on
                assert time.monotonic() < deadline, "no new master elected"
                time.sleep(0.5)
            new_master = failover.master()
            failover.wait_health("yellow", 2)  # the surviving copy is the primary now
            loop.run_for(200)
        final = {q: result_set(requests.get(f"{base}/api/search?{q}", timeout=10).json()) for q in QUERIES}
    print(f"\nfailover: {loop.searches()} searches, {len(loop.failures)} failed; killed master {master}, "
          f"a holder of the live index (new master {new_master})")
    problems = [line for line in log.read_text().splitlines() if "ERROR" in line or " 503 " in line]
    assert loop.failures == [], (loop.failures[:5], problems[:30])
    assert loop.searches() >= 400
    assert final == baseline


def test_reindex_with_a_node_down_then_it_rejoins(failover: Failover) -> None:
    assert len(failover.down) == 1, "the previous test leaves one node down"
    down = failover.down[0]
    health = failover.admin.cluster.health()
    assert health["number_of_nodes"] == 2
    before = versions.live_index(failover.admin, ALIAS)
    built = admin_cli(failover.env(), "reindex", "--no-progress", str(SAMPLE))
    assert built.returncode == 0, built.stdout + built.stderr
    live = versions.live_index(failover.admin, ALIAS)
    assert live and live != before
    papers = sum(1 for line in SAMPLE.read_text().splitlines() if line.strip())
    assert failover.admin.count(index=ALIAS)["count"] == papers

    started = node_cli("start", "--node", str(down))
    assert started.returncode == 0, started.stdout + started.stderr
    failover.down.remove(down)
    failover.wait_health("green", 3)
    copies = failover.copies(live)
    status = admin_cli(failover.env(), "status")
    assert status.returncode == 0, status.stderr
    assert "green (3 nodes, 3 data, 0 unassigned shards)" in status.stdout, status.stdout
    assert "shard 0 primary  STARTED" in status.stdout and "shard 0 replica  STARTED" in status.stdout
    print(f"\nreindex with node {down} down: cluster was {health['status']}; now green, copies {copies}")
    assert sorted(r["prirep"] for r in copies.values()) == ["p", "r"]
    assert all(r["state"] == "STARTED" and int(r["docs"]) == papers for r in copies.values()), copies


def queries_by_copy(failover: Failover, index: str) -> dict[str, int]:
    """node name -> query phases its copy of the (single-shard) index has run."""
    shards = failover.admin.indices.stats(index=index, level="shards", metric="search")["indices"][index]["shards"]
    nodes = {row["id"]: row["name"] for row in failover.admin.cat.nodes(format="json", h="id,name", full_id=True)}
    return {nodes[c["routing"]["node"]]: c["search"]["query_total"] for c in shards["0"]}


def test_every_page_of_a_search_is_ranked_by_the_same_copy(failover: Failover) -> None:
    """A primary and its replica may score the same paper differently (each merges and drops deleted papers on
    its own): a search paged across both could show a paper twice, or never. Every request of one search goes
    to one copy (DECISIONS.md D-231); different searches still spread over both."""
    failover.wait_health("green", 3)
    live = versions.live_index(failover.admin, ALIAS)
    web = Elasticsearch(failover.urls, basic_auth=(credentials.WEB, credentials.load()[credentials.WEB]),
                        request_timeout=30)
    service = SearchService(web, ALIAS)
    service.search(SearchParams(q="warm"))  # the live index's size and profile, looked up once a minute

    def copies_used(show: Callable[[SearchParams], object], params: SearchParams) -> set[str]:
        before = queries_by_copy(failover, live)
        for page in (1, 2, 3, 1, 2, 3):
            show(params.model_copy(update={"page": page}))
        after = queries_by_copy(failover, live)
        return {node for node, total in after.items() if total > before[node]}

    searches = [SearchParams(q=q, size=5) for q in ("language models", "大语言模型", "diffusion", "learning",
                                                    "graph neural networks", "reasoning", "retrieval", "vision")]
    used = [copies_used(service.search, params) for params in searches]
    assert all(len(nodes) == 1 for nodes in used), used
    assert len(set().union(*used)) == 2, used  # not every search on one copy
    # An author page's rounds (the look-up of the name, its papers, its profile) likewise, page after page.
    pages = ProfileService(service)
    assert len(copies_used(lambda params: pages.author("Dong Li", params), SearchParams(size=1))) == 1


def test_kill_a_node_in_the_middle_of_a_reindex(failover: Failover, tmp_path: Path) -> None:
    corpus = generate(tmp_path / "papers.jsonl", MID_BUILD_PAPERS)
    before = versions.live_index(failover.admin, ALIAS)
    # Held right after its first chunk is written (tests/integration/paused_admin.py), so the kill comes while
    # the build is loading whatever the machine's speed.
    # Without vectors: the node's death is the fault here, and the encoder would take most of the test's time.
    proc = subprocess.Popen(paused_admin.command(["reindex", "--no-progress", corpus]), cwd=ROOT,
                            env=os.environ | failover.env(PAPERSEARCH_MEANING="0"), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        build = paused_admin.wait_paused(proc)
        new, victim = _building(failover, before)
        build.resume()
        failover.kill(victim)
        out, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in out, out
    live = versions.live_index(failover.admin, ALIAS)
    print(f"\nkilled {victim} (primary of {new}) mid-build: exit {proc.returncode}\n{out.strip()}")
    if proc.returncode == 0:  # completed: every paper is in the new, complete version
        assert live == new
        assert failover.admin.count(index=ALIAS)["count"] == MID_BUILD_PAPERS
        assert failover.admin.indices.get_mapping(index=new)[new]["mappings"]["_meta"]["complete"] is True
    else:  # failed cleanly: the alias did not move, and no incomplete version is left behind
        assert live == before, out
        assert "papersearch-admin:" in out
        complete = {v.name for v in versions.versions(failover.admin, ALIAS) if v.complete}
        assert new not in complete
    _assert_lock_released_or_taken_over(failover, proc.pid)


def _building(failover: Failover, before: str | None) -> tuple[str, str]:
    """The version a paused build writes (its first chunk is in), and the node holding its primary."""
    [new] = [v.name for v in versions.versions(failover.admin, ALIAS) if v.name != before and not v.complete]
    stats = failover.admin.indices.stats(index=new, metric="indexing")["_all"]["primaries"]
    assert stats.get("indexing", {}).get("index_total", 0) > 0, f"the paused build wrote nothing to {new}"
    return new, next(n for n, r in failover.copies(new).items() if r["prirep"] == "p")


def _assert_lock_released_or_taken_over(failover: Failover, pid: int) -> None:
    lock_index = f"{ALIAS}_locks"
    held = failover.admin.options(ignore_status=404).get(index=lock_index, id="build")
    if not held.get("found"):
        return
    # Left by the build, which has ended (so nothing beats it any more): a later build takes it over.
    assert held["_source"]["pid"] == pid, held["_source"]
    taken = admin_cli(failover.env(PAPERSEARCH_LOCK_TTL="2"), "reindex", "--no-progress", str(SAMPLE))
    assert taken.returncode == 0, taken.stdout + taken.stderr


def test_status_logs_and_secrets_of_the_cluster(failover: Failover) -> None:
    status = node_cli("status")
    assert status.returncode == 0, status.stderr
    assert f"elected master: {failover.master()}" in status.stdout
    for proc in failover.node.processes():
        assert f"node {proc.number}  {proc.name}" in status.stdout
    logs = node_cli("logs", "--node", "2", "-n", "200")
    assert logs.returncode == 0 and "[papersearch-failover-2]" in logs.stdout
    heap = failover.node.cfg.heap_for(3)
    for proc in failover.node.processes():
        if proc.pid():
            assert f"-Xmx{heap}".encode() in Path(f"/proc/{proc.pid()}/cmdline").read_bytes().split(b"\0")
        node_cert = proc.conf / "certs" / "elastic-certificates.p12"
        assert stat.S_IMODE(node_cert.stat().st_mode) == 0o600
    certs = sorted((local_dir() / "certs").glob("*.p12"))
    assert [c.name for c in certs] == ["ca.p12", "node.p12"]
    for path in certs:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT).returncode == 0, path


def test_stop_and_reset_leave_no_process(failover: Failover) -> None:
    running = cluster_pids(failover.node)
    assert running == {p.pid() for p in failover.node.processes() if p.pid()}
    assert len(running) == 3 - len(failover.down)

    stopped = node_cli("stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert cluster_pids(failover.node) == set()
    status = node_cli("status")
    assert status.returncode == 3 and status.stdout.startswith("stopped"), status.stdout

    reset = node_cli("reset", "--yes")
    assert reset.returncode == 0, reset.stdout + reset.stderr
    assert cluster_pids(failover.node) == set()
    assert not failover.node.processes()[0].data.exists()
    assert not failover.node.cfg.state_file().exists()
