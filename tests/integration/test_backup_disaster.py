"""A node's disk is lost, and the site comes back from its backup; then a damaged and a missing repository.

On a local node of its own (instance "disaster", started in the background when the session began; see
tests/conftest.py), because losing the disk is honestly done only to a whole node: `papersearch-node reset`
wipes its data — every index, the alias, the cluster state with the repository's registration — and keeps
only the snapshot folder (path.repo), as a backup on another disk would be kept. The tests run in order on
that node. Marked `destructive`: run after every other test (tests/conftest.py), before the failover tests.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from backup_support import admin_json, log_entries, papers
from indexer_support import run_admin
from support import DISASTER_INSTANCE, SAMPLE, Cluster, build_alias, gunicorn, synthetic, visit, wait_started

from indexer import versions
from indexer.querylog.report import build
from papersearch import credentials
from papersearch.querylog_schema import DEFAULT_BASE, days_to_prepare
from provisioning.localnode.config import NodeConfig
from provisioning.localnode.node import LocalNode
from webapp.domain import SearchParams
from webapp.services.search import SearchService

pytestmark = [pytest.mark.disaster, pytest.mark.destructive, pytest.mark.usefixtures("cli_local_dir")]
ALIAS = "papers"  # the site's own names: this node holds nothing else
SEARCHES = {"graph neural networks": 2, "大语言模型": 2, "diffusion": 2}
CLICKS = [1, 2, 3, 1, 2, 1]
QUERIES = ["language models", "大语言模型", "diffusion", "graph", "sparse attention"]


def site(node: LocalNode) -> Cluster:
    creds = credentials.load()
    return Cluster(node.url(), ("elastic", creds["elastic"]), (credentials.INDEXER, creds[credentials.INDEXER]),
                   (credentials.WEB, creds[credentials.WEB]), "local node")


@pytest.fixture(scope="module")
def node() -> Iterator[LocalNode]:
    wait_started(DISASTER_INSTANCE)
    node = LocalNode(NodeConfig(instance=DISASTER_INSTANCE, heap="512m"))
    node.start()  # reuses the node started in the background (or starts it, when that failed)
    try:
        yield node
    finally:
        node.reset()
        shutil.rmtree(node.cfg.snapshots_dir(), ignore_errors=True)


def found(service: SearchService) -> dict[str, list[str]]:
    return {q: [h.id for h in service.search(SearchParams(q=q, size=20)).hits] for q in QUERIES}


def report(cluster: Cluster, now: datetime) -> dict:
    """The admin's report over the two days before `now`: one moment for both reads, so a run across midnight
    reads the same window."""
    return build(cluster.client("indexer"), DEFAULT_BASE, timedelta(days=2), now=now, source="all").model_dump(
        exclude={"since", "until"})


def test_a_lost_disk_comes_back_from_the_backup(node: LocalNode, tmp_path: Path) -> None:
    before_site = site(node)
    es = before_site.client("admin")
    first = synthetic(tmp_path / "first.jsonl", 300)
    build_alias(before_site, ALIAS, [SAMPLE, first])
    build_alias(before_site, ALIAS, [SAMPLE, first, synthetic(tmp_path / "later.jsonl", 50, prefix="later")])
    results = found(SearchService(before_site.client("web"), ALIAS))  # which also warms the new node up
    with gunicorn(before_site, ALIAS, tmp_path / "gunicorn.log", workers=2, PAPERSEARCH_QUERY_LOG="on") as (_, base):
        assert visit(base, SEARCHES, CLICKS) == len(CLICKS)
    # gunicorn has stopped: every worker has sent what its query log held.
    entries, dated = log_entries(es, DEFAULT_BASE), papers(es, ALIAS)
    assert len(entries) == sum(SEARCHES.values()) + len(CLICKS) and len(set(dated.values())) >= 2
    live, kept = versions.live_index(es, ALIAS), [v.name for v in versions.versions(es, ALIAS)]
    now = datetime.now(UTC)
    summary = report(before_site, now)
    made = run_admin(before_site, ALIAS, "backup", "--no-progress", "--note", "before the disk was lost")
    assert made.returncode == 0, made.stdout + made.stderr

    node.reset()  # the disk is lost: data, cluster state and the repository's registration; not the snapshots
    node.start()
    after_site = site(node)
    es = after_site.client("admin")
    assert not es.indices.get(index="papers*", allow_no_indices=True, expand_wildcards="all")
    assert es.snapshot.get_repository() == {}

    restored = admin_json(run_admin(after_site, ALIAS, "restore", "--no-progress", "--json"))
    assert restored["previous"] is None and restored["live"] == live == versions.live_index(es, ALIAS)
    assert [v.name for v in versions.versions(es, ALIAS)] == kept  # every version, under its own name
    assert papers(es, ALIAS) == dated  # every paper, every added date
    assert log_entries(es, DEFAULT_BASE) == entries  # every query-log entry, once
    again = report(after_site, now)
    # The restore makes the log's days from its own today on (D-188): past midnight, one more empty day.
    backed_up, held = set(summary.pop("indices")), set(again.pop("indices"))
    assert backed_up <= held and held - backed_up <= set(days_to_prepare(DEFAULT_BASE))
    assert again == summary  # the admin's report reads the same
    assert found(SearchService(after_site.client("web"), ALIAS)) == results


def largest_blob(folder: Path) -> Path:
    return max(folder.glob("indices/*/*/__*"), key=lambda p: p.stat().st_size)


def test_a_damaged_snapshot_is_refused_and_nothing_half_restored_stays(node: LocalNode) -> None:
    cluster = site(node)
    es = cluster.client("admin")
    repo = Path(admin_json(run_admin(cluster, ALIAS, "backups", "--json"))["repository"].split(" at ")[1][:-1])
    blob = largest_blob(repo)
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 0xFF
    blob.write_bytes(bytes(data))
    live, indices = versions.live_index(es, ALIAS), set(es.indices.get(index="*", expand_wildcards="all"))

    damaged = run_admin(cluster, ALIAS, "restore", "--yes", "--no-progress")
    assert damaged.returncode == 1
    assert "could not be restored (a damaged snapshot?)" in damaged.stderr and "Traceback" not in damaged.stderr
    assert versions.live_index(es, ALIAS) == live
    assert set(es.indices.get(index="*", expand_wildcards="all")) == indices  # nothing restored is left


def test_a_missing_repository_is_named_and_nothing_changes(node: LocalNode) -> None:
    cluster = site(node)
    es = cluster.client("admin")
    listed = admin_json(run_admin(cluster, ALIAS, "backups", "--json"))
    folder = Path(listed["repository"].split(" at ")[1][:-1])
    shutil.rmtree(folder)  # the backups' disk is not mounted, or was wiped
    live = versions.live_index(es, ALIAS)

    for args in (("backups",), ("restore", "--yes", "--no-progress")):
        gone = run_admin(cluster, ALIAS, *args)
        assert gone.returncode == 1
        assert f"the snapshot repository {ALIAS}_backups (fs at {folder}) cannot be read" in gone.stderr
    # A rebuilt cluster registers the folder afresh: an empty repository, said so.
    es.snapshot.delete_repository(name=f"{ALIAS}_backups")
    empty = run_admin(cluster, ALIAS, "restore", "--yes", "--no-progress")
    assert empty.returncode == 1 and "registered just now, and empty: is that the folder" in empty.stderr
    assert versions.live_index(es, ALIAS) == live
