"""The query log on the real node: the webapp's writer, the roles, `papersearch-admin report` and `querylog prune`.

Every test writes under its own base `papersearch-querylog-t<random>` (inside the roles' pattern), so the
site's own log and other tests are never touched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest
from elasticsearch import AuthorizationException, BadRequestError
from indexer_support import admin_here, cluster_state
from support import SAMPLE

from indexer.querylog.commands import prune
from indexer.querylog.report import build
from papersearch import querylog_schema
from webapp.querylog_writer import QueryLogWriter

ROOT = Path(__file__).resolve().parents[2]
ADMIN_CLI = str(Path(sys.executable).parent / "papersearch-admin")
PRIVATE = ("ip", "client_ip", "remote_addr", "user_agent", "cookie", "session")


@pytest.fixture
def base(query_log_base: str) -> str:
    return query_log_base


def write(cluster, base: str, events: list[querylog_schema.Event]) -> None:
    """Through the webapp's own writer and identity, into days made first as the indexer's side makes them (the
    web user appends only to days that exist); then make them searchable."""
    for day in {event.index_time().date() for event in events}:
        querylog_schema.prepare_days(cluster.client("admin"), base, datetime.combine(day, time(12), UTC), ahead=0,
                                     template=False)
    writer = QueryLogWriter(cluster.client("web"), base, flush_every=0.2)
    for event in events:
        writer.submit(event)
    assert writer.flush(30)
    writer.close()
    cluster.client("admin").indices.refresh(index=f"{base}-*")


def search_event(when: datetime, q: str, total: int, took: int = 10, **kwargs) -> querylog_schema.SearchEvent:
    fields = {"query_id": querylog_schema.new_query_id(), "sort": "relevance", "page": 1, "size": 10, "lang": "en",
              "source": "page", **kwargs}
    return querylog_schema.SearchEvent(timestamp=when, q=q, total=total, took_ms=took, **fields)


def run_admin(cluster, base: str, *args: str, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ES_", "PAPERSEARCH_"))}
    env |= {"ES_URL": cluster.url, "ES_USERNAME": cluster.indexer[0], "ES_PASSWORD": cluster.indexer[1],
            "PAPERSEARCH_QUERY_LOG_INDEX": base, **extra}
    return subprocess.run([ADMIN_CLI, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_documents_have_the_expected_fields_and_nothing_private(cluster, base, admin):
    now = datetime.now(UTC)
    search = search_event(now, " Graph  Neural ", 0, filters=["area=Deep Learning", "year=2024"],
                          fallbacks=["typo"], did_you_mean="graph neural", lang="zh", source="api")
    click = querylog_schema.ClickEvent(timestamp=now, query_id=search.query_id, position=3, paper_id="p-1",
                                       source="api")
    write(cluster, base, [search, click])

    index = querylog_schema.daily_index(base, now)
    hits = admin.search(index=index, sort=[{"event": "desc"}])["hits"]["hits"]
    docs = {hit["_source"]["event"]: hit["_source"] for hit in hits}
    assert set(docs) == {"search", "click"}
    assert docs["search"] | {"timestamp": None} == {
        "timestamp": None, "query_id": search.query_id, "event": "search", "q": " Graph  Neural ",
        "q_norm": "graph neural", "filters": ["area=Deep Learning", "year=2024"], "sort": "relevance",
        "page": 1, "size": 10, "total": 0, "took_ms": 10, "zero_result": True, "fallbacks": ["typo"],
        "did_you_mean": "graph neural", "lang": "zh", "source": "api",
    }
    assert datetime.fromisoformat(docs["search"]["timestamp"]) == now
    assert docs["click"]["position"] == 3 and docs["click"]["query_id"] == search.query_id
    assert docs["click"]["source"] == "api"
    for doc in docs.values():
        assert not [key for key in doc if any(word in key.lower() for word in PRIVATE)]
    mapping = admin.indices.get_mapping(index=index)[index]["mappings"]
    assert mapping == querylog_schema.INDEX_BODY["mappings"]  # created with the shared mapping, not guessed


# The tasks API is a technical preview; it is called here only to be refused to the web user.
@pytest.mark.filterwarnings("ignore::elasticsearch.exceptions.GeneralAvailabilityWarning")
def test_web_role_appends_to_the_query_log_and_nothing_else(cluster, base, alias, admin):
    web = cluster.client("web")
    index = f"{base}-2026.01.01"
    with pytest.raises(AuthorizationException):  # issue 45.6: no index of the web user's own making
        web.indices.create(index=index, **querylog_schema.INDEX_BODY)
    # The indexer's side makes the day (issue 53.7; tests/integration/test_site_roles.py: the web user cannot).
    querylog_schema.prepare_days(admin, base, datetime(2026, 1, 1, tzinfo=UTC), ahead=0)
    web.index(index=index, document={"event": "search"}, op_type="create")
    assert admin.indices.get_mapping(index=index)[index]["mappings"] == querylog_schema.INDEX_BODY["mappings"]
    with pytest.raises(BadRequestError):  # strict: only the log's own fields
        web.index(index=index, document={"event": "search", "probe": {"nested": 1}}, op_type="create")
    with pytest.raises(BadRequestError, match="total fields"):  # create_doc may put mappings: the limit holds
        web.options(ignore_status=()).indices.put_mapping(index=index, properties={"probe": {"type": "keyword"}})
    with pytest.raises(AuthorizationException):
        web.indices.create(index=f"{base}-sec3probe", settings={"number_of_shards": 3})
    doc_id = web.index(index=index, document={"event": "click"}, op_type="create")["_id"]
    with pytest.raises(AuthorizationException):  # create_doc never overwrites
        web.index(index=index, id=doc_id, document={"event": "changed"})
    with pytest.raises(AuthorizationException):  # nor reads the log back
        web.search(index=index)
    with pytest.raises(AuthorizationException):
        web.indices.delete(index=index)
    # The papers side is as read-only as before: no writes, no new indices, no deletes.
    admin.indices.create(index=f"{alias}-1")
    for attempt in (lambda: web.index(index=f"{alias}-1", document={"title": "x"}),
                    lambda: web.index(index=f"{alias}-1", document={"title": "x"}, op_type="create"),
                    lambda: web.indices.create(index=f"{alias}-2"),
                    lambda: web.indices.delete(index=f"{alias}-1")):
        with pytest.raises(AuthorizationException):
            attempt()
    assert web.search(index=f"{alias}-1")["hits"]["total"]["value"] == 0  # reading papers still works
    # Nothing cluster-wide: the webapp calls none of it (issue 45.6: data paths, JVM arguments, other sites'
    # query bodies).
    allocation = {"cluster.routing.allocation.enable": "all"}
    for attempt in (lambda: web.nodes.info(), lambda: web.tasks.list(detailed=True), lambda: web.nodes.stats(),
                    lambda: web.cluster.state(), lambda: web.cluster.put_settings(persistent=allocation)):
        with pytest.raises(AuthorizationException):
            attempt()


def test_indexer_role_reads_and_deletes_the_query_log_and_may_only_append_to_it(cluster, base, admin):
    """Reading (report), deleting days (prune), appending (restore merges entries: DECISIONS.md D-127); never
    rewriting an entry. (Making the days ahead: tests/integration/test_site_roles.py.)"""
    indexer = cluster.client("indexer")
    index = f"{base}-2026.01.02"
    write(cluster, base, [search_event(datetime(2026, 1, 2, 8, tzinfo=UTC), "x", 1)])
    hits = indexer.search(index=index)["hits"]
    assert hits["total"]["value"] == 1
    entry = hits["hits"][0]["_id"]
    with pytest.raises(AuthorizationException):
        indexer.index(index=index, id=entry, document={"event": "search", "q": "forged"})
    with pytest.raises(AuthorizationException):
        indexer.update(index=index, id=entry, doc={"q": "forged"})
    with pytest.raises(AuthorizationException):
        indexer.delete(index=index, id=entry)
    indexer.indices.delete(index=index)
    assert not admin.indices.exists(index=index)


def seeded_log(now: datetime) -> list[querylog_schema.Event]:
    day1 = (now - timedelta(days=2)).replace(hour=12, minute=0, second=0, microsecond=0)
    day2 = day1 + timedelta(days=1)
    old = day1 - timedelta(days=8)
    events: list[querylog_schema.Event] = [
        *[search_event(day1 + timedelta(minutes=i), "transformer", 10) for i in range(3)],
        search_event(day1 + timedelta(minutes=5), "  Transformer ", 10),
        *[search_event(day1 + timedelta(minutes=6 + i), "量子 纠错", 0) for i in range(2)],
        search_event(day1 + timedelta(minutes=9), "xyzzy", 0, took=100),
        *[search_event(day2 + timedelta(minutes=i), "diffusion", 5) for i in range(2)],
        search_event(day2 + timedelta(minutes=3), "", 40, took=100),
        *[search_event(old + timedelta(minutes=i), "old query", 3) for i in range(5)],
    ]
    clicked = events[0].query_id
    # One far-off click (a fuzzer's, say): the median does not care, the mean (2,502) would.
    events += [querylog_schema.ClickEvent(timestamp=day1 + timedelta(minutes=1), query_id=clicked, position=p,
                                   paper_id=f"p{p}", source="page") for p in (1, 2, 6, 9000)]
    # A program's searches and click through the API: left out unless asked for (--source api|all).
    api = [search_event(day2 + timedelta(minutes=20 + i), "api only", 3, source="api") for i in range(6)]
    events += [*api, querylog_schema.ClickEvent(timestamp=day2 + timedelta(minutes=30), query_id=api[0].query_id,
                                         position=1, paper_id="p1", source="api")]

    def retyped(at: datetime, first: str, then: str, after: timedelta) -> list[querylog_schema.Event]:
        a, b = search_event(at, first, 0), search_event(at + after, then, 7)
        return [a, b, querylog_schema.RetypeEvent(timestamp=b.timestamp, query_id=b.query_id,
                                           previous_query_id=a.query_id, source="page")]

    events += retyped(day2 + timedelta(hours=1), "grpah neural", "graph neural", timedelta(seconds=20))
    events += retyped(day2 + timedelta(hours=2), "grpah neural", "graph neural", timedelta(seconds=40))
    events += retyped(day2 + timedelta(hours=3), "lstm", "long short-term memory", timedelta(seconds=5))
    events += retyped(day2 + timedelta(hours=4), "slow typist", "slow typing", timedelta(seconds=90))  # too late
    events += retyped(day2 + timedelta(hours=5), "paging", "Paging", timedelta(seconds=10))  # same query
    return events


def test_report_on_a_seeded_log_counts_right(cluster, base):
    now = datetime.now(UTC)
    write(cluster, base, seeded_log(now))
    report = build(cluster.client("indexer"), base, timedelta(days=7), now=now)

    # 3+1+2+1 on day 1; 2+1 on day 2 plus 5 retype pairs (10 searches); the old day is outside 7 days.
    assert report.searches == 20
    assert report.zero_result == 3 + 5  # 量子 纠错 ×2, xyzzy, and the first search of every retype pair
    days = {row.day: (row.searches, row.zero_result) for row in report.days}
    assert days == {(now - timedelta(days=2)).date(): (7, 3), (now - timedelta(days=1)).date(): (13, 5)}
    assert report.top_queries[0].model_dump() == {"query": "transformer", "searches": 4}
    assert {q.query: q.searches for q in report.top_zero_result_queries} == {
        "量子 纠错": 2, "grpah neural": 2, "xyzzy": 1, "lstm": 1, "slow typist": 1, "paging": 1}
    assert "" not in {q.query for q in report.top_queries}  # browsing without a query is not a query
    assert report.clicks == 4 and report.median_click_position == pytest.approx(4.0)
    assert "api only" not in {q.query for q in report.top_queries}
    assert report.took_p50_ms == pytest.approx(10) and 10 < report.took_p95_ms <= 100
    assert [r.model_dump() for r in report.retyped] == [
        {"query": "grpah neural", "times": 2, "next_query": "graph neural"},
        {"query": "lstm", "times": 1, "next_query": "long short-term memory"},
    ]
    wider = build(cluster.client("indexer"), base, timedelta(days=14), now=now)
    assert wider.searches == 25 and wider.top_queries[0].model_dump() == {"query": "old query", "searches": 5}
    programs = build(cluster.client("indexer"), base, timedelta(days=7), now=now, source="api")
    assert (programs.searches, programs.clicks, programs.top_queries[0].query) == (6, 1, "api only")
    everything = build(cluster.client("indexer"), base, timedelta(days=7), now=now, source="all")
    assert (everything.searches, everything.clicks) == (26, 5)
    assert everything.top_queries[0].model_dump() == {"query": "api only", "searches": 6}

    # The command: JSON with the same numbers, and a readable table.
    as_json = run_admin(cluster, base, "report", "--since", "7d", "--json")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert (data["searches"], data["zero_result"], data["clicks"], data["zero_result_share"]) == (20, 8, 4, 0.4)
    assert data["source"] == "page" and data["median_click_position"] == pytest.approx(4.0)
    as_api = run_admin(cluster, base, "report", "--since", "7d", "--source", "api", "--json")
    assert as_api.returncode == 0 and json.loads(as_api.stdout)["searches"] == 6, as_api.stderr
    table = run_admin(cluster, base, "report")
    assert table.returncode == 0, table.stderr
    assert "searches 20, zero results 8 (40.0%)" in table.stdout and "search page only" in table.stdout
    assert "median click position 4" in table.stdout
    assert "grpah neural → graph neural" in table.stdout
    bad = run_admin(cluster, base, "report", "--since", "a week")
    assert bad.returncode == 2 and "expected a duration like 7d" in bad.stderr


@pytest.mark.usefixtures("cli_local_dir")
def test_prune_deletes_only_old_daily_indices(cluster, base, admin, alias, monkeypatch, capfd):
    now = datetime.now(UTC)
    ages = (400, 91, 90, 89, 1, 0)
    write(cluster, base, [search_event(now - timedelta(days=age), f"age {age}", 1) for age in ages])
    other_base = f"{base}-other"  # another site's log under the same prefix
    write(cluster, other_base, [search_event(now - timedelta(days=400), "other", 1)])
    indexer = cluster.client("indexer")

    deleted = prune(indexer, base, timedelta(days=90), now=now)
    expected = [querylog_schema.daily_index(base, now - timedelta(days=age)) for age in (400, 91)]
    assert deleted == expected
    left = sorted(admin.indices.get(index=f"{base}-*"))
    assert left == sorted([querylog_schema.daily_index(base, now - timedelta(days=a)) for a in (90, 89, 1, 0, -1)]
                          + [querylog_schema.daily_index(other_base, now - timedelta(days=400))])  # -1: made ahead

    refused = run_admin(cluster, base, "querylog", "prune", "--older-than", "1d")
    assert refused.returncode == 1 and "refusing without --yes" in refused.stderr
    before = cluster_state(admin, f"{base}*")
    doomed = ", ".join(querylog_schema.daily_index(base, now - timedelta(days=a)) for a in (90, 89))
    dry = admin_here(monkeypatch, capfd, cluster, alias, "querylog", "prune", "--older-than", "1d", "--dry-run",
                     PAPERSEARCH_QUERY_LOG_INDEX=base)  # no --yes needed: it changes nothing
    assert (dry.returncode, dry.stdout) == (0, f"would delete 2: {doomed}\n"), dry.stderr
    assert cluster_state(admin, f"{base}*") == before
    done = run_admin(cluster, base, "querylog", "prune", "--older-than", "1d", "--yes")
    assert (done.returncode, done.stdout) == (0, f"deleted 2: {doomed}\n"), done.stderr
    kept = [name for name in admin.indices.get(index=f"{base}-2*")
            if querylog_schema.day_of_index(base, name) <= now.date()]  # days made ahead are not the prune's
    assert sorted(kept) == sorted(querylog_schema.daily_index(base, now - timedelta(days=a)) for a in (1, 0))


def test_admin_log_lines_can_be_json(cluster, base, alias):
    done = run_admin(cluster, base, "reindex", "--no-progress", str(SAMPLE), PAPERSEARCH_ALIAS=alias,
                     PAPERSEARCH_LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]  # every line is JSON
    assert any(r["logger"] == "papersearch.index_definition" and r["message"].startswith("analysis profile")
               for r in records)
    assert "reindex: read 40" in done.stdout  # the command's own output stays plain
