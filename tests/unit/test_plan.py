"""The search plan (webapp/services/plan/ladder.py) and its one renderer (webapp/services/bodies/render.py)."""

from __future__ import annotations

import json

import bodies
import pytest

from papersearch import concepts
from webapp.domain import SearchParams
from webapp.services.bodies import clauses as cl
from webapp.services.bodies import render
from webapp.services.plan import ladder as plan
from webapp.services.plan.describe import describe
from webapp.services.plan.requests import Option
from webapp.services.query import expansion as xp
from webapp.services.query.parser import parse_query
from webapp.services.search_settings import WebSearchConfig, search_config

CONFIG = search_config()


@pytest.fixture(scope="module")
def matcher() -> concepts.ConceptMatcher:
    return concepts.matcher()


def searched(q: str, matcher=None, **params) -> plan.Search:
    parsed = parse_query(q)
    xl = CONFIG.cross_lingual
    found = xp.expansions(parsed.terms, matcher, xl.max_forms, xl.max_concepts) if matcher else []
    return bodies.searched(parsed, SearchParams(q=q, **params), CONFIG, found)


def planned(q: str, matcher=None, **params) -> plan.Page:
    return searched(q, matcher, **params).as_typed()[0]


def with_rescore(window: int) -> WebSearchConfig:
    return CONFIG.model_copy(update={"rescore": CONFIG.rescore.model_copy(update={"window": window})})


def test_describe_shows_words_concepts_closeness_and_filters(matcher):
    page, count, _ = searched("图神经网络 方法", matcher, filters={"year": ["2024"]}).as_typed()
    text = describe(page)
    assert text.startswith("as_typed: sort relevance, page 1 x 10, filters year=2024")
    assert "0: '图神经网络' or concept graph_neural_network" in text and "1: '方法'" in text
    assert "only the concepts graph_neural_network" in text  # English papers need only the concept
    assert "closeness of 图神经网络 方法 rewarded" in text and "2 of 2 required" in text
    assert describe(count).startswith("count: the words as typed, in their own language, up to 10 papers")
    relaxed = bodies.searched(parse_query("stochastik optimisation")).relaxed(True)
    assert "relaxed" in describe(relaxed) and "~typos (text)" in describe(relaxed)


def test_the_as_typed_count_stops_at_the_ladder_threshold_under_the_filters(matcher):
    _, counted, _ = searched("图神经网络 方法", matcher, filters={"year": ["2024"]}).as_typed()
    count = render.body(counted, CONFIG)
    assert count["size"] == 0 and count["track_total_hits"] == CONFIG.relaxation.below
    as_typed, year = count["query"]["bool"]["filter"]
    assert year == {"terms": {"year": ["2024"]}}
    assert "languages" not in json.dumps(as_typed)  # the words in their own language only
    assert searched("diffusion", matcher).as_typed()[1] is None  # nothing to count apart


def test_closeness_is_a_rescore_of_the_first_results_when_sorted_by_score():
    config = with_rescore(100)
    body = render.body(planned("graph neural networks"), config)
    assert "sort" not in body  # Elasticsearch takes no sort beside a rescore
    assert body["rescore"]["window_size"] == 100
    assert body["rescore"]["query"]["rescore_query"] == cl.proximity_boost(["graph", "neural", "networks"], config)
    assert "phrase" not in json.dumps(body["query"])  # the closeness clauses left the query
    by_year = render.body(planned("graph neural networks", sort="year"), config)
    assert "rescore" not in by_year and by_year["sort"] == config.sorts["year"]
    assert "phrase" in json.dumps(by_year["query"])
    assert "rescore" not in render.body(planned("graph"), config)  # one word: nothing to reward
    off = render.body(planned("graph neural networks"), with_rescore(0))
    assert "rescore" not in off and off["sort"] == CONFIG.sorts["relevance"]


def test_only_requests_without_words_are_cached():
    assert planned("").cacheable and planned("", areas=["Deep Learning"]).cacheable
    assert not planned("graph").cacheable and not planned("-graph").cacheable
    assert not planned('author:"Søren Hauberg"').cacheable


def test_the_did_you_mean_check_counts_without_scoring_clauses():
    check = render.body(searched("graph networks").check(parse_query("graph networks")), CONFIG)
    assert check["size"] == 0 and check["track_total_hits"] == 1
    assert "phrase" not in json.dumps(check)  # closeness only orders; a count needs none


def test_highlight_marks_the_concepts_other_forms_on_the_highlighted_fields(matcher):
    p = planned("对比学习", matcher)
    should = render.highlight_query(p.highlight, CONFIG)["bool"]["should"]
    forms = [c["multi_match"] for c in should if c["multi_match"].get("type") == "phrase"]
    assert any(f["query"].casefold() == "contrastive learning" for f in forms)
    assert all(set(f["fields"]) <= set(render.highlighted_fields(CONFIG)) for f in forms)
    assert not any("authors" in f["fields"] for f in forms)


def test_or_makes_one_word_of_alternatives():
    # "diffusion OR GAN": one clause that either word satisfies, not both words required (issue 44.5).
    text = planned("diffusion OR GAN model").text
    assert [w.text for w in text.words] == ["diffusion", "model"] and text.required == 2
    assert [a.text for a in text.words[0].alternatives] == ["GAN"]
    body = json.dumps(render.body(planned("diffusion OR GAN"), CONFIG), ensure_ascii=False)
    assert '"query": "GAN"' in body and '"query": "diffusion"' in body and "OR" not in body.replace('"or"', "")


def test_a_greek_letter_is_searched_in_each_spelling():
    word, = planned("α-divergence").text.words
    assert [a.text for a in word.alternatives] == ["alpha-divergence"]


def test_a_british_spelling_is_searched_as_the_american_one_too():
    # normalisation found 9 papers: the papers spell it normalization (issue 42.3)
    word, = planned("normalisation").text.words
    assert [a.text for a in word.alternatives] == ["normalization"]
    assert not planned("normalization").text.words[0].alternatives


def test_the_function_words_of_a_question_are_no_words_to_match():
    # "when" is in no topic: required, it kept only papers that happen to say it (D-173)
    text = planned("exploration when rewards are sparse").text
    assert [w.text for w in text.words] == ["exploration", "rewards", "sparse"] and text.required == 3
    assert [w.text for w in planned("how").text.words] == ["how"]  # all there is: searched


def test_a_name_like_word_is_corrected_to_an_author():
    # Hintn: hints (abstracts) and Hinton (authors) are as close; typed as a name, it is the name (issue 44.8).
    options = {"hintn": [Option("hints", 0.8, 7), Option("hinton", 0.8, 5, author=True)]}
    _, fixed = searched("Hintn").corrections({"hintn": 0}, options)
    assert fixed is not None and fixed.to_string() == "Hinton"
    _, fixed = searched("hintn").corrections({"hintn": 0}, options)
    assert fixed is not None and fixed.to_string() == "hints"
