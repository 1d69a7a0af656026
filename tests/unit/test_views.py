"""URL and label helpers of the pages (webapp/views) and the rate-limit setting."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from flask import Flask

from webapp.domain import Facet, FacetValue, SearchParams, SearchResult, Suggestion
from webapp.headers_and_limits import rate_limit_spec
from webapp.services.search_settings import search_config
from webapp.views.facets import selected_filters, unknown_filters
from webapp.views.links import SearchLinks, suggestion_url

CONFIG = search_config()


def links(**params) -> SearchLinks:
    return SearchLinks("/", SearchParams(**params), CONFIG)


def qs(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_default_sort_and_size_stay_out_of_urls():
    assert links(q="x").query("graph") == "/?q=graph"
    assert qs(links(q="x", sort="year", size=25).page(2)) == {
        "q": ["x"], "sort": ["year"], "size": ["25"], "page": ["2"]}


def test_filter_changes_reset_the_page():
    link = links(q="x", page=3, areas=["Theory"])
    assert qs(link.toggle("year", 2020)) == {"q": ["x"], "area": ["Theory"], "year": ["2020"]}
    assert qs(link.toggle("area", "Theory")) == {"q": ["x"]}
    assert link.clear_filters() == "/?q=x"


def test_terms_facets_and_ranges_in_urls():
    link = links(q="x", filters={"venue": ["ICLR"], "year": ["2020"]}, ranges={"year_from": 2019, "year_to": 2022})
    assert qs(link.toggle("venue", "NeurIPS")) == {
        "q": ["x"], "venue": ["ICLR", "NeurIPS"], "year": ["2020"], "year_from": ["2019"], "year_to": ["2022"]}
    assert qs(link.toggle("venue", "ICLR")) == {
        "q": ["x"], "year": ["2020"], "year_from": ["2019"], "year_to": ["2022"]}
    assert qs(link.toggle("year_from", 2019)) == {
        "q": ["x"], "venue": ["ICLR"], "year": ["2020"], "year_to": ["2022"]}
    assert link.add("venue", "ICLR") == link.page(1)  # already selected: no change
    assert link.hidden_filters("year_from", "year_to") == [("venue", "ICLR"), ("year", "2020")]
    assert link.clear_filters() == "/?q=x"
    with pytest.raises(ValueError, match="unknown filter"):
        link.toggle("colour", "red")


def test_dropping_an_area_drops_its_subareas():
    link = links(areas=["Theory"], subareas=["Theory > Deep Learning", "Deep Learning > Theory"])
    assert qs(link.toggle("area", "Theory")) == {"subarea": ["Deep Learning > Theory"]}


def test_page_numbers_with_gaps():
    assert links(page=6).page_numbers(12) == [1, None, 4, 5, 6, 7, 8, None, 12]
    assert links(page=1).page_numbers(4) == [1, 2, 3, 4]


def test_suggestion_urls():
    app = Flask(__name__)
    app.add_url_rule("/", "ui.search")
    app.add_url_rule("/paper/<path:paper_id>", "ui.paper")
    app.add_url_rule("/author/<path:name>", "ui.author")
    with app.test_request_context():
        assert suggestion_url(Suggestion(text="A title", kind="title", id="p-1")) == "/paper/p-1"
        assert suggestion_url(Suggestion(text="Ada Lovelace", kind="author")) == "/author/Ada%20Lovelace"


def test_filter_chips_are_labelled_in_the_ui_language():
    theory = FacetValue(value="Theory", label="Theory", label_zh="理论", count=3, selected=True, children=[
        FacetValue(value="Theory > Deep Learning", label="Deep Learning", label_zh="深度学习", count=1,
                   selected=True)])
    params = SearchParams(areas=["Theory", "Gone"], subareas=["Theory > Deep Learning"],
                          filters={"year": ["2020"], "venue": ["ICLR"]}, ranges={"year_from": 2019})
    result = SearchResult(params=params, total=1, took_ms=1, hits=[], page_count=1,
                          facets=[Facet(name="topic", param="area", values=[theory])])
    assert selected_filters(result, CONFIG, "zh") == [
        ("area", "Theory", "理论"), ("area", "Gone", "Gone"),
        ("subarea", "Theory > Deep Learning", "理论 · 深度学习"), ("venue", "ICLR", "ICLR"), ("year", "2020", "2020"),
        ("year_from", "2019", "年份：2019 起")]
    assert selected_filters(result, CONFIG, "en")[-1] == ("year_from", "2019", "Year from 2019")


def test_values_no_paper_has_are_left_out_of_every_link():
    """Issue 53.6: the facets show every selected value some paper has; the others are in no link."""
    theory = FacetValue(value="Theory", label="Theory", label_zh="理论", count=3, selected=True, children=[
        FacetValue(value="Theory > Deep Learning", label="Deep Learning", label_zh="深度学习", count=1,
                   selected=True)])
    iclr = FacetValue(value="ICLR", label="ICLR", label_zh="ICLR", count=2, selected=True)
    params = SearchParams(q="x", areas=["Theory", "Gone"], subareas=["Theory > Deep Learning", "Theory > Junk"],
                          filters={"venue": ["ICLR", "v" * 300]})
    result = SearchResult(params=params, total=1, took_ms=1, hits=[], page_count=1,
                          facets=[Facet(name="topic", param="area", values=[theory]),
                                  Facet(name="venue", param="venue", values=[iclr])])
    unknown = unknown_filters(result, CONFIG)
    assert unknown == {("area", "Gone"), ("subarea", "Theory > Junk"), ("venue", "v" * 300)}
    link = SearchLinks("/", params, CONFIG, ignored=unknown)
    kept = {"q": ["x"], "area": ["Theory"], "subarea": ["Theory > Deep Learning"], "venue": ["ICLR"]}
    assert qs(link.page(2)) == kept | {"page": ["2"]} and qs(link.toggle("year", 2020)) == kept | {"year": ["2020"]}
    assert qs(link.toggle("venue", "v" * 300)) == kept  # its chip's link: the page without it
    assert link.ignores("venue", "v" * 300) and not link.ignores("venue", "ICLR")
    assert ("venue", "v" * 300) not in link.hidden_filters()
    assert unknown_filters(result.model_copy(update={"facets": []}), CONFIG) == frozenset()  # nothing read


@pytest.mark.parametrize(("spec", "expected"), [
    ("120/minute", "120/minute"), (" 10/second ", "10/second"), ("1000/5minutes", "1000/5minutes"),
    ("off", None), ("0", None), ("", None)])
def test_rate_limit_spec(spec, expected):
    assert rate_limit_spec(spec) == expected


def test_bad_rate_limit_names_the_variable():
    with pytest.raises(ValueError, match="PAPERSEARCH_RATE_LIMIT"):
        rate_limit_spec("lots")
