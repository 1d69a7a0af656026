"""The indexer, end to end, loading: `papersearch-admin reindex` (and `add`) run as a subprocess against the real
node, behind a test alias: what gets into the index, what is rejected and why, and what is refused.

Expectations come from the inputs: the seed pages are re-read by a deliberately simple parser
(indexer_support.expected_page), the broken file line by line, and the other inputs are written by the tests
themselves.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
from indexer_support import (
    CHROME,
    SEEDS,
    alias_indices,
    all_docs,
    count,
    expected_page,
    live,
    lock_doc,
    reindex,
    run_admin,
)
from support import ROOT, build_alias, write_jsonl

from papersearch import index_definition

BROKEN = ROOT / "tests" / "fixtures" / "broken.jsonl"

pytestmark = pytest.mark.usefixtures("cli_local_dir")  # the CLI's scratch .local (tests/integration/conftest.py)


# --- loading ------------------------------------------------------------------------------------------------------


def test_seed_pages_load_as_on_the_page(cluster, alias: str) -> None:
    expected = [p for page in SEEDS for p in expected_page(page)]
    assert len(SEEDS) == 2 and [len(expected_page(p)) for p in SEEDS] == [20, 20]

    result = reindex(cluster, alias, *SEEDS)
    assert f"read {len(expected)}, indexed {len(expected)} ({len(expected)} new" in result.stdout
    assert "rejected 0" in result.stdout

    es = cluster.client("web")
    docs = all_docs(es, alias)
    assert len(docs) == count(es, alias) == 40
    by_abstract = {d["abstract"]: d for d in docs.values()}
    assert set(by_abstract) == {p["abstract"] for p in expected}
    for paper in expected:
        doc = by_abstract[paper["abstract"]]
        got = {k: doc[k] for k in paper}
        assert got == paper, paper["abstract"][:60]
    per_page = es.search(index=alias, size=0, aggs={"pages": {"terms": {"field": "source"}}})
    assert {b["key"]: b["doc_count"] for b in per_page["aggregations"]["pages"]["buckets"]} == {
        p.name: 20 for p in SEEDS}

    # No page chrome anywhere: not in any stored value, not findable.
    for doc in docs.values():
        text = json.dumps(doc, ensure_ascii=False)
        assert not any(c in text for c in CHROME), doc["id"]
    fields = list(index_definition.search_config().query_fields)
    for phrase in ("论文检索", "输入标题、作者或关键词，从 13,033 篇学术成果中精准定位"):
        for query in ({"multi_match": {"query": phrase, "fields": fields, "operator": "and"}},
                      {"multi_match": {"query": phrase, "fields": fields, "type": "phrase"}},
                      {"query_string": {"query": f'"{phrase}"', "fields": ["*"], "lenient": True}}):
            assert es.search(index=alias, query=query)["hits"]["total"]["value"] == 0, (phrase, query)


def test_broken_records_are_rejected_with_line_and_reason(cluster, alias: str, tmp_path: Path) -> None:
    lines = BROKEN.read_text(encoding="utf-8").splitlines()
    numbered = {n: line for n, line in enumerate(lines, 1) if line.strip()}
    rejects_path = tmp_path / "rejects.jsonl"

    result = run_admin(cluster, alias, "reindex", "--no-progress", "--rejects", rejects_path, BROKEN)
    assert result.returncode == 3, result.stdout + result.stderr
    rejects = [json.loads(line) for line in rejects_path.read_text(encoding="utf-8").splitlines()]
    assert rejects and all(r["source"] == BROKEN.name and r["reason"] for r in rejects)
    rejected_lines = {r["line"] for r in rejects}
    assert len(rejected_lines) == len(rejects)  # one entry per bad record
    assert rejected_lines < set(numbered)
    for r in rejects:  # the raw record, cut (with "…") when it is very long
        line = numbered[r["line"]]
        assert r["raw"] == line or (r["raw"].endswith("…") and line.startswith(r["raw"][:-1])), r
    # Records that are not JSON objects can only be rejected, and for that reason.
    for n, line in numbered.items():
        try:
            value = json.loads(line)
        except ValueError:
            assert next(r for r in rejects if r["line"] == n)["reason"] == "invalid JSON"
            continue
        if not isinstance(value, dict):
            assert "not a JSON object" in next(r for r in rejects if r["line"] == n)["reason"]
        elif value.get("year") and int(value["year"]) > time.gmtime().tm_year + 1:
            assert next(r for r in rejects if r["line"] == n)["field"] == "year"

    # Every other record was loaded: exactly those, findable by their own title.
    good = {n: json.loads(line) for n, line in numbered.items() if n not in rejected_lines}
    assert good
    es = cluster.client("web")
    assert count(es, alias) == len(good)
    titles = {d["title"] or d["title_zh"] for d in all_docs(es, alias).values()}
    assert titles == {r.get("title") or r.get("title_zh") for r in good.values()}
    assert f"{len(rejects)} records rejected or failed, listed in {rejects_path}" in result.stdout
    assert f"rejected {len(rejects)}" in result.stdout

    allowed = run_admin(cluster, alias, "reindex", "--no-progress", "--allow-rejects", "--rejects",
                        tmp_path / "again.jsonl", BROKEN)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert len((tmp_path / "again.jsonl").read_text(encoding="utf-8").splitlines()) == len(rejects)
    assert count(es, alias) == len(good)


def test_unknown_format_or_missing_file_writes_nothing(cluster, alias: str, tmp_path: Path) -> None:
    unknown = tmp_path / "papers.xyz"
    unknown.write_text("just some words\nand more words\n", encoding="utf-8")
    missing = tmp_path / "does-not-exist.jsonl"
    es = cluster.client("admin")

    fresh = alias + "_fresh"  # an alias that does not exist yet gets no index at all
    for sources, needle in (([missing], "no such file"), ([unknown], "unknown format"),
                            ([SEEDS[0], missing], "no such file")):
        result = reindex(cluster, fresh, *sources, expect=1)
        assert needle in result.stderr and str(sources[-1]) in result.stderr, result.stderr
        assert "nothing was written" in result.stderr
        assert {i for i in alias_indices(es, fresh) if not i.endswith("_locks")} == set()

    build_alias(cluster, alias, [SEEDS[0]])
    before, live_before = alias_indices(es, alias), live(es, alias)
    for sources, needle in (([missing], "no such file"), ([unknown], "unknown format")):
        result = reindex(cluster, alias, *sources, expect=1)
        assert needle in result.stderr, result.stderr
        assert alias_indices(es, alias) == before
        assert live(es, alias) == live_before
        assert lock_doc(es, alias) is None
    added = run_admin(cluster, alias, "add", "--no-progress", unknown)
    assert added.returncode == 1 and "unknown format" in added.stderr
    assert count(es, alias) == len(expected_page(SEEDS[0]))


def test_an_alias_outside_the_role_is_refused_in_words(cluster, alias: str) -> None:
    """The indexer's role may write papers* only: another alias is refused with the pattern, the alias
    and the identity named (not "None (403)"), and nothing is written."""
    es = cluster.client("admin")
    outside = f"outside_{uuid.uuid4().hex[:8]}"
    result = run_admin(cluster, alias, "--alias", outside, "reindex", "--no-progress", SEEDS[0])
    assert result.returncode == 1, result.stdout + result.stderr
    message = result.stderr
    assert "403" in message and "None" not in message
    assert "may write only indices matching papers*" in message
    assert f"alias '{outside}'" in message and f"{outside}_locks" in message
    assert f"user {cluster.indexer[0]}" in message
    assert not es.indices.get(index=f"{outside}*", allow_no_indices=True, expand_wildcards="all")

    # The webapp's read-only identity is told it may not write at all.
    web_user, web_password = cluster.web
    result = run_admin(cluster, alias, "reindex", "--no-progress", SEEDS[0], ES_USERNAME=web_user,
                       ES_PASSWORD=web_password)
    assert result.returncode == 1
    assert "may not write any index" in result.stderr and f"user {web_user}" in result.stderr, result.stderr
    assert live(es, alias) is None


def test_loading_the_same_input_twice_changes_nothing(cluster, alias: str) -> None:
    es = cluster.client("admin")
    reindex(cluster, alias, *SEEDS)
    first_index, first = live(es, alias), all_docs(es, alias)
    reindex(cluster, alias, *SEEDS)
    second_index, second = live(es, alias), all_docs(es, alias)
    assert second_index != first_index  # a new version …
    assert second == first  # … with the same ids and the same documents
    assert count(es, alias) == len(first) == 40


def test_documents_the_cluster_refuses_are_reported_like_rejects(cluster, alias: str, tmp_path: Path) -> None:
    """Per-document bulk failures (here: a write block on the live index) are counted, listed in the
    rejects file with file, line and paper id, and make the run exit 3 — nothing is lost silently."""
    es = cluster.client("admin")
    reindex(cluster, alias, *SEEDS)
    index = live(es, alias)
    tag = uuid.uuid4().hex[:8]
    papers = write_jsonl(tmp_path / "blocked.jsonl", [
        {"id": f"blocked-{tag}-{n}", "title": f"Blocked {tag} {n}", "abstract": "Refused by the cluster."}
        for n in range(2)
    ])
    rejects = tmp_path / "rejects.jsonl"
    es.indices.put_settings(index=index, settings={"index.blocks.write": True})
    try:
        result = run_admin(cluster, alias, "add", "--no-progress", "--rejects", rejects, papers)
    finally:
        es.indices.put_settings(index=index, settings={"index.blocks.write": None})
    assert result.returncode == 3, result.stdout + result.stderr
    assert "indexed 0 (0 new, 0 updated), rejected 0, failed 2" in result.stdout
    lines = [json.loads(line) for line in rejects.read_text(encoding="utf-8").splitlines()]
    assert {(r["source"], r["reason"]) for r in lines} == {("blocked.jsonl", "indexing failed")}
    # Each failure names the line its paper came from, and the paper's id.
    assert sorted((r["line"], r["detail"].split(":")[0]) for r in lines) == [
        (1, f"id blocked-{tag}-0"), (2, f"id blocked-{tag}-1")]
    assert all("cluster_block_exception" in r["detail"] for r in lines)


def test_topic_spelling_variants_fold_and_only_true_unknowns_are_noted(cluster, alias: str, tmp_path: Path) -> None:
    variants = [
        ("Social Aspects", "Accountability, Transparency and Interpretability"),
        ("social aspects", "accountability, transparency & interpretability"),
        ("Social Aspects -> Fairness, Equity, Justice and Safety", None),
        ("Reinforcement Learning/Batch/Offline", None),
        ("Miscellaneous Aspects of Machine Learning", "Causality"),
        ("Deep Learning", "Knitting"),
    ]
    records = [{"title": f"Paper {i}", "abstract": f"Abstract {i}.", "topic_area": area, "topic_subarea": sub}
               for i, (area, sub) in enumerate(variants)]
    page = tmp_path / "page.txt"
    page.write_text("Social Aspects > Fairness, Equity, Justice, and Safety\nA listing abstract about fairness.\n",
                    encoding="utf-8")
    result = reindex(cluster, alias, write_jsonl(tmp_path / "topics.jsonl", records), page)
    notes = [line for line in result.stdout.splitlines() if "unknown topic" in line]
    assert notes == ["note: unknown topic kept as given: Deep Learning · Knitting (1 papers)"], result.stdout
    paths = {d["title"] or d["abstract"]: d["topic_path"] for d in all_docs(cluster.client("admin"), alias).values()}
    assert paths == {
        "Paper 0": "Social Aspects > Accountability, Transparency, and Interpretability",
        "Paper 1": "Social Aspects > Accountability, Transparency, and Interpretability",
        "Paper 2": "Social Aspects > Fairness, Equity, Justice, and Safety",
        "Paper 3": "Reinforcement Learning > Batch/Offline",
        "Paper 4": "General Machine Learning > Causality",
        "Paper 5": "Deep Learning > Knitting",
        "A listing abstract about fairness.": "Social Aspects > Fairness, Equity, Justice, and Safety",
    }
