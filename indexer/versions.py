"""Versioned indices behind one read alias: create, finish, swap atomically, roll back, prune.

A full build writes `<alias>-<UTC timestamp>`; the alias moves only after the new index has been
verified, so a build that dies half-way leaves searches on the old index.
"""

from __future__ import annotations

import logging
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

from elasticsearch import ApiError, Elasticsearch

from papersearch import index_definition, meaning

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Version:
    name: str
    docs: int
    complete: bool
    live: bool
    profile: str | None
    schema: int = 1  # config/index.json schema_version it was built with (1: before versions recorded it)
    meaning: str | None = None  # the model of its vectors of meaning (_meta.meaning_model); None: built without


def version_pattern(alias: str) -> re.Pattern[str]:
    return re.compile(rf"^{re.escape(alias)}-\d{{8}}t\d{{12}}$")


def new_index_name(alias: str) -> str:
    return f"{alias}-{datetime.now(UTC).strftime('%Y%m%dt%H%M%S%f')}"


def create(client: Elasticsearch, alias: str, profile: index_definition.Profile, shards: int = 1,
           replicas: int = 0) -> str:
    """A new empty version tuned for bulk loading: no refresh until finish(). Replicas from the start, so
    that losing a node mid-build loses no acknowledged paper (DECISIONS.md D-041)."""
    name = new_index_name(alias)
    body = index_definition.index_body(profile, shards=shards, replicas=replicas)
    body["settings"]["refresh_interval"] = "-1"
    body["mappings"]["_meta"]["complete"] = False
    if meaning.enabled():  # the model its vectors come from: `status` and the webapp compare it with theirs
        body["mappings"]["_meta"][meaning.META_KEY] = meaning.MODEL
    client.indices.create(index=name, **body)
    return name


def finish(client: Elasticsearch, name: str, replicas: int) -> None:
    """Restore normal refresh and replicas, make everything searchable, mark the version complete.

    The three requests go out together: none depends on another, and each waits on the cluster."""
    def settle() -> None:
        client.indices.put_settings(index=name, settings={"refresh_interval": None, "number_of_replicas": replicas})

    def mark_complete() -> None:
        meta = client.indices.get_mapping(index=name)[name]["mappings"].get("_meta", {})
        client.indices.put_mapping(index=name, meta={**meta, "complete": True})

    with ThreadPoolExecutor(3, thread_name_prefix="finish") as pool:
        for step in [pool.submit(f) for f in (settle, lambda: client.indices.refresh(index=name), mark_complete)]:
            step.result()


def live_index(client: Elasticsearch, alias: str) -> str | None:
    found = client.options(ignore_status=404).indices.get_alias(name=alias)
    names = list(found) if found.meta.status == 200 else []
    return names[0] if names else None


def swap(client: Elasticsearch, alias: str, new: str) -> str | None:
    """Point the alias at `new` in one atomic request; returns the previous index."""
    old = live_index(client, alias)
    actions: list[dict] = [{"add": {"index": new, "alias": alias, "is_write_index": True}}]
    if old and old != new:
        actions.insert(0, {"remove": {"index": old, "alias": alias}})
    client.indices.update_aliases(actions=actions)
    return old


def versions(client: Elasticsearch, alias: str) -> list[Version]:
    """Every version of this alias, newest first."""
    pattern = version_pattern(alias)
    found = client.indices.get(index=f"{alias}-*", allow_no_indices=True, expand_wildcards="open")
    live = live_index(client, alias)
    names = sorted((n for n in found if pattern.match(n)), reverse=True)
    if not names:
        return []
    counts = {row["index"]: int(row["docs.count"] or 0)
              for row in client.cat.indices(index=",".join(names), format="json", h="index,docs.count")}
    out = []
    for name in names:
        meta = found[name]["mappings"].get("_meta", {})
        out.append(Version(name, counts.get(name, 0), bool(meta.get("complete")), name == live,
                           meta.get("analysis_profile"), int(meta.get("schema_version", 1)),
                           meta.get(meaning.META_KEY)))
    return out


def schema_of(client: Elasticsearch, index: str) -> int:
    meta = client.indices.get_mapping(index=index)[index]["mappings"].get("_meta", {})
    return int(meta.get("schema_version", 1))


def upgrade_mapping(client: Elasticsearch, index: str) -> int | None:
    """Give a version built by an older schema the fields it lacks (adding fields is all Elasticsearch allows
    in place; their values come with a reindex). Returns the old schema version, None when it was current."""
    old, current = schema_of(client, index), index_definition.schema_version()
    if old >= current:
        return None
    meta = client.indices.get_mapping(index=index)[index]["mappings"].get("_meta", {})
    client.indices.put_mapping(index=index, properties=index_definition.load()["mappings"]["properties"],
                               meta={**meta, "schema_version": current,
                                     "built_schema_version": index_definition.built_schema(meta)})
    return old


def rollback_target(client: Elasticsearch, alias: str) -> tuple[str, str]:
    """(live version, the newest complete version older than it): where rollback moves the alias from and to."""
    all_versions = versions(client, alias)
    live = next((v for v in all_versions if v.live), None)
    if live is None:
        raise LookupError(f"alias {alias!r} points at no version; nothing to roll back from")
    older = [v for v in all_versions if v.complete and not v.live and v.name < live.name]
    if not older:
        raise LookupError(f"no complete version older than {live.name} is kept; cannot roll back")
    return live.name, older[0].name


def rollback(client: Elasticsearch, alias: str) -> tuple[str, str]:
    """Move the alias to the newest complete version older than the live one."""
    live, older = rollback_target(client, alias)
    swap(client, alias, older)
    return live, older


def prunable(client: Elasticsearch, alias: str, keep: int) -> list[str]:
    """The versions prune deletes: beyond the `keep` newest complete ones (never the live one), and unfinished
    leftovers of killed builds."""
    doomed: list[str] = []
    kept = 0
    for v in versions(client, alias):
        if v.live:
            kept += 1
            continue
        if v.complete and kept < keep:
            kept += 1
            continue
        doomed.append(v.name)
    return doomed


def prune(client: Elasticsearch, alias: str, keep: int) -> list[str]:
    """Delete the prunable versions; the names deleted. Call it only while holding the build lock."""
    doomed = prunable(client, alias, keep)
    if doomed:
        try:
            client.indices.delete(index=",".join(doomed))
        except ApiError as exc:
            if _error_type(exc) != "snapshot_in_progress_exception":
                raise
            return _delete_unless_in_a_snapshot(client, doomed)
    return doomed


def _error_type(exc: ApiError) -> str:
    return (exc.info.get("error") or {}).get("type", "") if isinstance(exc.info, dict) else ""


def _delete_unless_in_a_snapshot(client: Elasticsearch, names: list[str]) -> list[str]:
    """A backup running now refuses the deletion of what it copies: those wait for the next prune."""
    deleted = []
    for name in names:
        try:
            client.indices.delete(index=name)
            deleted.append(name)
        except ApiError as exc:
            if _error_type(exc) != "snapshot_in_progress_exception":
                raise
            log.warning("kept %s for now: a backup is taking a snapshot of it (the next prune deletes it)", name)
    return deleted
