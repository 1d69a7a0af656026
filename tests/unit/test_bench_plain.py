"""The cost benchmark's anchors (bench/plain.py) compare like with like (issue 56.1): the treated anchor counts its
total and its facets as our page does — ours built by the webapp's own plan and renderer, no node — the translated
anchor ORs the glossary's forms, the corrected one searches the corrected words; and the benchmark finds the node's
process by the node's own id (issue 56.4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from werkzeug.datastructures import MultiDict

from bench import processes
from bench.plain import Treatment, anchors, plain_query
from papersearch.concepts import matcher
from webapp.controllers.params import RequestArgs
from webapp.services.bodies import render
from webapp.services.plan import ladder as plan
from webapp.services.plan.requests import Live
from webapp.services.query.parser import parse_query
from webapp.services.search_settings import search_config

CONFIG = search_config()


def ours(q: str, papers: int, total_exact: bool) -> tuple[list[dict], object]:
    """The bodies our service sends for a page of q on an index of `papers` (its plan's as_typed page, and on a
    large index the facets request), and the parameters."""
    params = RequestArgs(CONFIG).search(MultiDict({"q": q}), api=True)
    search = plan.Search(parse_query(q), params, CONFIG, live=Live(papers=papers))
    page = search.page("as_typed", search.words.text(False))
    facets = search.facets(page, total_exact)
    return [render.body(r, CONFIG) for r in (page, facets) if r], params


def test_on_a_large_index_the_treated_anchor_caps_and_samples_as_our_page() -> None:
    bodies, params = ours("learning", 1_000_000, total_exact=False)
    page, facets = bodies
    sampler = facets["aggs"][render.SAMPLE_AGG]["random_sampler"]
    assert sampler["probability"] < 1  # the case that matters: our facets are estimated from a sample
    found = anchors("learning", params, CONFIG, Treatment.of(bodies), matcher())
    hits, sampled = found["treated"]
    assert hits["track_total_hits"] == page["track_total_hits"] == CONFIG.max_result_window
    assert "aggs" not in hits
    assert sampled["aggs"][render.SAMPLE_AGG]["random_sampler"] == sampler
    assert sampled["aggs"][render.SAMPLE_AGG]["aggs"] == CONFIG.faceted.aggregations(CONFIG.faceted.filters(params))
    assert sampled["size"] == 0 and sampled["track_total_hits"] is False
    assert found["plain"][0]["track_total_hits"] is True  # today's plain request counts everything exactly


def test_an_exact_large_page_is_matched_unsampled_and_a_small_index_as_plain() -> None:
    bodies, params = ours("graph neural networks", 1_000_000, total_exact=True)
    hits, facets = anchors("graph neural networks", params, CONFIG, Treatment.of(bodies), matcher())["treated"]
    assert hits["track_total_hits"] == bodies[0]["track_total_hits"]
    assert render.SAMPLE_AGG not in facets["aggs"] and render.SAMPLE_AGG not in bodies[1]["aggs"]
    small, params = ours("learning", 13_033, total_exact=True)
    assert len(small) == 1 and small[0]["track_total_hits"] is True
    found = anchors("learning", params, CONFIG, Treatment.of(small), matcher())
    assert found["treated"] == found["plain"]


def test_a_cross_language_query_is_anchored_on_its_glossary_forms_as_phrases() -> None:
    bodies, params = ours("深度学习 方法", 13_033, total_exact=True)
    found = anchors("深度学习 方法", params, CONFIG, Treatment.of(bodies), matcher())
    text = json.dumps(found["translated"][0]["query"], ensure_ascii=False)
    concept = matcher().concepts["deep_learning"]
    for form in (*concept.en[:CONFIG.cross_lingual.max_forms], *concept.zh[:CONFIG.cross_lingual.max_forms]):
        assert json.dumps({"query": form}, ensure_ascii=False)[1:-1] in text
    must = found["translated"][0]["query"]["bool"]["must"]
    assert must[0] == {"multi_match": {"query": "方法", "fields": must[0]["multi_match"]["fields"], "operator": "and"}}
    assert {"type": "phrase"}.items() <= must[1]["bool"]["should"][1]["multi_match"].items()
    assert "corrected" not in found
    assert "translated" not in anchors("qwxzv", params, CONFIG, Treatment.of(bodies), matcher())


def test_a_corrected_query_is_anchored_on_the_corrected_words() -> None:
    bodies, params = ours("stochastik optimisation", 13_033, total_exact=True)
    found = anchors("stochastik optimisation", params, CONFIG, Treatment.of(bodies), matcher(),
                    corrected="stochastic optimization")
    assert found["corrected"][0]["query"] == plain_query(parse_query("stochastic optimization"))


def test_the_node_pid_is_the_one_recorded_for_the_node_at_that_port(tmp_path: Path) -> None:
    state = {"nodes": []}
    for number, port in ((1, 9200), (2, 9201)):
        logs = tmp_path / f"node-{number}"
        logs.mkdir()
        (logs / "node.pid").write_text(f"{4000 + number}\n")
        state["nodes"].append({"name": f"n{number}", "http_port": port, "logs": str(logs)})
    assert processes.pid_from_state(state, "http://127.0.0.1:9201") == 4002
    assert processes.pid_from_state(state, "http://127.0.0.1:9200") == 4001
    assert processes.pid_from_state(state, "http://127.0.0.1:9300") is None
    assert processes.pid_from_state({"port": 9200}, "http://127.0.0.1:9200") is None


def test_a_node_on_another_machine_has_no_process_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ES_URL", "http://search.example:9200")
    assert processes.es_process() is None
