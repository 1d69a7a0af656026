"""In Chromium: a results page links the OpenSearch description and the search's feed; following them gives
valid documents (the Atom schema and feedparser, the OpenSearch specification), the suggestion URL answers in
the OpenSearch format, and neither the links nor the paper page's JSON-LD costs a CSP violation."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from console import no_console_errors
from consumers import opensearch_urls, valid_atom
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def test_results_page_offers_the_search_engine_and_the_feed(page: Page, live_server, artifacts):
    errors = no_console_errors(page)
    page.goto(f"{live_server}/?q=learning&lang=zh")
    search = page.locator("head link[rel=search][type='application/opensearchdescription+xml']")
    alternate = page.locator("head link[rel=alternate][type='application/atom+xml']")
    expect(search).to_have_count(1)
    expect(alternate).to_have_count(1)
    follow = page.get_by_role("link", name="关注此检索（Atom 订阅）")
    expect(follow).to_be_visible()
    assert follow.get_attribute("href") == alternate.get_attribute("href")
    page.screenshot(path=str(artifacts / "20-follow-and-export.png"), full_page=True)

    description = page.request.get(page.evaluate("el => el.href", search.element_handle()))
    assert description.ok and description.headers["content-type"].startswith("application/opensearchdescription+xml")
    urls = opensearch_urls(description.body())
    assert urls["text/html"].startswith(live_server) and "lang=zh" in urls["text/html"]
    suggestions = page.request.get(urls["application/x-suggestions+json"].replace("{searchTerms}", quote("Haoy")))
    assert suggestions.headers["content-type"].startswith("application/x-suggestions+json")
    prefix, texts, kinds, links = json.loads(suggestions.body())
    assert prefix == "Haoy" and "Haoyun Jiang" in texts and len(kinds) == len(links) == len(texts)
    # What a browser does with the template: the search page for the typed words.
    page.goto(urls["text/html"].replace("{searchTerms}", quote("diffusion")))
    expect(page.locator("#results-summary")).to_contain_text(re.compile(r"共 \d+ 条结果"))

    feed = page.request.get(page.evaluate("el => el.href", alternate.element_handle()))
    assert feed.ok and feed.headers["content-type"].startswith("application/atom+xml")
    parsed = valid_atom(feed.body())
    assert parsed.entries and all(e.link.startswith(f"{live_server}/paper/") for e in parsed.entries)
    entry = parsed.entries[0]
    page.goto(entry.link)  # an entry leads to the paper's page
    heading = page.locator("h1").inner_text()
    cited = page.locator("head meta[name=citation_title]")
    if cited.count():
        assert entry.title == heading == cited.get_attribute("content")
    else:  # an untitled record (the sample's listing pages): marked so in the feed, no title in the metadata
        assert entry.title == f"无标题：{heading}"
        expect(page.locator("p.untitled")).to_be_visible()
    assert page.locator("head script[type='application/ld+json']").count() == 1
    assert not errors, errors  # CSP violations would show here


def test_export_links_download_the_results(page: Page, live_server):
    page.goto(f"{live_server}/?q=learning")
    link = page.get_by_role("link", name="Download these results as BibTeX")
    with page.expect_download() as download:
        link.click()
    assert download.value.suggested_filename == "papers.bib"
    assert download.value.path().read_text(encoding="utf-8").startswith("@")
