"""Search relevance on the shipped sample (relevance): the query set runs through the webapp's
SearchService as the web user, on both analysis profiles, and must stay above measured thresholds.

Measured with the tuned builders (relevance/RESULTS.md): plugin MRR@10 0.991, zero-result rate 0;
core MRR@10 0.965, zero-result rate 0.018 (2 of 113: inflections the core profile cannot stem). The core
thresholds are a little below that so a harmless re-ordering does not fail the build, and well above
the plain multi_match baseline (plugin 0.919, core 0.878).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from support import SAMPLE, loaded_alias

from papersearch.taxonomy import Taxonomy
from relevance import evaluate as ev

# (min MRR@10, max zero-result rate) for the profile an index was actually built with.
THRESHOLDS = {
    "plugin": (0.98, 0.0),  # issue 13: the sample set stays >= 0.98 (measured 0.996)
    "core": (0.93, 0.03),  # measured 0.965 / 0.018; no stemming, so a few inflections find nothing
}
KINDS = {"paraphrase", "stem", "word", "typo", "author", "topic_zh", "mixed", "short"}


def _papers() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- the query set itself (no cluster needed) ------------------------------------------------------------


def test_query_set_is_well_formed():
    queries = ev.load_queries()
    ids = {p["id"] for p in _papers()}
    assert len(queries) >= 40
    assert {q["kind"] for q in queries} == KINDS
    for q in queries:
        assert q["q"].strip() and q["why"].strip(), q["id"]
        assert set(q["expected"]) <= ids, q["id"]
        assert len(set(q["expected"])) == len(q["expected"]), q["id"]
    # every paper is the target of at least one paraphrase
    assert {pid for q in queries if q["kind"] == "paraphrase" for pid in q["expected"]} == ids - {
        p["id"] for p in _papers() if not p["abstract"]}


def test_topic_queries_expect_every_paper_of_the_topic():
    taxonomy = Taxonomy.load()
    labels = {p["id"]: taxonomy.labels_zh(p.get("topic_area"), p.get("topic_subarea")) for p in _papers()}
    for q in (q for q in ev.load_queries() if q["kind"] == "topic_zh"):
        topic = {pid for pid, ls in labels.items() if any(q["topic_label"] in label for label in ls)}
        assert topic and set(q["expected"]) == topic, q["id"]


# --- against the node --------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["auto", "core"])
def evaluation(request, cluster, admin: Elasticsearch) -> Iterator[tuple[str, dict]]:
    """(profile used, {system: [QueryResult]}) for ours and the baseline on a fresh sample index."""
    with loaded_alias(cluster, "paperstest_relevance", [SAMPLE],
                      PAPERSEARCH_ANALYSIS_PROFILE=request.param) as (name, report):
        yield report.profile, ev.evaluate(cluster.client("web"), name, ev.load_queries(), with_baseline=True)


def _misses(results) -> str:
    return "; ".join(f"{r.id} {r.q!r} -> {r.first_rank or ('no hits' if r.total == 0 else 'not in top 10')}"
                     for r in results if r.rr < 1)


def test_mrr_and_zero_results(evaluation):
    profile, systems = evaluation
    min_mrr, max_zero = THRESHOLDS[profile]
    ours = ev.summarize("ours", systems["ours"])
    assert ours.mrr >= min_mrr, f"{profile}: {ours.line()}; misses: {_misses(systems['ours'])}"
    assert ours.zero_rate <= max_zero, f"{profile}: {ours.line()}; misses: {_misses(systems['ours'])}"


def test_every_chinese_topic_query_finds_its_topic(evaluation):
    profile, systems = evaluation
    for r in (r for r in systems["ours"] if r.kind == "topic_zh"):
        assert r.first_rank is not None, f"{profile}: {r.q} finds no paper of its topic in the top 10 ({r.top})"


def test_better_than_the_plain_baseline(evaluation):
    profile, systems = evaluation
    ours, base = ev.summarize("ours", systems["ours"]), ev.summarize("baseline", systems["baseline"])
    assert ours.mrr > base.mrr and ours.zero_rate <= base.zero_rate, f"{profile}: {ours.line()} vs {base.line()}"
    # typos and author names are where the fuzzy fallback and author handling earn their keep
    for kind in ("typo", "author"):
        assert ours.by_kind[kind]["mrr"] >= base.by_kind[kind]["mrr"], (profile, kind)


def test_a_typo_does_not_push_the_paper_down(evaluation):
    # Papers with every word once a typo is forgiven rank above those with only some of the words
    # (the relaxed request's second tier); measured 1.00 on both profiles.
    profile, systems = evaluation
    typos = [r for r in systems["ours"] if r.kind == "typo"]
    assert all(r.rr == 1 for r in typos), f"{profile}: {_misses(typos)}"
