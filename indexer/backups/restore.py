"""`papersearch-admin restore [SNAPSHOT]`: a backup back into the cluster, the site never down.

Into an empty cluster the versions come back under their own names. Beside a live site, where a version's
name is taken, every version of the snapshot comes back under a new version name instead (in the same order,
so rollback still goes to the older one), is checked, and the alias then moves to the restored live version
in one atomic request, as reindex does: searches see the old or the restored version, never nothing. An
existing index is only ever replaced with `overwrite` (its name then freed first: downtime when it is the
live one, but no second copy on disk). Query-log days the cluster lacks come back whole; a day it has is
restored under a temporary name and merged into it by entry id (indexer/backups/querylog_merge.py). When anything
fails, every index this run restored is deleted and the alias stays where it was. The whole restore holds
the build lock, so no reindex moves the alias meanwhile.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from elasticsearch import Elasticsearch

from indexer import operations, versions
from indexer.backups import repository as repos
from indexer.backups.querylog_merge import Merged, merge_day
from indexer.backups.repository import Backup, BackupError, Repository
from indexer.build_lock import BuildLock
from indexer.loading.loader import LoadStats
from indexer.progress import Progress
from papersearch import querylog_schema
from papersearch.settings import Settings

HEALTH_TIMEOUT = "120s"  # for restored shards to start after the restore reported success


@dataclass
class Plan:
    snapshot: Backup
    versions: dict[str, str]  # name in the snapshot → name restored under
    log_whole: list[str]  # query-log days the cluster lacks, restored under their names
    log_merge: dict[str, str]  # query-log days the cluster has → temporary name of the restored copy
    replace: list[str]  # existing indices deleted first (overwrite)

    @property
    def live(self) -> str:
        assert self.snapshot.meta is not None
        return self.versions[self.snapshot.meta.live]


@dataclass
class RestoreReport:
    plan: Plan
    repository: Repository
    previous: str | None
    papers: dict[str, int]  # restored version → papers
    merged: Merged = field(default_factory=Merged)
    seconds: float = 0.0


def choose(backups: list[Backup], alias: str, name: str | None, repo: Repository) -> Backup:
    """The named snapshot, or the site's newest complete one; a BackupError saying why not otherwise."""
    mine = [b for b in backups if b.of(alias) and b.state == "SUCCESS"]
    if name is None:
        if not mine:
            others = sorted({b.meta.site for b in backups if b.meta and b.meta.site != alias})
            hint = f" (it holds backups of {', '.join(others)}: --alias chooses the site)" if others else ""
            if not backups and repo.registered_now:
                hint = (" (registered just now, and empty: is that the folder the backups are in? "
                        "PAPERSEARCH_BACKUP_LOCATION names another)")
            raise BackupError(f"no complete backup of site {alias!r} in {repo.describe()}{hint}")
        return mine[-1]
    found = next((b for b in backups if b.name == name), None)
    newest = f"; the newest complete backup of {alias!r} is {mine[-1].name}" if mine else ""
    if found is None:
        raise BackupError(f"no snapshot {name!r} in {repo.describe()}{newest}")
    if found.meta is None:
        raise BackupError(f"snapshot {name!r} was not taken by papersearch-admin backup (it has no site description)")
    if found.meta.site != alias:
        raise BackupError(f"snapshot {name!r} is a backup of site {found.meta.site!r}, not of {alias!r} "
                          f"(--alias {found.meta.site} restores that site){newest}")
    if found.state != "SUCCESS":
        raise BackupError(f"snapshot {name!r} is {found.state}, not complete: it cannot be restored{newest}")
    return found


def plan(client: Elasticsearch, snapshot: Backup, overwrite: bool) -> Plan:
    meta = snapshot.meta
    assert meta is not None
    existing = set(client.indices.get(index=",".join(snapshot.indices), ignore_unavailable=True, allow_no_indices=True,
                                      expand_wildcards="all", filter_path="*.settings.index.uuid"))
    names = sorted(meta.versions)  # oldest first: version names are timestamps
    taken = [n for n in names if n in existing]
    if taken and not overwrite:
        fresh: list[str] = []
        for _ in names:
            name = versions.new_index_name(meta.site)
            while fresh and name <= fresh[-1]:
                name = versions.new_index_name(meta.site)
            fresh.append(name)
        targets = dict(zip(names, fresh, strict=True))
    else:
        targets = {n: n for n in names}
    token = secrets.token_hex(4)
    days = [n for n in snapshot.indices if querylog_schema.day_of_index(meta.query_log, n) is not None]
    merge = {d: f"{querylog_schema.DEFAULT_BASE}-restoring_{token}-{d}" for d in days if d in existing}
    return Plan(snapshot, targets, [d for d in days if d not in existing], merge, taken if overwrite else [])


class _Recovery:
    """Bytes recovered from the repository into the restored indices, while the restore requests run."""

    def __init__(self, client: Elasticsearch, indices: list[str], enabled: bool) -> None:
        self.client, self.indices, self.bar = client, indices, Progress("restore", enabled)

    def poll(self) -> None:
        if self.bar.bar is None:
            return
        found = self.client.indices.recovery(index=",".join(self.indices), ignore_unavailable=True,
                                             allow_no_indices=True)
        sizes = [shard["index"]["size"] for index in found.values() for shard in index.get("shards", [])]
        self.bar.show(sum(s.get("recovered_in_bytes", 0) for s in sizes),
                      sum(s.get("total_in_bytes", 0) for s in sizes))

    def close(self) -> None:
        self.bar.close()


