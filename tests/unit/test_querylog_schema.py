"""The query log's shared names, the roles built from them, and the report's pure parts."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, date, datetime, timedelta

import pytest

from indexer.querylog.commands import render
from indexer.querylog.report import DayRow, QueryCount, Report, Retyped, parse_duration
from papersearch import logs, querylog_schema
from papersearch.role_index_names import searchable, wildcard_of, without_query_log
from provisioning.roles import READER_ROLE, WRITER_ROLE, role_bodies


def lucene_regex_matches(role_name: str, index: str) -> bool:
    """Evaluate the `/A&~(B)&~(C)…/` role names we generate (plain regexps) with Python's re."""
    match = re.fullmatch(r"/(.*?)((?:&~\(.*?\))+)/", role_name)
    assert match, role_name
    include, excludes = match.group(1), re.findall(r"&~\((.*?)\)", match.group(2))
    return bool(re.fullmatch(include, index)) and not any(re.fullmatch(e, index) for e in excludes)


def test_daily_index_names_round_trip_and_ignore_other_bases():
    when = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)
    name = querylog_schema.daily_index("papersearch-querylog", when)
    assert name == "papersearch-querylog-2026.11.30"
    assert querylog_schema.day_of_index("papersearch-querylog", name) == date(2026, 11, 30)
    assert querylog_schema.day_of_index("papersearch-querylog", "papersearch-querylog-lab-2026.11.30") is None
    assert querylog_schema.day_of_index("papersearch-querylog", "papersearch-querylog-2026.13.40") is None
    assert re.fullmatch(querylog_schema.BASE_RE, "papersearch-querylog-lab_2")
    assert not re.fullmatch(querylog_schema.BASE_RE, "querylog")


def test_every_event_field_is_mapped():
    """Every field a document carries (fields excluded from it, like a click's searched_at, are not stored)."""
    mapped = set(querylog_schema.INDEX_BODY["mappings"]["properties"])
    for model in querylog_schema.EVENT_MODELS.values():
        fields = {name for name, info in model.model_fields.items() if not info.exclude}
        fields |= set(model.model_computed_fields)
        assert fields <= mapped, (model.__name__, fields - mapped)


def test_a_click_goes_to_its_search_day_under_an_id_of_its_own():
    searched = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)
    click = querylog_schema.ClickEvent(timestamp=searched + timedelta(minutes=5), query_id="a" * 32, position=3,
                                paper_id="p", source="page", searched_at=searched)
    assert querylog_schema.daily_index("b", click.index_time()) == "b-2026.11.30"  # the search's day, not the click's
    assert click.document_id() == f"click-{'a' * 32}-3"
    assert "searched_at" not in querylog_schema.document(click)


def test_search_event_normalises_the_query_and_flags_zero_results():
    event = querylog_schema.SearchEvent(query_id=querylog_schema.new_query_id(), q="  Graph\u00a0NEURAL  nets ",
                                        sort="relevance",
                                 page=1, size=10, total=0, took_ms=3, lang="en", source="page")
    doc = querylog_schema.document(event)
    assert doc["q_norm"] == "graph neural nets" and doc["zero_result"] is True
    assert "did_you_mean" not in doc  # unset optional fields are left out


def test_papers_role_names_exclude_the_query_log():
    name = without_query_log("papers*")
    for index in ("papers", "papers-20261130t101010", "papers_locks", "paperstest_abc"):
        assert lucene_regex_matches(name, index), index
    for index in ("papersearch-querylog-2026.11.30", "papersearch-querylog-lab-2026.11.30", "other"):
        assert not lucene_regex_matches(name, index), index


def test_the_web_role_reads_no_build_lock():
    name = searchable("papers*")
    for index in ("papers", "papers-20261130t101010", "paperstest_abc"):
        assert lucene_regex_matches(name, index), index
    for index in ("papers_locks", "paperstest_abc_locks", "papersearch-querylog-2026.11.30"):
        assert not lucene_regex_matches(name, index), index
    assert role_bodies(["papers*"])[READER_ROLE]["indices"][0]["names"] == [name]


