"""Keep the date each paper was first added (papersearch.added) when it is written again.

Before a chunk is sent, one search asks the index that already holds the papers (the live version, for a
full reindex; the live index itself, for `add`) for the dates of the chunk's ids, and puts each one into
its document in place. Nothing is kept between chunks, so memory stays flat at any size; the search reads
only doc values. Measured cost: DECISIONS.md D-070.
"""

from __future__ import annotations

from elasticsearch import Elasticsearch

from indexer.loading.prepare import Chunk
from papersearch import added


def known_dates(client: Elasticsearch, index: str, ids: list[str]) -> dict[str, str]:
    """id → added date of those of `ids` that `index` holds with a date (an index from before the field has none)."""
    response = client.search(
        index=index, query={"ids": {"values": ids}}, size=len(ids), source=False, track_total_hits=False,
        docvalue_fields=[{"field": added.FIELD, "format": added.ES_FORMAT}],
        filter_path="hits.hits._id,hits.hits.fields",
    )
    return {hit["_id"]: added.normalised(hit["fields"][added.FIELD][0])
            for hit in response.get("hits", {}).get("hits", []) if added.FIELD in hit.get("fields", {})}


def carry_over(client: Elasticsearch, index: str, chunk: Chunk, written: str) -> int:
    """Give the chunk's papers that `index` already holds their old date; returns how many it holds."""
    if not len(chunk):
        return 0
    ids = chunk.ids()
    dates = known_dates(client, index, ids)
    if dates:
        stamp = written.encode()
        for i, paper_id in enumerate(ids):
            date = dates.get(paper_id)
            if date is not None and date != written:
                chunk.set_added(i, date.encode(), stamp)
    return len(dates)
