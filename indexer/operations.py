"""The admin operations: full rebuild with alias swap, incremental add, delete, status."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from elasticsearch import Elasticsearch

from indexer import versions
from indexer.build_lock import BuildLock
from indexer.loading.loader import LoadStats, load
from indexer.loading.prepare import Producer, start
from indexer.loading.rejects import RejectsWriter
from papersearch import index_definition, querylog_schema
from papersearch.role_index_names import lock_index
from papersearch.settings import Settings

log = logging.getLogger(__name__)
_DELETE_CHUNK = 1000  # ids per bulk request (the client's bulk helper would pull in its async half)


class BuildFailed(RuntimeError):
    pass


@dataclass
class BuildReport:
    stats: LoadStats
    index: str | None = None
    previous: str | None = None
    pruned: list[str] = field(default_factory=list)
    profile: str | None = None
    rejects_summary: list[str] = field(default_factory=list)


def verify(client: Elasticsearch, index: str, stats: LoadStats) -> None:
    """The new version holds exactly the accepted papers and answers a query."""
    count = client.count(index=index)["count"]
    # A bulk request the client re-sent after losing a node reports its papers as "updated" when the
    # lost node had written them already, so the count may exceed `created` by at most `updated`.
    if not stats.created <= count <= stats.created + stats.updated:
        raise BuildFailed(f"{index} holds {count} documents but {stats.created} distinct papers were accepted")
    smoke = client.search(index=index, query={"match_all": {}}, size=1, track_total_hits=True)
    if smoke["hits"]["total"]["value"] != count:
        raise BuildFailed(f"{index} did not answer a smoke query correctly")


def default_replicas(client: Elasticsearch) -> int:
    """min(1, data nodes - 1): a second copy of every shard wherever another node can hold it."""
    return min(1, max(0, client.cluster.health()["number_of_data_nodes"] - 1))


def reindex(client: Elasticsearch, settings: Settings, sources: list[Path] | Producer, rejects: RejectsWriter,
            progress: bool = True, allow_empty: bool = False) -> BuildReport:
    """Build a new version from all sources, verify it, swap the alias, prune old versions. Papers the live
    version holds keep their added date.

    Reading starts first, so parsing overlaps taking the lock and creating the index."""
    alias = settings.alias
    querylog_schema.ensure_template(client)
    querylog_schema.prepare_days_if_allowed(client, settings.query_log_index)  # the webapp's days (D-188)
    with start(sources) as producer, BuildLock(client, alias):
        profile = index_definition.choose_profile(client, settings.analysis_profile)
        replicas = settings.replicas if settings.replicas is not None else default_replicas(client)
        live = versions.live_index(client, alias)  # its papers keep the dates they were added on
        name = versions.create(client, alias, profile, shards=settings.shards, replicas=replicas)
        try:
            stats = load(client, name, producer, rejects, progress=progress, dates_from=live)
            if stats.created == 0 and not allow_empty:
                raise BuildFailed("no paper was accepted; refusing to replace the live index with an empty one")
            versions.finish(client, name, replicas)
            verify(client, name, stats)
        except BaseException:
            # The alias never moved; drop the half-built version (a killed run's leftover goes at prune).
            client.indices.delete(index=name, ignore_unavailable=True)
            raise
        previous = versions.swap(client, alias, name)
        pruned = versions.prune(client, alias, settings.keep_indices)
    return BuildReport(stats, name, previous, pruned, profile, rejects.summary())


def add(client: Elasticsearch, settings: Settings, sources: list[Path] | Producer, rejects: RejectsWriter,
        progress: bool = True) -> BuildReport:
    """Upsert papers into the live index (same ids replace, keeping their added date; new ids are added)."""
    with start(sources) as producer:
        live = versions.live_index(client, settings.alias)
        if live is None:
            raise BuildFailed(f"alias {settings.alias!r} does not exist yet: run `reindex` first")
        old = versions.upgrade_mapping(client, live)
        if old is not None:
            log.warning("%s was built by schema version %d: its mapping now has the fields of version %d; "
                        "papers already there get them with the next reindex", live, old,
                        index_definition.schema_version())
        stats = load(client, settings.alias, producer, rejects, progress=progress, dates_from=live)
    client.indices.refresh(index=settings.alias)
    return BuildReport(stats, live, None, [], None, rejects.summary())


@dataclass
class DeletePlan:
    index: str  # the live version
    found: list[str]  # ids it holds
    missing: list[str]  # ids it does not


def delete_plan(client: Elasticsearch, alias: str, ids: list[str]) -> DeletePlan:
    """Which of the ids the live version holds: what delete deletes, and what it reports not found."""
    live = versions.live_index(client, alias)
    if live is None:
        raise LookupError(f"alias {alias!r} does not exist; there are no papers to delete")
    found, missing = [], []
    for start_at in range(0, len(ids), _DELETE_CHUNK):
        batch = ids[start_at:start_at + _DELETE_CHUNK]
        for doc_id, doc in zip(batch, client.mget(index=live, ids=batch, source=False)["docs"], strict=True):
            (found if doc.get("found") else missing).append(doc_id)
    return DeletePlan(live, found, missing)


def delete(client: Elasticsearch, alias: str, ids: list[str]) -> tuple[list[str], list[str]]:
    """Delete papers by id from the live index; returns (deleted, not found)."""
    plan = delete_plan(client, alias, ids)
    deleted, missing = [], list(plan.missing)
    for start_at in range(0, len(plan.found), _DELETE_CHUNK):
        batch = plan.found[start_at:start_at + _DELETE_CHUNK]
        items = client.bulk(index=alias, operations=[{"delete": {"_id": i}} for i in batch])["items"]
        for doc_id, item in zip(batch, items, strict=True):  # one deleted meanwhile (or named twice): not found
            (deleted if item["delete"].get("result") == "deleted" else missing).append(doc_id)
    client.indices.refresh(index=alias)
    return deleted, missing


def status(client: Elasticsearch, alias: str) -> dict:
    health = client.cluster.health()
    all_versions = versions.versions(client, alias)
    lock = None
    if client.indices.exists(index=lock_index(alias)):
        found = client.options(ignore_status=404).get(index=lock_index(alias), id="build")
        lock = found.get("_source") if found.get("found") else None
    live = versions.live_index(client, alias)
    shards = []
    if live:
        shards = [{"shard": int(s["shard"]), "primary": s["prirep"] == "p", "state": s["state"], "node": s["node"]}
                  for s in client.cat.shards(index=live, format="json", h="shard,prirep,state,node")]
    return {
        "alias": alias,
        "live": live,
        "live_health": client.cluster.health(index=live)["status"] if live else None,
        "shards": shards,
        "cluster": {"name": health["cluster_name"], "status": health["status"], "nodes": health["number_of_nodes"],
                    "data_nodes": health["number_of_data_nodes"], "unassigned_shards": health["unassigned_shards"]},
        "versions": [v.__dict__ for v in all_versions],
        "build_lock": lock,
    }
