"""A large index's results pages against the real node: the hits with a total counted as far as pages go,
the facets in a request of their own, estimated from a random sample for a search that matches more papers
than can be paged through (config large_index; DECISIONS.md D-102).

The shipped sample stands in for a large index: the service is given thresholds a few dozen papers cross.
"""

from __future__ import annotations

import pytest

from webapp import create_app
from webapp.domain import SearchParams
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

WINDOW = 20  # results that can be paged through: the sample's 40 papers are "more than that"


@pytest.fixture(scope="module")
def small(cluster, sample_alias: str) -> SearchService:
    return SearchService(cluster.client("web"), sample_alias)


@pytest.fixture(scope="module")
def large(cluster, sample_alias: str) -> SearchService:
    config = search_config()
    # 40 papers: facets apart; sampled at 0.5
    config = config.model_copy(update={"max_result_window": WINDOW, "large_index": config.large_index.model_copy(
        update={"above": 10, "sample": 20})})
    return SearchService(cluster.client("web"), sample_alias, config=config)


def sent(service: SearchService, params: SearchParams) -> tuple[object, list[tuple[str, dict]]]:
    """The result and every request the service sent for it (path, body), passed on to the node."""
    requests: list[tuple[str, dict]] = []
    forward = service.client.perform_request

    def record(method: str, path: str, **kwargs):
        requests.append((path.rsplit("/", 1)[-1], kwargs.get("body")))
        return forward(method, path, **kwargs)

    service.client.perform_request = record
    try:
        result = service.search(params)
    finally:
        del service.client.perform_request
    return result, [r for r in requests if r[0] not in ("_mapping", "_count")]


def test_more_papers_than_pages_are_counted_as_a_lower_bound_and_the_facets_estimated(large, small):
    result, requests = sent(large, SearchParams())
    assert not result.total_is_exact and result.total == WINDOW  # "20+"
    assert result.facets_are_estimates
    assert [path for path, _ in requests] == ["_search", "_search"]  # the hits, then the facets
    hits, facets = (body for _, body in requests)
    assert "aggs" not in hits and hits["track_total_hits"] == WINDOW
    assert facets["size"] == 0 and "random_sampler" in facets["aggs"]["sample"]
    assert len(result.hits) == 10 and result.page_count == WINDOW // 10
    # The estimates are counts of the same topics, from about half of the papers.
    exact = {v.value: v.count for v in small.search(SearchParams()).facets[0].values}
    estimated = {v.value: v.count for v in result.facets[0].values}
    assert estimated and set(estimated) <= set(exact)
    assert 0.3 * sum(exact.values()) <= sum(estimated.values()) <= 1.7 * sum(exact.values())


def test_fewer_papers_than_pages_are_counted_exactly_with_exact_facets(large, small):
    params = SearchParams(q="diffusion")
    result, requests = sent(large, params)
    expected = small.search(params)
    assert result.total_is_exact and not result.facets_are_estimates
    assert 0 < result.total < WINDOW and result.total == expected.total
    assert [h.id for h in result.hits] == [h.id for h in expected.hits]
    assert [f.model_dump() for f in result.facets] == [f.model_dump() for f in expected.facets]
    assert "random_sampler" not in str(requests[-1][1])


def test_too_deep_only_beyond_the_window_where_there_are_results(large):
    """Issue 44.6: past the window among more results than pages, "only the first N can be paged"; past the
    results themselves, however deep, the last page is named instead."""
    deep = large.search(SearchParams(page=WINDOW // 10 + 1, size=10))  # 40 papers: some are there
    assert (deep.too_deep, deep.past_last_page, deep.hits, deep.page_count) == (True, False, [], WINDOW // 10)
    few = large.search(SearchParams(q="diffusion", page=WINDOW // 10 + 1, size=10))  # all on the first page
    assert few.total < 10 and (few.too_deep, few.past_last_page, few.page_count) == (False, True, 1)


def test_filters_apply_to_the_hits_and_stay_disjunctive_in_the_facets(large, small):
    params = SearchParams(areas=["Deep Learning"])
    result = large.search(params)
    expected = small.search(params)
    assert result.total == min(expected.total, WINDOW) and {h.topic_area for h in result.hits} == {"Deep Learning"}
    topic = next(f for f in result.facets if f.name == "topic")
    assert len(topic.values) > 1  # other areas are still offered (counted without the topic filter)
    assert next(v for v in topic.values if v.value == "Deep Learning").selected


def test_the_ladder_still_relaxes_and_corrects_on_a_large_index(large):
    result = large.search(SearchParams(q="diffsuion"))
    assert "diffusion" in (result.showing_for, result.did_you_mean) and result.hits
    result = large.search(SearchParams(q="diffsuion", spell=False))
    assert result.did_you_mean == "diffusion"
    assert result.hits


def test_the_page_and_the_api_say_what_is_estimated(cluster, sample_alias: str, large):
    client = create_app(cluster.settings(sample_alias), service=large, rate_limit="off").test_client()
    page = client.get("/?lang=en").get_data(as_text=True)
    assert f"{WINDOW}+ results" in page and "Counts estimated from a sample" in page and "≈" in page
    zh = client.get("/?lang=zh").get_data(as_text=True)
    assert f"共 {WINDOW}+ 条结果" in zh and "抽样" in zh
    body = client.get("/api/search").get_json()
    assert body["total_is_exact"] is False and body["facets_are_estimates"] is True
    exact = client.get("/api/search?q=diffusion").get_json()
    assert exact["total_is_exact"] is True and exact["facets_are_estimates"] is False