def test_roles_grant_the_query_log_only_what_each_side_needs():
    roles = role_bodies(["papers*"])
    log_entries = {role: [e for e in body["indices"] if e["names"] == [querylog_schema.INDEX_PATTERN]]
                   for role, body in roles.items()}
    # Appends to days that exist and makes none (auto_configure would let any name be made: DECISIONS.md D-188).
    assert log_entries[READER_ROLE] == [{"names": ["papersearch-querylog-*"], "privileges": ["create_doc"]}]
    assert roles[READER_ROLE]["cluster"] == []  # issue 45.6: the webapp calls nothing cluster-wide
    assert log_entries[WRITER_ROLE] == [{"names": ["papersearch-querylog-*"],
                                         "privileges": ["read", "create_index", "delete_index"]}]
    for body in roles.values():
        others = [e for e in body["indices"] if e["names"] != [querylog_schema.INDEX_PATTERN]]
        assert all(name.startswith("/") for e in others for name in e["names"])


@pytest.mark.parametrize(("text", "expected"), [("7d", timedelta(days=7)), ("12h", timedelta(hours=12)),
                                                ("2W", timedelta(weeks=2)), (" 90d ", timedelta(days=90))])
def test_durations(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["0d", "7", "d", "1y", "-3d", "a week"])
def test_bad_durations_name_the_expected_form(text):
    with pytest.raises(ValueError, match="like 7d, 12h or 2w"):
        parse_duration(text)


def test_report_table_aligns_chinese_queries():
    report = Report(since=datetime(2026, 11, 23, tzinfo=UTC), until=datetime(2026, 11, 30, tzinfo=UTC),
                    indices=["papersearch-querylog-2026.11.29"], searches=4, zero_result=1, clicks=0,
                    days=[DayRow(day=date(2026, 11, 29), searches=4, zero_result=1)],
                    top_queries=[QueryCount(query="大语言模型", searches=3), QueryCount(query="llm", searches=1)],
                    retyped=[Retyped(query="grpah", times=1, next_query="graph")])
    text = render(report, "papersearch-querylog")
    assert "searches 4, zero results 1 (25.0%)" in text
    assert "median click position -" in text and "search page only" in text
    rows = [line for line in text.splitlines() if line.startswith(("大语言模型", "llm "))]
    widths = [sum(2 if "\u4e00" <= c <= "\u9fff" else 1 for c in line) for line in rows]
    assert len(rows) == 2 and widths[0] == widths[1]
    assert "grpah → graph" in text
    empty = Report(since=report.since, until=report.until, indices=[])
    assert render(empty, "papersearch-querylog").startswith("query log papersearch-querylog: no entries")


def test_json_log_lines(capsys):
    logs.configure("json")
    try:
        logging.getLogger("papersearch.test").warning("查询 %s", "x", extra={"route": "/api/search"})
    finally:
        logs.configure("text")
    line = capsys.readouterr().err.strip().splitlines()[-1]
    record = json.loads(line)
    assert record["level"] == "WARNING" and record["logger"] == "papersearch.test"
    assert record["message"] == "查询 x" and record["route"] == "/api/search"
    assert datetime.fromisoformat(record["time"]).tzinfo is not None


def test_openapi_declares_the_beacons_and_metrics():
    from webapp import openapi
    from webapp.controllers.params import RequestArgs
    from webapp.controllers.query_ids import TOKEN_PATTERN
    from webapp.services.search_settings import search_config

    doc = openapi.document(RequestArgs(search_config()))
    body = doc["paths"]["/api/events"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert [ref["$ref"].rsplit("/", 1)[1] for ref in body["oneOf"]] == ["ClickBeacon", "RetypeBeacon"]
    click = doc["components"]["schemas"]["ClickBeacon"]
    assert click["additionalProperties"] is False and click["properties"]["query_id"]["pattern"] == TOKEN_PATTERN
    assert click["properties"]["position"]["maximum"] == search_config().max_result_window
    assert "/metrics" in doc["paths"]


def test_a_role_name_without_the_query_log_reads_back_as_its_wildcard() -> None:
    for pattern in ("papers*", "pa?ers-x.y*", "lab_papers"):
        assert wildcard_of(without_query_log(pattern)) == pattern
    assert wildcard_of("other-*") == "other-*"
