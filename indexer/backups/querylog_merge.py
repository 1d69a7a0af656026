"""Merging a restored copy of a query-log day into the day's live index, without duplicates.

Every query-log entry has a document id of its own (given by Elasticsearch when the webapp wrote it), and a
snapshot keeps it; so an entry is copied with `create` under the same id and an entry the live day already
has is refused (409) and counted as there. Running the merge again is harmless.
"""

from __future__ import annotations

from dataclasses import dataclass

from elasticsearch import Elasticsearch

from indexer.backups.repository import BackupError

_PAGE = 1000


@dataclass
class Merged:
    added: int = 0
    present: int = 0

    def __iadd__(self, other: Merged) -> Merged:
        self.added += other.added
        self.present += other.present
        return self


def merge_day(client: Elasticsearch, source: str, target: str) -> Merged:
    """Copy every entry of `source` into `target` that `target` lacks (by id); then refresh `target`."""
    merged = Merged()
    after: list | None = None
    while True:
        page = client.search(index=source, size=_PAGE, sort=["_doc"], search_after=after,
                             query={"match_all": {}}, track_total_hits=False)["hits"]["hits"]
        if not page:
            break
        operations: list[dict] = []
        for hit in page:
            operations += [{"create": {"_index": target, "_id": hit["_id"]}}, hit["_source"]]
        items = client.bulk(operations=operations, filter_path="items.*.status,items.*.error")["items"]
        for item in items:
            status = item["create"]["status"]
            if status == 409:
                merged.present += 1
            elif 200 <= status < 300:
                merged.added += 1
            else:
                raise BackupError(f"merging the query log of {target} failed: {item['create'].get('error')}")
        after = page[-1]["sort"]
    client.indices.refresh(index=target)
    return merged