def _restore_requests(client: Elasticsearch, repo: Repository, p: Plan, replicas: int) -> list[dict[str, Any]]:
    """The restore requests the plan needs (one rename each), as keyword arguments."""
    same = {"repository": repo.name, "snapshot": p.snapshot.name, "include_aliases": False,
            "include_global_state": False, "wait_for_completion": True}
    copies = {"index_settings": {"index.number_of_replicas": replicas}}
    kept = [n for n, t in p.versions.items() if n == t]
    out = [{**same, **copies, "indices": ",".join(kept)}] if kept else []
    out += [{**same, **copies, "indices": n, "rename_pattern": ".+", "rename_replacement": t}
            for n, t in p.versions.items() if n != t]
    if p.log_whole:
        out.append({**same, "indices": ",".join(p.log_whole)})
    if p.log_merge:
        prefix = next(iter(p.log_merge.values())).removesuffix(next(iter(p.log_merge)))
        out.append({**same, "indices": ",".join(p.log_merge), "rename_pattern": "(.+)",
                    "rename_replacement": f"{prefix}$1"})
    return out


def _run(client: Elasticsearch, requests: list[dict[str, Any]], progress: _Recovery) -> None:
    """Send the restore requests one after another in a thread; show progress meanwhile."""
    failure: list[BaseException] = []

    def work() -> None:
        try:
            for kwargs in requests:
                shards = client.options(request_timeout=24 * 3600).snapshot.restore(**kwargs)["snapshot"]["shards"]
                if shards["failed"]:
                    raise BackupError(f"{shards['failed']} of {shards['total']} shards of {kwargs['indices']} could "
                                      "not be restored (a damaged snapshot?); the cluster's log says which")
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=work, name="restore", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.5)
        progress.poll()
    if failure:
        raise failure[0]


def _check(client: Elasticsearch, p: Plan, snapshot: Backup) -> dict[str, int]:
    """Every restored version healthy, complete and answering; its paper count."""
    targets = list(p.versions.values())
    health = client.options(request_timeout=300).cluster.health(index=",".join(targets), wait_for_status="yellow",
                                                                 timeout=HEALTH_TIMEOUT)
    if health["status"] == "red" or health["timed_out"]:
        raise BackupError(f"the restored versions did not become searchable ({health['status']}, "
                          f"{health['unassigned_shards']} shards unassigned)")
    papers = {}
    for original, target in p.versions.items():
        meta = client.indices.get_mapping(index=target)[target]["mappings"].get("_meta", {})
        if not meta.get("complete"):
            raise BackupError(f"{original} in the snapshot is not a complete version")
        count = client.count(index=target)["count"]
        operations.verify(client, target, LoadStats(created=count))  # and it answers a query
        if target != original:
            client.indices.put_mapping(index=target, meta={**meta, "restored_from": {
                "snapshot": snapshot.name, "index": original}})
        papers[target] = count
    return papers


def preview(client: Elasticsearch, settings: Settings, name: str | None = None,
            overwrite: bool = False) -> tuple[Repository, Plan, str | None]:
    """What restore would do now, changing nothing (a dry run): the repository, the plan restore would carry out
    (beside a live site its new version names are taken when it runs) and the live version the alias leaves.
    Raises the BackupError or LockBusy the real run would."""
    repo = repos.registered(client, settings)
    if repo is None:
        repo_name, location = settings.repository()
        raise BackupError(f"the snapshot repository {repo_name} is not registered in this cluster (a new or rebuilt "
                          f"one); a dry run registers nothing: `papersearch-admin backups` registers it (at "
                          f"{location!r} under path.repo) and lists what it holds, then dry-run again")
    snapshot = choose(repos.snapshots(client, repo), settings.alias, name, repo)
    BuildLock(client, settings.alias).check()
    return repo, plan(client, snapshot, overwrite), versions.live_index(client, settings.alias)


def restore(client: Elasticsearch, settings: Settings, name: str | None = None, overwrite: bool = False,
            progress: bool = True) -> RestoreReport:
    started = time.monotonic()
    repo = repos.ensure(client, settings)
    snapshot = choose(repos.snapshots(client, repo), settings.alias, name, repo)
    with BuildLock(client, settings.alias):
        p = plan(client, snapshot, overwrite)
        replicas = settings.replicas if settings.replicas is not None else operations.default_replicas(client)
        if p.replace:
            client.indices.delete(index=",".join(p.replace))
        created = [*p.versions.values(), *p.log_whole, *p.log_merge.values()]
        bar = _Recovery(client, created, progress)
        try:
            _run(client, _restore_requests(client, repo, p, replicas), bar)
            bar.close()
            papers = _check(client, p, snapshot)
            merged = Merged()
            for day, temporary in p.log_merge.items():
                merged += merge_day(client, temporary, day)
        except BaseException:
            bar.close()
            # Nothing half-restored stays: the alias never moved; what this run made goes (merged entries stay,
            # they are whole and a second merge skips them).
            client.indices.delete(index=",".join(created), ignore_unavailable=True, allow_no_indices=True)
            raise
        finally:
            if p.log_merge:
                client.indices.delete(index=",".join(p.log_merge.values()), ignore_unavailable=True)
        previous = versions.swap(client, settings.alias, p.live)
    return RestoreReport(p, repo, previous, papers, merged, time.monotonic() - started)
