"""Browser runs for the venue facet, the year range, citation export and the partial-match notice (issue 13).

The venue and year tests use tests/fixtures/venue-papers.jsonl (9 papers: ICLR ×3, ICML ×2, NeurIPS ×2,
CVPR, a Chinese journal; 2019–2024); the notice uses the shipped sample."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from accessibility import violations, with_axe
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def summary_count(page: Page) -> int:
    return int(re.search(r"of (\d+) results", page.locator("#results-summary").inner_text()).group(1))


def hit_years(page: Page) -> list[int]:
    return [int(y) for y in page.locator(".hit .year").all_inner_texts()]


def test_venue_facet_is_disjunctive_with_chips(page: Page, venue_server, artifacts):
    page.goto(venue_server + "/")
    expect(page.get_by_role("heading", name="Venue")).to_be_visible()
    venue = page.locator("#filters section[aria-labelledby=facet-venue]")
    venue.locator("a.facet-value", has_text="ICLR").click()
    expect(page).to_have_url(re.compile(r"venue=ICLR"))
    expect(page.locator("#results-summary")).to_contain_text("of 3 results")
    # disjunctive: the other venues stay, with their own counts, and add up
    icml = venue.locator("a.facet-value", has_text="ICML")
    expect(icml.locator(".count")).to_have_text("2")
    icml.click()
    expect(page.locator("#results-summary")).to_contain_text("of 5 results")
    expect(venue.locator("a.facet-value[aria-checked=true]")).to_have_count(2)
    assert set(page.locator(".hit .venue").all_inner_texts()) == {"ICLR", "ICML"}
    page.screenshot(path=str(artifacts / "20-venue-facet.png"), full_page=True)
    page.get_by_role("link", name="Remove filter: ICLR").click()
    expect(page.locator("#results-summary")).to_contain_text("of 2 results")
    expect(page).to_have_url(re.compile(r"venue=ICML"))


def test_year_range_form_chips_and_chinese_labels(page: Page, venue_server, artifacts):
    page.goto(venue_server + "/?venue=ICLR&venue=NeurIPS")
    form = page.get_by_role("form", name="Year range")
    expect(form.get_by_label("From")).to_have_attribute("placeholder", "2019")
    expect(form.get_by_label("To")).to_have_attribute("placeholder", "2024")
    form.get_by_label("From").fill("2020")
    form.get_by_label("To").fill("2022")
    form.get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"venue=ICLR&venue=NeurIPS&year_from=2020&year_to=2022"))
    expect(page.locator("#results-summary")).to_contain_text("of 3 results")
    assert all(2020 <= y <= 2022 for y in hit_years(page)) and len(hit_years(page)) == 3
    expect(page.get_by_role("link", name="Remove filter: Year from 2020")).to_be_visible()
    expect(form.get_by_label("From")).to_have_value("2020")
    page.screenshot(path=str(artifacts / "21-year-range.png"), full_page=True)
    page.get_by_role("link", name="Remove filter: Year until 2022").click()
    expect(page).not_to_have_url(re.compile(r"year_to"))
    expect(page.locator("#results-summary")).to_contain_text("of 4 results")  # ICLR 2020/22/24, NeurIPS 2022
    page.get_by_role("link", name="中文").click()
    expect(page.get_by_role("heading", name="会议/期刊")).to_be_visible()
    expect(page.locator(".chip-removable", has_text="年份：2020 起")).to_be_visible()
    expect(page.get_by_role("form", name="年份范围")).to_be_visible()


def test_year_range_without_javascript(browser, venue_server):
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(venue_server + "/?q=diffusion")
        form = page.get_by_role("form", name="Year range")
        form.get_by_label("From").fill("2023")
        form.get_by_role("button", name="Apply").click()
        expect(page).to_have_url(re.compile(r"q=diffusion&year_from=2023"))
        assert hit_years(page) == [2023]
    finally:
        context.close()


def test_citation_copy_and_downloads(browser, venue_server, artifacts):
    context = browser.new_context(locale="en-US")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=venue_server)
    page = context.new_page()
    try:
        page.goto(venue_server + "/paper/v-icml-2023")
        bibtex = page.locator("#cite-bibtex")
        expect(bibtex).to_contain_text("@inproceedings{dijkstra2023qa,")
        expect(bibtex).to_contain_text(r"title = {{Q\&A} over tables at 50\% cost}")  # Q&A keeps its case
        page.get_by_role("button", name="Copy BibTeX").click()
        expect(page.locator("#cite-status")).to_have_text("BibTeX copied to the clipboard.")
        assert page.evaluate("navigator.clipboard.readText()") == bibtex.inner_text()
        page.screenshot(path=str(artifacts / "22-citation.png"), full_page=True)
        with page.expect_download() as info:
            page.get_by_role("link", name="Download RIS").click()
        download = info.value
        assert download.suggested_filename == "dijkstra2023qa.ris"
        ris = Path(download.path()).read_bytes().decode("utf-8")  # as sent: CRLF line ends
        assert ris.startswith("TY  - CPAPER\r\nID  - dijkstra2023qa\r\nTI  - Q&A over tables at 50% cost\r\n")
        with page.expect_download() as info:
            page.get_by_role("link", name="Download BibTeX").click()
        assert info.value.suggested_filename == "dijkstra2023qa.bib"
        # a Chinese paper: the key is ASCII, the text stays Chinese
        page.goto(venue_server + "/paper/v-zh-2024?lang=zh")
        expect(page.locator("#cite-bibtex")).to_contain_text("@article{zhang2024dayu,")  # a 学报: a journal
        expect(page.locator("#cite-bibtex")).to_contain_text("title = {基于大语言模型的论文检索}")
        expect(page.get_by_role("button", name="复制 BibTeX")).to_be_visible()
    finally:
        context.close()


def test_the_copy_button_needs_javascript(browser, venue_server):
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(venue_server + "/paper/v-icml-2023")
        expect(page.get_by_role("button", name="Copy BibTeX")).to_be_hidden()
        expect(page.locator("#cite-bibtex")).to_be_visible()  # the text is there to select by hand
    finally:
        context.close()


def test_partial_match_notice_and_missing_words(page: Page, live_server, artifacts):
    page.goto(live_server + "/?q=language+models+qqxqzzjjwv")
    notice = page.locator(".partial-match")
    expect(notice).to_have_text("No paper contains all of your words. Showing papers that contain most of them.")
    expect(page.locator(".hit").first.locator(".hit-missing")).to_have_text("Missing: qqxqzzjjwv")
    page.screenshot(path=str(artifacts / "23-partial-match.png"), full_page=True)
    page.goto(live_server + "/?q=language+models+qqxqzzjjwv&lang=zh")
    expect(page.locator(".partial-match")).to_contain_text("没有论文包含全部检索词")
    expect(page.locator(".hit").first.locator(".hit-missing")).to_have_text("缺少：qqxqzzjjwv")
    page.goto(live_server + "/?q=language+models")
    expect(page.locator(".partial-match")).to_have_count(0)


@pytest.mark.parametrize("path", ["/?venue=ICLR&year_from=2020", "/paper/v-icml-2023",
                                  "/?q=retrieval+qqxqzzjjwv"])
def test_new_parts_pass_axe(browser, venue_server, path):
    context = with_axe(browser.new_context(locale="en-US"))
    page = context.new_page()
    try:
        page.goto(venue_server + path)
        assert violations(page) == []
    finally:
        context.close()
