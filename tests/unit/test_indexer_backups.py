"""The backup commands' decisions that need no cluster: which snapshot a restore takes (and why it refuses
one), which ones retention deletes, the names, and the privileges the backup role holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from indexer import admin
from indexer.backups.backup import expired, snapshot_name
from indexer.backups.repository import Backup, BackupError, Repository, SiteMeta
from indexer.backups.restore import choose
from papersearch import credentials
from provisioning.roles import BACKUP_ROLE, READER_ROLE, ROLES_OF_USER, WRITER_ROLE, role_bodies

NOW = datetime(2026, 12, 2, 3, 30, tzinfo=UTC)
REPO = Repository("papers_backups", "fs", "papers", "/srv/snapshots/papers")


def snap(name: str, days_ago: float, site: str | None = "papers", state: str = "SUCCESS") -> Backup:
    meta = None if site is None else SiteMeta(site=site, query_log="papersearch-querylog", live=f"{site}-1",
                                              versions={f"{site}-1": 40}, query_log_days=1, query_log_docs=3)
    return Backup(name, state, NOW - timedelta(days=days_ago), 1.0, [f"{site}-1"], meta)


def test_restore_takes_the_sites_newest_complete_backup():
    found = [snap("a", 3), snap("b", 2), snap("c", 1, state="PARTIAL"), snap("d", 0.5, site="other")]
    assert choose(found, "papers", None, REPO).name == "b"


@pytest.mark.parametrize(("name", "says"), [
    ("nope", "no snapshot 'nope' in papers_backups (fs at /srv/snapshots/papers); the newest complete backup "
             "of 'papers' is b"),
    ("d", "snapshot 'd' is a backup of site 'other', not of 'papers' (--alias other restores that site)"),
    ("e", "snapshot 'e' was not taken by papersearch-admin backup"),
    ("c", "snapshot 'c' is PARTIAL, not complete: it cannot be restored"),
])
def test_restore_refuses_a_snapshot_it_must_not_take_and_says_why(name, says):
    found = [snap("a", 3), snap("b", 2), snap("c", 1, state="PARTIAL"), snap("d", 0.5, site="other"),
             snap("e", 0.2, site=None)]
    with pytest.raises(BackupError) as refused:
        choose(found, "papers", name, REPO)
    assert says in str(refused.value)


def test_restore_without_a_backup_of_the_site_names_what_the_repository_holds():
    with pytest.raises(BackupError, match=r"no complete backup of site 'papers' .*backups of lab: --alias"):
        choose([snap("x", 1, site="lab")], "papers", None, REPO)
    fresh = Repository("papers_backups", "fs", "papers", "/srv/snapshots/papers", registered_now=True)
    with pytest.raises(BackupError, match="registered just now, and empty: is that the folder"):
        choose([], "papers", None, fresh)


def test_retention_deletes_the_sites_old_snapshots_but_keeps_the_newest_complete_ones():
    found = [snap("old1", 40), snap("old2", 35), snap("failed", 33, state="FAILED"), snap("lab", 50, site="lab"),
             snap("recent", 2), snap("new", 0)]
    assert expired(found, "papers", timedelta(days=30), keep_at_least=1, now=NOW) == ["old1", "old2", "failed"]
    # Backups stopped a while ago: retention never deletes the last complete ones.
    stale = [snap("s1", 60), snap("s2", 50), snap("s3", 45), snap("s4", 40)]
    assert expired(stale, "papers", timedelta(days=30), keep_at_least=3, now=NOW) == ["s1"]
    assert expired(stale, "papers", timedelta(days=30), keep_at_least=0, now=NOW) == ["s1", "s2", "s3", "s4"]


def test_snapshot_names_sort_by_time_and_differ_within_a_second():
    first = snapshot_name("papers", NOW)
    assert first == "papers-backup-20261202-033000-000"
    assert sorted([snapshot_name("papers", NOW + timedelta(milliseconds=5)), first])[0] == first != \
        snapshot_name("papers", NOW + timedelta(milliseconds=5))


def test_the_backup_role_holds_the_snapshot_actions_and_nothing_cluster_wide_beyond_them():
    role = role_bodies(["papers*"])[BACKUP_ROLE]
    assert set(role["cluster"]) == {"monitor", "create_snapshot", "cluster:admin/repository/put",
                                    "cluster:admin/repository/verify", "cluster:admin/snapshot/delete",
                                    "cluster:admin/snapshot/restore"}
    assert not {"manage", "all", "manage_security"} & set(role["cluster"])
    log = next(e for e in role["indices"] if e["names"] == ["papersearch-querylog-*"])
    assert "create_doc" in log["privileges"] and not {"write", "index", "all"} & set(log["privileges"])
    assert ROLES_OF_USER == {credentials.INDEXER: (WRITER_ROLE, BACKUP_ROLE), credentials.WEB: (READER_ROLE,)}


def test_the_commands_parse_and_a_bad_duration_is_a_usage_error(capsys):
    args = admin._parser().parse_args(["backup", "--keep", "30d", "--note", "nightly"])
    assert (args.keep, args.keep_at_least, args.note) == (timedelta(days=30), 3, "nightly")
    assert admin._parser().parse_args(["restore", "papers-backup-1", "--yes"]).snapshot == "papers-backup-1"
    with pytest.raises(SystemExit) as usage:
        admin._parser().parse_args(["backup", "--keep", "soon"])
    assert usage.value.code == 2 and "expected a duration like 7d" in capsys.readouterr().err
