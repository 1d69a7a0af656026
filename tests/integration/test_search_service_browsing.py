"""SearchService against the real node, browsing: facets and filters, sorting and paging, one paper and the
papers similar to it.

The sample papers plus a few crafted ones (search_service_support.CRAFTED), loaded by the real indexer behind an
alias once per module and analysis profile (tests/integration/conftest.py), searched with the read-only web
identity.
"""

from __future__ import annotations

from search_service_support import _records, big, ids, search

from papersearch.taxonomy import Taxonomy
from webapp.views.facet_labels import labelled_result

# --- facets and filters -------------------------------------------------------------------------------


def _facet(result, name):
    return next(f for f in result.facets if f.name == name)


def test_topic_facet_counts_and_labels(service):
    found = service.search(big())
    # the service names a topic by itself; the view layer puts in its Chinese name (DECISIONS.md D-215)
    assert {(v.label, v.label_zh) for v in _facet(found, "topic").values} == {
        (v.value, v.value) for v in _facet(found, "topic").values}
    result = labelled_result(found, service.config, service.labels)
    topic = _facet(result, "topic")
    expected: dict[str, int] = {}
    for r in _records():
        if r.get("topic_area"):
            expected[r["topic_area"]] = expected.get(r["topic_area"], 0) + 1
    assert {v.value: v.count for v in topic.values} == expected
    dl = next(v for v in topic.values if v.value == "Deep Learning")
    assert dl.label_zh == Taxonomy.load().areas["Deep Learning"]
    llm = next(c for c in dl.children if c.value == "Deep Learning > Large Language Models")
    assert llm.label == "Large Language Models" and llm.label_zh == "大语言模型"
    assert llm.count == sum(1 for r in _records() if r.get("topic_subarea") == "Large Language Models")


def test_area_filter_is_disjunctive(service):
    result = service.search(big(areas=["Applications"]))
    n_apps = sum(1 for r in _records() if r.get("topic_area") == "Applications")
    assert result.total == n_apps
    assert all(h.topic_area == "Applications" for h in result.hits)
    topic = _facet(result, "topic")
    # other areas still show their counts, so the user can add them
    assert len(topic.values) > 1
    assert next(v for v in topic.values if v.value == "Applications").selected
    both = service.search(big(areas=["Applications", "Optimization"]))
    n_opt = sum(1 for r in _records() if r.get("topic_area") == "Optimization")
    assert both.total == n_apps + n_opt
    # the year facet is computed under the topic filter
    years = _facet(result, "year")
    assert sum(v.count for v in years.values) == sum(
        1 for r in _records() if r.get("topic_area") == "Applications" and r.get("year"))


def test_subarea_filter(service):
    path = "Deep Learning > Large Language Models"
    result = service.search(big(areas=["Deep Learning"], subareas=[path]))
    assert result.total == sum(1 for r in _records() if r.get("topic_subarea") == "Large Language Models")
    assert {h.topic_path for h in result.hits} == {path}
    assert all(h.topic_subarea_zh == "大语言模型" for h in result.hits)


def test_year_filter_and_facet(service):
    result = service.search(big(filters={"year": ["2021", "2022"]}))
    assert sorted(ids(result)) == ["t-mixed", "t-script"]
    years = _facet(result, "year")
    values = [v.value for v in years.values]
    assert values == sorted(values, reverse=True)
    assert {v.value for v in years.values if v.selected} == {"2021", "2022"}
    assert {v.value for v in years.values} >= {"2019", "2020", "2023", "2024"}  # disjunctive


def test_venue_facet_is_disjunctive(service):
    result = service.search(big(filters={"venue": ["ICLR"]}))
    assert sorted(ids(result)) == ["t-mixed", "t-script"]
    venues = {v.value: (v.count, v.selected) for v in _facet(result, "venue").values}
    assert venues == {"ICLR": (2, True), "NeurIPS": (1, False), "ICML": (1, False)}  # the others stay, counted
    both = service.search(big(filters={"venue": ["ICLR", "ICML"]}))
    assert sorted(ids(both)) == ["t-aardvark", "t-mixed", "t-script"]
    # the other facets are counted under the venue filter
    assert {v.value: v.count for v in _facet(both, "year").values} == {"2022": 1, "2021": 1, "2020": 1}


