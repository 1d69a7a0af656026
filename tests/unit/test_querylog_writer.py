"""The query-log writer's buffering with a stand-in client (the real node: tests/integration/test_querylog.py)."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime

from elastic_transport import ConnectionError as EsConnectionError

from papersearch import querylog_schema
from webapp.querylog_writer import FULL, NO_DAY, REJECTED, UNAVAILABLE, QueryLogWriter


class StandInClient:
    """Records bulk requests; can be made to hang (until released) or to fail."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.release.set()
        self.bulks: list[list[dict]] = []
        self.created: list[str] = []
        self.fail: Exception | None = None
        self.refuse_every_other = False
        self.missing_days: set[str] = set()  # indices that do not exist: the web user may not make them
        self.indices = self

    def create(self, index: str, **_body) -> None:
        self.created.append(index)

    def bulk(self, operations: list[dict]) -> dict:
        self.release.wait()
        if self.fail:
            raise self.fail
        self.bulks.append(operations)
        items = []
        for i in range(len(operations) // 2):
            status, error = 201, None
            if operations[2 * i]["create"]["_index"] in self.missing_days:
                status, error = 403, {"type": "security_exception", "reason": "action [indices:admin/auto_create] "
                                      "is unauthorized for user [papersearch_web] with effective roles [...]"}
            elif self.refuse_every_other and i % 2:
                status, error = 400, {"type": "mapper_parsing_exception"}
            items.append({"create": {"status": status, **({"error": error} if error else {})}})
        return {"errors": any("error" in it["create"] for it in items), "items": items}


def click(day: int = 30, n: int = 1) -> querylog_schema.ClickEvent:
    return querylog_schema.ClickEvent(timestamp=datetime(2026, 11, day, 12, tzinfo=UTC),
                                      query_id=querylog_schema.new_query_id(),
                               position=n, paper_id=f"p{n}", source="page")


def make(client: StandInClient, **kwargs) -> tuple[QueryLogWriter, Counter]:
    drops: Counter = Counter()
    writer = QueryLogWriter(client, "papersearch-querylog-unit", flush_every=30,
                            on_drop=lambda n, r: drops.update({r: n}), **kwargs)
    return writer, drops


def test_events_are_written_per_day_into_indices_made_ahead():
    client = StandInClient()
    writer, drops = make(client)
    for n in range(1, 4):
        writer.submit(click(29, n))
    writer.submit(click(30, 4))
    assert writer.flush(5)
    writer.submit(click(30, 5))
    assert writer.flush(5)
    writer.close()
    assert client.created == []  # the webapp makes no index: the indexer's side makes the days (D-188)
    docs = [op for ops in client.bulks for op in ops[1::2]]
    targets = [op["create"]["_index"] for ops in client.bulks for op in ops[0::2]]
    assert [d["position"] for d in docs] == [1, 2, 3, 4, 5]
    assert targets.count("papersearch-querylog-unit-2026.11.29") == 3
    assert not drops


def test_a_full_buffer_drops_and_counts_instead_of_waiting():
    client = StandInClient()
    client.release.clear()  # the cluster hangs: the first batch never returns
    writer, drops = make(client, capacity=5, batch_size=1)
    writer.submit(click(n=1))
    assert not writer.flush(0.3)  # the thread is stuck in bulk with event 1
    for n in range(2, 12):
        writer.submit(click(n=n))  # returns at once although nothing drains
    assert drops == Counter({FULL: 5})
    client.release.set()
    assert writer.flush(5)
    assert len([op for ops in client.bulks for op in ops[1::2]]) == 6
    writer.close()


def test_an_unreachable_cluster_drops_the_batch():
    client = StandInClient()
    client.fail = EsConnectionError("connection refused")
    writer, drops = make(client)
    for n in range(1, 8):
        writer.submit(click(n=n))
    assert writer.flush(5)
    assert drops == Counter({UNAVAILABLE: 7})
    client.fail = None
    writer.submit(click(n=8))
    assert writer.flush(5)
    assert [op["position"] for ops in client.bulks for op in ops[1::2]] == [8]
    writer.close()


def test_refused_documents_are_counted():
    client = StandInClient()
    client.refuse_every_other = True
    written: list[int] = []
    writer, drops = make(client, on_written=written.append)
    for n in range(1, 5):
        writer.submit(click(n=n))
    assert writer.flush(5)
    assert drops == Counter({REJECTED: 2})
    assert sum(written) == 2
    writer.close()


def test_a_day_nobody_made_drops_its_events_apart_from_refusals(caplog):
    client = StandInClient()
    client.missing_days = {"papersearch-querylog-unit-2026.11.30"}
    written: list[int] = []
    writer, drops = make(client, on_written=written.append)
    for n in range(1, 4):
        writer.submit(click(30, n))
    writer.submit(click(29, 4))
    assert writer.flush(5)
    writer.close()
    assert drops == Counter({NO_DAY: 3}) and sum(written) == 1
    assert "papersearch-admin querylog prepare" in caplog.text


def test_nothing_is_accepted_after_close():
    client = StandInClient()
    writer, drops = make(client)
    writer.submit(click(n=1))
    writer.close()
    writer.submit(click(n=2))
    assert [op["position"] for ops in client.bulks for op in ops[1::2]] == [1]
    assert not drops
