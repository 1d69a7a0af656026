"""`papersearch-admin backup`: one snapshot of the site — its complete versions, which one is live, the query log.

A version still being built (a reindex running) is not complete and so not in the snapshot; a version pruned
while the snapshot runs is not deleted until it is done (indexer/versions.py). The snapshot runs in the
cluster; this command follows it with a progress bar, and when it is interrupted (Ctrl-C, SIGTERM) it aborts
the snapshot rather than leave it running unattended. Retention (`--keep 30d`) deletes the site's older
snapshots afterwards, never the newest `keep_at_least` complete ones: the distribution has no snapshot
lifecycle management (DECISIONS.md D-125).
"""

from __future__ import annotations

import json
import socket
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from elasticsearch import Elasticsearch

from indexer import versions
from indexer.backups import repository as repos
from indexer.backups.repository import BackupError, Repository, SiteMeta
from indexer.progress import Progress
from indexer.querylog.report import log_indices
from papersearch.settings import Settings

POLL = 0.5  # seconds between looks at a running snapshot
FINISHED = {"SUCCESS", "FAILED", "PARTIAL", "INCOMPATIBLE"}  # states of a snapshot that is over


@dataclass
class BackupReport:
    name: str
    repository: Repository
    meta: SiteMeta
    seconds: float
    total_bytes: int
    added_bytes: int
    deleted: list[str] = field(default_factory=list)  # older snapshots removed by retention


def snapshot_name(alias: str, now: datetime | None = None) -> str:
    when = now or datetime.now(UTC)
    return f"{alias}-backup-{when:%Y%m%d-%H%M%S}-{when.microsecond // 1000:03d}"  # two in one second differ


def _begun_log_days(client: Elasticsearch, settings: Settings) -> list[str]:
    """The query log's days up to today: those made ahead for the webapp are empty (DECISIONS.md D-188), and a
    restore would only merge them into the ones the cluster has."""
    today = datetime.now(UTC).date()
    return [name for name, day in log_indices(client, settings.query_log_index).items() if day <= today]


def _site_meta(client: Elasticsearch, settings: Settings, note: str) -> SiteMeta:
    alias = settings.alias
    complete = [v for v in versions.versions(client, alias) if v.complete]
    live = next((v.name for v in complete if v.live), None)
    if live is None:
        raise BackupError(f"alias {alias!r} points at no complete version: there is nothing to back up")
    days = _begun_log_days(client, settings)
    docs = 0
    if days:
        docs = client.count(index=",".join(days))["count"]
    meta = SiteMeta(site=alias, query_log=settings.query_log_index, live=live,
                    versions={v.name: v.docs for v in complete}, query_log_days=len(days), query_log_docs=docs,
                    note=note, host=socket.gethostname())
    size = len(json.dumps(meta.model_dump()).encode())
    if size >= repos.METADATA_LIMIT:
        raise BackupError(f"the snapshot's description would take {size} bytes, Elasticsearch allows fewer than "
                          f"{repos.METADATA_LIMIT}: shorten --note (or keep fewer versions)")
    return meta


def _follow(client: Elasticsearch, repo: Repository, name: str, bar: Progress) -> repos.Backup:
    """Until the snapshot is over (whichever way), showing bytes and shards done; the snapshot then."""
    while True:
        found = client.snapshot.status(repository=repo.name, snapshot=name)["snapshots"]
        if found:
            snap = found[0]
            stats, shards = snap["stats"], snap["shards_stats"]
            done = stats.get("processed", stats["total"])  # a finished snapshot reports no "processed"
            bar.show(done["size_in_bytes"], stats["total"]["size_in_bytes"],
                     shards=f"{shards['done']}/{shards['total']}")
            if snap["state"] in FINISHED:  # its shards are; the snapshot is over once it is written down
                over = [b for b in repos.snapshots(client, repo) if b.name == name and b.state != "IN_PROGRESS"]
                if over:
                    return over[0]
        time.sleep(POLL)


def take(client: Elasticsearch, settings: Settings, note: str = "", progress: bool = True) -> BackupReport:
    """One snapshot of the site into its repository (registered first if need be)."""
    repo = repos.ensure(client, settings)
    meta = _site_meta(client, settings, note)
    name = snapshot_name(settings.alias)
    indices = [*meta.versions, *_begun_log_days(client, settings)]
    started = time.monotonic()
    bar = Progress("backup", progress)
    try:
        client.snapshot.create(repository=repo.name, snapshot=name, indices=",".join(indices),
                               include_global_state=False, partial=False, metadata=meta.model_dump(),
                               wait_for_completion=False)
        if progress:
            print(f"\rsnapshot {name} started: {len(indices)} indices into {repo.describe()}", file=sys.stderr,
                  flush=True)
        done = _follow(client, repo, name, bar)
    except BaseException as exc:
        bar.close()
        # Interrupted, or the cluster went away: an unattended snapshot would finish or fail unseen.
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"lost the snapshot's progress ({exc})"
        try:
            repos.delete(client, repo, [name])
        except Exception as failed:
            raise BackupError(f"{why}; the unfinished snapshot {name} could not be removed ({failed}): "
                              "`papersearch-admin backups` shows it, restore never picks it") from None
        raise BackupError(f"{why}; the unfinished snapshot {name} was removed") from None
    bar.close()
    if done.state != "SUCCESS":
        repos.delete(client, repo, [name])
        raise BackupError(f"the snapshot {name} ended {done.state} ({'; '.join(done.failures) or 'no reason given'}); "
                          "it was removed")
    total, added = repos.sizes(client, repo, [name]).get(name, (0, 0))
    return BackupReport(name, repo, meta, time.monotonic() - started, total, added)


def expired(backups: list[repos.Backup], alias: str, keep: timedelta, keep_at_least: int,
            now: datetime | None = None) -> list[str]:
    """The site's snapshots older than `keep`, except its newest `keep_at_least` complete ones."""
    cutoff = (now or datetime.now(UTC)) - keep
    mine = [b for b in backups if b.of(alias)]
    protected = {b.name for b in [b for b in mine if b.state == "SUCCESS"][-keep_at_least:]} if keep_at_least else set()
    return [b.name for b in mine if b.start < cutoff and b.name not in protected]


def apply_retention(client: Elasticsearch, settings: Settings, keep: timedelta, keep_at_least: int) -> list[str]:
    repo = repos.ensure(client, settings)
    doomed = expired(repos.snapshots(client, repo), settings.alias, keep, keep_at_least)
    repos.delete(client, repo, doomed)
    return doomed