def test_year_range(service):
    result = service.search(big(ranges={"year_from": 2020, "year_to": 2022}))
    assert sorted(ids(result)) == ["t-aardvark", "t-mixed", "t-script"]
    year = _facet(result, "year")
    assert (year.range.low, year.range.high) == (2020, 2022)
    assert (year.range.min, year.range.max) == (2019, 2024)  # the span without the year filter
    assert sorted(ids(service.search(big(ranges={"year_from": 2023})))) == ["t-cv-zh", "t-llm-zh"]
    assert ids(service.search(big(ranges={"year_to": 2019}))) == ["t-graph"]
    # a range and chosen years both apply
    assert ids(service.search(big(filters={"year": ["2019", "2021"]}, ranges={"year_from": 2020}))) == ["t-script"]


def test_selected_value_without_hits_stays_visible(service):
    result = service.search(big(q="zebra", areas=["Applications"]))
    assert result.total == 0
    assert next(v for v in _facet(result, "topic").values if v.value == "Applications").selected


# --- sorting and paging -------------------------------------------------------------------------------


def test_sort_by_year(service):
    result = service.search(big(sort="year"))
    years = [h.year for h in result.hits if h.year is not None]
    assert years == sorted(years, reverse=True) and years[0] == 2024
    assert result.hits[-1].year is None  # missing years last


def test_sort_by_title(service):
    result = service.search(big(sort="title"))
    headings = [h.heading.casefold() for h in result.hits]
    assert [h for h in headings if h.isascii()] == sorted(h for h in headings if h.isascii())
    assert ids(result).index("t-aardvark") < ids(result).index("t-graph")  # Aardvark … < Zebra …


def test_pagination_and_too_deep(service):
    first = search(service, page=1, size=10)
    second = search(service, page=2, size=10)
    assert len(first.hits) == 10 and not set(ids(first)) & set(ids(second))
    assert first.page_count == -(-first.total // 10)
    last = search(service, page=first.page_count, size=10)
    assert len(last.hits) == first.total - 10 * (first.page_count - 1)
    deep = search(service, page=1001, size=10)  # beyond the window, and beyond the results: past the last page
    assert deep.past_last_page and not deep.too_deep and deep.hits == [] and deep.total == first.total
    assert deep.facets  # facets still there, for narrowing down


def test_too_many_words_are_searched_cut(service):
    """More words than query_cost.max_clauses are not refused: the first ones are searched, and the result says
    what was (DECISIONS.md D-168)."""
    words = [f"w{i}" for i in range(40)]
    result = search(service, q=" ".join(words))
    assert result.searched is not None and result.searched.split() == words[:len(result.searched.split())]
    assert len(result.searched.split()) < len(words)


# --- similar, single paper ----------------------------------------------------------------------------


def test_similar(service):
    llm_ids = [r["id"] for r in _records() if r.get("topic_subarea") == "Computer Vision" and r.get("abstract")]
    similar = service.papers.similar(llm_ids[0], size=5)
    assert similar and llm_ids[0] not in ids_of(similar)
    assert service.papers.similar("no-such-paper") == []


def test_paper_page_looks_up_once_what_get_paper_and_similar_give(service):
    paper_id = next(r["id"] for r in _records() if r.get("topic_subarea") == "Computer Vision" and r.get("abstract"))
    paper, similar = service.papers.paper_and_similar(paper_id, size=5)
    assert paper == service.papers.get_paper(paper_id)
    assert ids_of(similar) == ids_of(service.papers.similar(paper_id, size=5)) and similar
    assert service.papers.paper_and_similar("no-such-paper") == (None, [])


def ids_of(hits) -> list[str]:
    return [h.id for h in hits]


def test_get_paper(service):
    paper = service.papers.get_paper("t-script")
    assert paper is not None
    assert paper.authors == ["Søren Hauberg", "Ada Lovelace"]
    assert paper.snippet_html.startswith("We show that &lt;script&gt;")
    assert "<mark>" not in paper.snippet_html
    assert paper.topic_subarea_zh == Taxonomy.load().subareas[("Social Aspects", "Security")]
    assert service.papers.get_paper("no-such-paper") is None
