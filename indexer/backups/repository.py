"""The site's snapshot repository: registered on first use, read back with errors that say what is wrong.

One fs repository per site: PAPERSEARCH_BACKUP_REPOSITORY (default `<alias>_backups`) at
PAPERSEARCH_BACKUP_LOCATION (default `<alias>`, a folder under the nodes' path.repo). Every snapshot that
`papersearch-admin backup` takes carries SiteMeta, naming the site it belongs to, so that a snapshot of
another site (or one taken by hand) is never restored by mistake. See DECISIONS.md D-125.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from elasticsearch import ApiError, Elasticsearch
from pydantic import BaseModel, ValidationError

from papersearch.settings import Settings

FORMAT = 1  # of SiteMeta; a newer format is refused by an older restore
METADATA_LIMIT = 1024  # bytes: Elasticsearch refuses larger snapshot metadata


class BackupError(RuntimeError):
    """A backup or restore that cannot go on; the message says why and what to do."""


class SiteMeta(BaseModel):
    """What a snapshot holds, written into its metadata by `backup`."""

    papersearch: Literal[1] = FORMAT
    site: str  # the alias
    query_log: str  # the query log's base name
    live: str  # the version the alias pointed at
    versions: dict[str, int]  # every complete version → papers when the backup started
    query_log_days: int
    query_log_docs: int
    note: str = ""
    host: str = ""


@dataclass
class Backup:
    name: str
    state: str  # SUCCESS, IN_PROGRESS, PARTIAL, FAILED, INCOMPATIBLE
    start: datetime
    seconds: float | None
    indices: list[str]
    meta: SiteMeta | None  # None: not taken by papersearch-admin backup (or of an unknown format)
    failures: list[str] = field(default_factory=list)

    def of(self, alias: str) -> bool:
        return self.meta is not None and self.meta.site == alias


@dataclass(frozen=True)
class Repository:
    name: str
    type: str
    location: str  # as registered
    path: str | None  # the folder it resolves to on the nodes, where known
    registered_now: bool = False  # by this command: a new or rebuilt cluster

    def describe(self) -> str:
        where = self.path or self.location
        return f"{self.name} ({self.type}{' at ' + where if where else ''})"


def _reason(exc: ApiError) -> str:
    info = exc.info if isinstance(exc.info, dict) else {}
    error = info.get("error", {})
    if isinstance(error, dict):
        cause = error.get("caused_by") or {}
        return " — ".join(str(r) for r in (error.get("reason"), cause.get("reason")) if r) or str(exc)
    return str(exc)


def path_repo(client: Elasticsearch) -> list[str]:
    """The path.repo folders every node shares (empty when a node has none)."""
    nodes = client.nodes.info(metric="settings", filter_path="nodes.*.settings.path.repo").get("nodes", {})
    folders = [node.get("settings", {}).get("path", {}).get("repo") for node in nodes.values()]
    if not nodes or any(not f for f in folders):
        return []
    common = set.intersection(*({f} if isinstance(f, str) else set(f) for f in folders))
    return sorted(common)


def _resolve(location: str, roots: list[str]) -> str | None:
    if location.startswith("/"):
        return location
    return f"{roots[0].rstrip('/')}/{location}" if roots else None


def registered(client: Elasticsearch, settings: Settings) -> Repository | None:
    """The site's repository when the cluster knows it (None: a new or rebuilt cluster), registering nothing."""
    name, _ = settings.repository()
    found = client.options(ignore_status=404).snapshot.get_repository(name=name)
    if found.meta.status != 200:
        return None
    body = found[name]
    where = body.get("settings", {}).get("location", "")
    return Repository(name, body.get("type", "?"), where,
                      _resolve(where, path_repo(client)) if body.get("type") == "fs" else None)


def ensure(client: Elasticsearch, settings: Settings) -> Repository:
    """The site's repository, registered now when the cluster does not know it (a new or rebuilt cluster)."""
    if (known := registered(client, settings)) is not None:
        return known
    name, location = settings.repository()
    roots = path_repo(client)
    if not roots:
        raise BackupError(
            "no snapshot repository folder: the nodes have no common path.repo. Set path.repo on every node "
            "(papersearch-node sets it; docker-compose.yml mounts es-snapshots there), restart them, and run "
            "the command again")
    try:
        client.snapshot.create_repository(name=name, repository={"type": "fs", "settings": {"location": location}})
    except ApiError as exc:
        raise BackupError(f"cannot register the snapshot repository {name} at {location!r} (path.repo "
                          f"{', '.join(roots)}): {_reason(exc)}. Is the folder whole, and the same on every node? "
                          "(docs/operations.md \"Backups\")") from None
    return Repository(name, "fs", location, _resolve(location, roots), registered_now=True)


def _parse_meta(raw: object) -> SiteMeta | None:
    if not isinstance(raw, dict) or "papersearch" not in raw:
        return None
    try:
        return SiteMeta.model_validate(raw)
    except ValidationError:
        return None


def _when(millis: int | None) -> datetime:
    return datetime.fromtimestamp((millis or 0) / 1000, UTC)


def snapshots(client: Elasticsearch, repo: Repository) -> list[Backup]:
    """Every snapshot in the repository, oldest first; a repository that cannot be read is a BackupError."""
    try:
        found = client.snapshot.get(repository=repo.name, snapshot="_all", verbose=True)
    except ApiError as exc:
        raise BackupError(f"the snapshot repository {repo.describe()} cannot be read: {_reason(exc)}. Is the "
                          "folder there, the same on every node, and whole? (docs/operations.md \"Backups\")") from None
    out = []
    for snap in found.get("snapshots", []):
        failures = [f"{f.get('index')}[{f.get('shard_id')}]: {f.get('reason')}" for f in snap.get("failures", [])]
        end = snap.get("end_time_in_millis")
        seconds = (end - snap["start_time_in_millis"]) / 1000 if end else None
        out.append(Backup(snap["snapshot"], snap.get("state", "?"), _when(snap.get("start_time_in_millis")),
                          seconds, sorted(snap.get("indices", [])), _parse_meta(snap.get("metadata")), failures))
    return sorted(out, key=lambda b: (b.start, b.name))


def sizes(client: Elasticsearch, repo: Repository, names: list[str]) -> dict[str, tuple[int, int]]:
    """name → (bytes the snapshot refers to, bytes it added to the repository)."""
    if not names:
        return {}
    found = client.snapshot.status(repository=repo.name, snapshot=",".join(names),
                                   filter_path="snapshots.snapshot,snapshots.stats")
    return {s["snapshot"]: (s["stats"]["total"]["size_in_bytes"], s["stats"]["incremental"]["size_in_bytes"])
            for s in found.get("snapshots", [])}


def delete(client: Elasticsearch, repo: Repository, names: list[str]) -> None:
    """Delete (a running one: abort) these snapshots; one that does not exist is no error."""
    if names:
        client.options(request_timeout=600, ignore_status=404).snapshot.delete(repository=repo.name,
                                                                                snapshot=",".join(names))
