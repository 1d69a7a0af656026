"""The indexer, end to end: the commands that change or show an alias's versions and its papers (rollback, add,
delete, status, prune), run as `papersearch-admin` subprocesses against the real node, behind a test alias."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from indexer_support import (
    SEEDS,
    admin_here,
    alias_indices,
    all_docs,
    cluster_state,
    count,
    expected_page,
    live,
    reindex,
    run_admin,
)
from support import build_alias, write_jsonl

from indexer import versions
from indexer.build_lock import BuildLock
from papersearch import index_definition

pytestmark = pytest.mark.usefixtures("cli_local_dir")  # the CLI's scratch .local (tests/integration/conftest.py)


# --- versions and papers ------------------------------------------------------------------------------------------


def test_rollback_restores_the_previous_index(cluster, alias: str) -> None:
    es = cluster.client("admin")
    reindex(cluster, alias, SEEDS[0])
    first = live(es, alias)
    first_ids = set(all_docs(es, alias))
    reindex(cluster, alias, *SEEDS)
    second = live(es, alias)
    assert second != first and count(es, alias) == 40

    unconfirmed = run_admin(cluster, alias, "rollback")  # no --yes and no terminal: refuses
    assert unconfirmed.returncode == 1 and "--yes" in unconfirmed.stderr
    assert live(es, alias) == second

    result = run_admin(cluster, alias, "rollback", "--yes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"alias {alias} → {first} (was {second})" in result.stdout
    assert live(es, alias) == first
    assert set(all_docs(cluster.client("web"), alias)) == first_ids
    assert second in alias_indices(es, alias)

    again = run_admin(cluster, alias, "rollback", "--yes")
    assert again.returncode == 1 and "cannot roll back" in again.stderr
    assert live(es, alias) == first


def test_add_upserts(cluster, alias: str, tmp_path: Path) -> None:
    es = cluster.client("admin")
    reindex(cluster, alias, *SEEDS)
    before, live_before = all_docs(es, alias), live(es, alias)

    same = run_admin(cluster, alias, "add", "--no-progress", *SEEDS)
    assert same.returncode == 0, same.stdout + same.stderr
    assert f"indexed {len(before)} (0 new, {len(before)} updated)" in same.stdout
    assert all_docs(es, alias) == before

    tag = uuid.uuid4().hex[:8]
    extra = write_jsonl(tmp_path / "extra.jsonl", [
        {"title": f"Added paper {tag} one", "abstract": "An added paper."},
        {"title": f"Added paper {tag} two", "abstract": "Another added paper.", "id": f"added-{tag}"},
    ])
    added = run_admin(cluster, alias, "add", "--no-progress", extra)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "indexed 2 (2 new, 0 updated)" in added.stdout
    assert count(es, alias) == len(before) + 2
    hits = cluster.client("web").search(index=alias, query={"match": {"title": tag}})["hits"]["hits"]
    assert len(hits) == 2 and f"added-{tag}" in {h["_id"] for h in hits}
    assert live(es, alias) == live_before  # add writes into the live index, never swaps

    again = run_admin(cluster, alias, "add", "--no-progress", extra)
    assert "indexed 2 (0 new, 2 updated)" in again.stdout
    assert count(es, alias) == len(before) + 2


def test_delete_by_id(cluster, alias: str) -> None:
    es = cluster.client("admin")
    reindex(cluster, alias, *SEEDS)
    ids = sorted(all_docs(es, alias))
    victim, survivor = ids[0], ids[1]

    unconfirmed = run_admin(cluster, alias, "delete", victim)
    assert unconfirmed.returncode == 1
    assert count(es, alias) == len(ids)

    result = run_admin(cluster, alias, "delete", victim, "--yes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "deleted 1; not found 0" in result.stdout
    assert count(es, alias) == len(ids) - 1
    assert not es.exists(index=alias, id=victim)
    assert es.exists(index=alias, id=survivor)

    missing = run_admin(cluster, alias, "delete", victim, "--yes")
    assert missing.returncode == 1 and f"not found 1: {victim}" in missing.stdout
    assert count(es, alias) == len(ids) - 1


def test_status_json(cluster, alias: str) -> None:
    es = cluster.client("admin")
    reindex(cluster, alias, SEEDS[0])
    first = live(es, alias)
    reindex(cluster, alias, *SEEDS)
    second = live(es, alias)

    result = run_admin(cluster, alias, "status", "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["alias"] == alias
    assert info["live"] == second
    assert info["build_lock"] is None
    assert info["cluster"]["status"] in {"green", "yellow"}
    profile, schema = index_definition.choose_profile(es), index_definition.schema_version()
    assert info["versions"] == [
        {"name": second, "docs": 40, "complete": True, "live": True, "profile": profile, "schema": schema,
         "meaning": None},  # built without vectors (the CLI's tests run with PAPERSEARCH_MEANING=0)
        {"name": first, "docs": len(expected_page(SEEDS[0])), "complete": True, "live": False, "profile": profile,
         "schema": schema, "meaning": None},
    ]
    text = run_admin(cluster, alias, "status")
    assert f"alias {alias} → {second}" in text.stdout
    assert "no vectors" in text.stdout and "note:" not in text.stdout  # meaning is off: nothing to reindex for
    meant = run_admin(cluster, alias, "status", PAPERSEARCH_MEANING="1")
    assert f"note: {second} was built without vectors of meaning" in meant.stdout  # issue 55.2


def test_prune_removes_leftovers_and_old_versions_and_dry_runs_change_nothing(cluster, alias: str, monkeypatch,
                                                                             capfd) -> None:
    """Each dry run leaves the cluster as it was and says what the real run then does, or fails as it fails.
    (In this process where the CLI runs many times; the real prune through the installed command.)"""
    es = cluster.client("admin")
    build_alias(cluster, alias, [SEEDS[0]])
    old = live(es, alias)
    build_alias(cluster, alias, SEEDS)
    current = live(es, alias)
    leftover = versions.create(cluster.client("indexer"), alias, index_definition.choose_profile(es))  # unfinished
    victim = sorted(all_docs(es, alias))[0]

    def admin(*args: object) -> tuple[int, str]:
        done = admin_here(monkeypatch, capfd, cluster, alias, *args)
        return done.returncode, done.stdout + done.stderr

    def dry(*args: object) -> tuple[int, str]:
        before = cluster_state(es, f"{alias}*")
        said = admin(*args, "--dry-run")
        assert cluster_state(es, f"{alias}*") == before, said  # the cluster as it was
        return said

    would = f"would delete 1 from {current} (alias {alias}); not found"
    assert dry("delete", victim, "nosuch") == (1, f"{would} 1: nosuch\n")  # as the real run: exit 1
    assert dry("delete", victim) == (0, f"{would} 0\n")
    assert admin("delete", victim, "--yes") == (0, "deleted 1; not found 0\n")
    assert not es.exists(index=alias, id=victim)
    assert dry("--alias", f"{alias}x", "delete", victim) == (
        1, f"papersearch-admin: alias '{alias}x' does not exist; there are no papers to delete\n")

    assert dry("rollback") == (0, f"would point alias {alias} → {old} (was {current})\n")
    with BuildLock(cluster.client("indexer"), alias):  # a reindex under way: the real run is refused, and so is this
        refused, real = dry("prune"), admin("prune", "--yes")
    assert refused[0] == real[0] == 1 and "another build holds the lock" in refused[1]
    assert refused[1].partition("last heartbeat")[0] == real[1].partition("last heartbeat")[0]

    assert dry("prune", "--keep", "1") == (0, f"would prune 2: {leftover}, {old}\n")
    result = run_admin(cluster, alias, "prune", "--keep", "1", "--yes")
    assert (result.returncode, result.stdout) == (0, f"pruned 2: {leftover}, {old}\n"), result.stderr
    assert [v.name for v in versions.versions(es, alias)] == [current]
    assert live(es, alias) == current
    cannot = f"papersearch-admin: no complete version older than {current} is kept; cannot roll back\n"
    assert dry("rollback") == admin("rollback", "--yes") == (1, cannot)
