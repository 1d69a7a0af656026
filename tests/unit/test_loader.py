"""The bulk senders' bookkeeping: every document of a response counted, 429s sent again, failures in
the rejects file with file, line and id; progress only when asked for. (The requests themselves are
tested against the real node in tests/integration/test_indexer_loading.py.)"""

import json

import pytest

from indexer.loading.loader import LoadStats, _Sender
from indexer.loading.models import Paper
from indexer.loading.prepare import Chunk
from indexer.loading.rejects import RejectsWriter
from indexer.progress import Progress


def chunk_of(n: int) -> Chunk:
    chunk = Chunk()
    for i in range(n):
        paper = Paper(id=f"p{i}", title=f"T{i}")
        chunk.add(paper, "in.jsonl", 10 + i, json.dumps({"id": paper.id}).encode())
    return chunk


def test_each_document_is_counted_retried_or_reported(tmp_path) -> None:
    stats = LoadStats()
    with RejectsWriter(tmp_path / "rejects.jsonl") as rejects:
        sender = _Sender(None, "idx", None, rejects, stats, Progress("indexing", enabled=False))  # type: ignore[arg-type]
        chunk = chunk_of(4)
        items = [
            {"index": {"status": 201, "result": "created"}},
            {"index": {"status": 200, "result": "updated"}},
            {"index": {"status": 429, "error": {"type": "es_rejected_execution_exception", "reason": "busy"}}},
            {"index": {"status": 400, "error": {"type": "document_parsing_exception", "reason": "bad year"}}},
        ]
        retry = sender.account(chunk, [0, 1, 2, 3], items, retry_429=True)
        assert retry == [2]
        assert (stats.indexed, stats.created, stats.updated, stats.failed) == (2, 1, 1, 1)
        assert chunk.part(retry).splitlines()[0] == b'{"index":{"_id":"p2"}}'
        # The last attempt: a 429 is a failure like any other.
        assert sender.account(chunk, [2], [items[2]], retry_429=False) == []
        assert stats.failed == 2
    lines = [json.loads(line) for line in (tmp_path / "rejects.jsonl").read_text().splitlines()]
    assert [(r["source"], r["line"], r["reason"]) for r in lines] == [("in.jsonl", 13, "indexing failed"),
                                                                       ("in.jsonl", 12, "indexing failed")]
    assert lines[0]["detail"] == "id p3: document_parsing_exception bad year"
    assert lines[1]["detail"].startswith("id p2: es_rejected_execution_exception")


def test_a_response_that_does_not_match_the_chunk_fails_loudly() -> None:
    sender = _Sender(None, "idx", None, RejectsWriter(None), LoadStats(), Progress("indexing", enabled=False))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        sender.account(chunk_of(2), [0, 1], [{"index": {"status": 201}}], retry_429=True)


def test_a_chunk_takes_another_added_date_in_place() -> None:
    from indexer.loading.documents import DocumentBuilder
    from papersearch import added
    from papersearch.taxonomy import Taxonomy

    written, older = added.stamp(), "2020-01-02T03:04:05.678Z"
    builder = DocumentBuilder(Taxonomy.load(), written)
    chunk = Chunk()
    for i in range(3):
        paper = Paper(id=f"p{i}", title=f"Title {i}", abstract="An abstract.")
        chunk.add(paper, "in.jsonl", i + 1, json.dumps(builder.build(paper), ensure_ascii=False).encode())
    assert chunk.ids() == ["p0", "p1", "p2"]
    chunk.set_added(1, older.encode(), written.encode())
    docs = [json.loads(line) for line in bytes(chunk.body).splitlines()[1::2]]
    assert [d["added"] for d in docs] == [written, older, written]
    assert docs[1]["title"] == "Title 1"
    with pytest.raises(RuntimeError, match="does not end with the date"):
        chunk.set_added(1, older.encode(), written.encode())  # its date is no longer the one written
    assert len(added.stamp()) == added.WIDTH and added.normalised("2020-01-02T03:04:05Z") == "2020-01-02T03:04:05.000Z"
