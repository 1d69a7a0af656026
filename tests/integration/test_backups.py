"""`papersearch-admin backup`, `backups` and `restore` on the session's node, through the real CLI.

Each test is a site of its own (a fresh alias and query-log base) with its own repository, all of which are
deleted afterwards. What needs a node whose disk is lost, or a repository folder to damage, is in
test_backup_disaster.py, on a node of its own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from backup_support import admin_json, forget_repository, log_entries, papers
from indexer_support import ADMIN_CLI, admin_env, admin_here, cluster_state, run_admin
from support import ROOT, SAMPLE, build_alias, gunicorn, synthetic, visit

from indexer import operations, versions
from indexer.backups import backup, restore
from indexer.backups import repository as repos
from indexer.backups.repository import BackupError, ensure
from indexer.build_lock import BuildLock
from papersearch import index_definition

SEARCHES = {"graph neural networks": 2, "大语言模型": 2, "diffusion": 1}
CLICKS = [1, 2, 1, 3, 1]
QUERIES = ["language models", "大语言模型", "diffusion", "graph", "reinforcement learning"]
pytestmark = pytest.mark.usefixtures("cli_local_dir")


@pytest.fixture
def site(cluster, alias: str, query_log_base: str) -> Iterator[dict[str, str]]:
    """The environment of a site whose repository is removed afterwards."""
    env = {"PAPERSEARCH_QUERY_LOG_INDEX": query_log_base}
    yield env
    repo = ensure(cluster.client("indexer"), cluster.settings(alias))
    local = Path(repo.path) if repo.path and Path(repo.path).is_relative_to(ROOT) else None
    forget_repository(cluster.client("admin"), repo.name, local)


def ids_of(base: str, q: str) -> list[str]:
    r = requests.get(f"{base}/api/search", params={"q": q, "size": 50}, timeout=30)
    assert r.status_code == 200, r.text
    return [h["id"] for h in r.json()["hits"]]


def test_a_restore_beside_the_live_site_brings_everything_back_and_every_search_is_answered(
        cluster, alias, query_log_base, site, tmp_path):
    es = cluster.client("admin")
    build_alias(cluster, alias, [SAMPLE, synthetic(tmp_path / "more.jsonl", 100)])
    with gunicorn(cluster, alias, tmp_path / "gunicorn.log", workers=2, PAPERSEARCH_QUERY_LOG="on",
                  PAPERSEARCH_QUERY_LOG_INDEX=query_log_base) as (_, base):
        before_ids = {q: ids_of(base, q) for q in QUERIES}
        assert visit(base, SEARCHES, CLICKS) == len(CLICKS)
        entries = len(QUERIES) + sum(SEARCHES.values()) + len(CLICKS)  # the API's searches are logged too
        deadline = time.monotonic() + 60
        while len(log_entries(es, query_log_base)) < entries:  # the writer sends every 2 s
            assert time.monotonic() < deadline, log_entries(es, query_log_base)
            time.sleep(0.5)
        before_papers, before_log = papers(es, alias), log_entries(es, query_log_base)
        assert len(before_log) == entries
        live = versions.live_index(es, alias)

        made = run_admin(cluster, alias, "backup", "--no-progress", "--note", "before the mishap", **site)
        assert made.returncode == 0, made.stdout + made.stderr
        assert f"live {live} ({len(before_papers)} papers)" in made.stdout
        assert f"query log 1 days, {entries} entries" in made.stdout
        (listed,) = admin_json(run_admin(cluster, alias, "backups", "--json", **site))["backups"]
        assert listed["state"] == "SUCCESS" and listed["size_bytes"] > 0
        assert listed["holds"]["live"] == live and listed["holds"]["note"] == "before the mishap"
        assert listed["holds"]["versions"] == {live: len(before_papers)}

        # The mishap: papers deleted from the live version, entries from the query log.
        assert len(operations.delete(cluster.client("indexer"), alias, sorted(before_papers)[:25])[0]) == 25
        gone = sorted(before_log)[:4]
        es.bulk(operations=[{"delete": {"_index": before_log[i][0], "_id": i}} for i in gone], refresh=True)

        answers: Counter[int] = Counter()
        stop = threading.Event()

        def search_loop() -> None:
            with requests.Session() as http:
                while not stop.is_set():
                    for q in QUERIES:
                        answers[http.get(f"{base}/api/search", params={"q": q}, timeout=30).status_code] += 1

        loop = threading.Thread(target=search_loop)
        loop.start()
        try:
            restored = run_admin(cluster, alias, "restore", "--yes", "--no-progress", "--json", **site)
        finally:
            stop.set()
            loop.join(60)
        report = admin_json(restored)
        after_ids = {q: ids_of(base, q) for q in QUERIES}

    assert set(answers) == {200} and answers[200] >= len(QUERIES), answers  # no search failed, none went down
    new_live = versions.live_index(es, alias)
    assert report["live"] == new_live != live and report["previous"] == live
    assert report["versions"] == {live: new_live}
    assert papers(es, alias) == before_papers  # every paper, with the date it was added
    assert after_ids == before_ids
    assert report["query_log_days_merged"] and report["query_log_entries_added"] == len(gone)
    assert report["query_log_entries_present"] == len(before_log) - len(gone)
    now = log_entries(es, query_log_base)
    assert {i: now[i] for i in before_log} == before_log  # every entry back, under its own id…
    original = Counter((event, qid) for _, event, qid in before_log.values())
    again = Counter((event, qid) for _, event, qid in now.values() if (event, qid) in original)
    assert again == original  # …and none twice (the restore loop's own searches have new query ids)
    assert not es.indices.get(index="papersearch-querylog-restoring_*", allow_no_indices=True)
    meta = es.indices.get_mapping(index=new_live)[new_live]["mappings"]["_meta"]
    assert meta["restored_from"] == {"snapshot": listed["snapshot"], "index": live} and meta["complete"]


def test_a_backup_during_a_reindex_holds_only_finished_versions_and_retention_keeps_the_newest(
        cluster, alias, site):
    es = cluster.client("indexer")
    build_alias(cluster, alias, [SAMPLE])
    live = versions.live_index(es, alias)
    # A reindex under way: the lock held, its version created and half loaded, not complete.
    with BuildLock(es, alias):
        building = versions.create(es, alias, index_definition.choose_profile(es, "auto"))
        es.index(index=building, document={"title": "half-built"}, refresh=True)
        made = run_admin(cluster, alias, "backup", "--no-progress", "--json", **site)
    report = admin_json(made)
    assert report["versions"] == {live: 40} and report["live"] == live
    snapshot = cluster.client("admin").snapshot.get(repository=f"{alias}_backups", snapshot=report["snapshot"])
    (taken,) = snapshot["snapshots"]
    assert building not in taken["indices"] and live in taken["indices"]
    assert f"{alias}_locks" not in taken["indices"]

    # Retention: of the site's snapshots older than --keep, all but the newest --keep-at-least go.
    newer = backup.take(es, cluster.settings(alias), progress=False)
    time.sleep(1.1)
    assert backup.apply_retention(es, cluster.settings(alias), timedelta(seconds=1), keep_at_least=1) == [
        report["snapshot"]]
    assert [b.name for b in repos.snapshots(es, newer.repository)] == [newer.name]


def test_restore_refuses_another_sites_backup_and_one_taken_by_hand(cluster, alias, site, admin):
    other = f"{alias}x"
    try:
        build_alias(cluster, other, [SAMPLE])
        made = backup.take(cluster.client("indexer"), cluster.settings(other), progress=False)
        build_alias(cluster, alias, [SAMPLE])
        live = versions.live_index(admin, alias)
        shared = {**site, "PAPERSEARCH_BACKUP_REPOSITORY": f"{other}_backups"}  # one repository for both sites
        admin.snapshot.create(repository=f"{other}_backups", snapshot="by-hand", indices=live,
                              wait_for_completion=True)

        named = run_admin(cluster, alias, "restore", "--yes", made.name, **shared)
        assert named.returncode == 1
        assert f"snapshot {made.name!r} is a backup of site {other!r}, not of {alias!r}" in named.stderr
        assert f"--alias {other} restores that site" in named.stderr
        settings = cluster.settings(alias, PAPERSEARCH_BACKUP_REPOSITORY=f"{other}_backups")
        with pytest.raises(BackupError, match=rf"no complete backup of site '{alias}' .*backups of {other}"):
            restore.restore(cluster.client("indexer"), settings, progress=False)
        with pytest.raises(BackupError, match="'by-hand' was not taken by papersearch-admin backup"):
            restore.restore(cluster.client("indexer"), settings, "by-hand", progress=False)
        assert versions.live_index(admin, alias) == live
        assert [v.name for v in versions.versions(admin, alias)] == [live]  # nothing restored beside it
    finally:
        forget_repository(admin, f"{other}_backups")
        names = list(admin.indices.get(index=f"{other}*", allow_no_indices=True, expand_wildcards="all"))
        if names:
            admin.indices.delete(index=",".join(names))


def test_an_interrupted_backup_leaves_no_snapshot_and_restore_takes_the_last_whole_one(
        cluster, alias, site, admin, tmp_path):
    indexer, settings = cluster.client("indexer"), cluster.settings(alias)
    build_alias(cluster, alias, [SAMPLE])
    first = backup.take(indexer, settings, progress=False)
    build_alias(cluster, alias, [synthetic(tmp_path / "new.jsonl", 400)])  # new files: nothing to reuse
    # Slow the repository down, so the next snapshot is surely still running when the signal comes.
    repo = first.repository
    admin.snapshot.create_repository(name=repo.name, repository={"type": "fs", "settings": {
        "location": repo.location, "max_snapshot_bytes_per_sec": "20kb"}})
    # SIGTERM: what cron and systemd send; Ctrl-C's KeyboardInterrupt takes the same path from there.
    proc = subprocess.Popen([ADMIN_CLI, "backup"], env=admin_env(cluster, alias, **site), cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    seen = []
    while not seen or " started: " not in seen[-1]:  # the line comes once the snapshot has started
        seen.append(proc.stderr.readline())
        assert seen[-1], "".join(seen) + proc.stderr.read()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out + err
    assert "interrupted; the unfinished snapshot" in err and "was removed" in err, err
    assert [(b.name, b.state) for b in repos.snapshots(indexer, repo)] == [(first.name, "SUCCESS")]
    restored = restore.restore(indexer, settings, progress=False)
    assert restored.plan.snapshot.name == first.name and restored.papers == {restored.plan.live: 40}


def test_a_repository_outside_path_repo_is_refused_clearly(cluster, alias, site):
    refused = run_admin(cluster, alias, "backup", "--no-progress", **site,
                        PAPERSEARCH_BACKUP_LOCATION="/nowhere/backups")
    assert refused.returncode == 1
    assert f"cannot register the snapshot repository {alias}_backups at '/nowhere/backups'" in refused.stderr
    assert "path.repo" in refused.stderr and "Traceback" not in refused.stderr


def test_a_dry_run_of_restore_changes_nothing_and_says_what_the_restore_then_does(
        cluster, alias, query_log_base, site, admin, monkeypatch, capfd):
    build_alias(cluster, alias, [SAMPLE])
    live = versions.live_index(admin, alias)
    made = backup.take(cluster.client("indexer"), cluster.settings(alias, **site), progress=False)

    def state() -> tuple[dict, list, dict]:
        snaps = admin.snapshot.get(repository=made.repository.name, snapshot="_all")["snapshots"]
        return (cluster_state(admin, f"{alias}*", f"{query_log_base}*"),
                [(s["snapshot"], s["state"]) for s in snaps], admin.snapshot.get_repository())

    def dry(*args: str) -> tuple[int, str]:
        before = state()
        done = admin_here(monkeypatch, capfd, cluster, alias, "restore", "--dry-run", *args, **site)
        assert state() == before, done.stdout + done.stderr  # the cluster as it was
        return done.returncode, done.stdout + done.stderr

    def real(*args: str) -> subprocess.CompletedProcess:
        return admin_here(monkeypatch, capfd, cluster, alias, "restore", "--yes", "--no-progress", *args, **site)

    unknown, refused = dry("nosuch"), real("nosuch")
    assert unknown == (refused.returncode, refused.stderr) and unknown[0] == 1  # the same error, nothing changed
    assert f"no snapshot 'nosuch' in {alias}_backups" in unknown[1]

    code, said = dry()  # no --yes: it asks nothing
    assert code == 0 and said.startswith(f"would restore {made.name} from {made.repository.describe()}\n")
    assert f"  {live} as a new version (named now: " in said and ": 40 papers at the backup  (live)" in said
    assert f"would point alias {alias} → " in said and f"(was {live})" in said
    code, said = dry("--json")
    plan = json.loads(said)
    assert code == 0 and plan["dry_run"] and plan["snapshot"] == made.name and plan["previous"] == live

    restored = admin_json(real("--json"))
    assert {k: restored[k] for k in plan if k not in ("dry_run", "versions", "live")} == {
        k: plan[k] for k in plan if k not in ("dry_run", "versions", "live")}
    assert list(restored["versions"]) == list(plan["versions"]) == [live]  # new names, taken when it ran
    assert restored["live"] == versions.live_index(admin, alias) == restored["versions"][live] != live
