"""axe-core on every kind of page, in both languages: no WCAG 2.1 A/AA violation, no serious or critical
best-practice finding (tests/browser/accessibility.py)."""

from __future__ import annotations

import pytest
from accessibility import violations, with_axe
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PAGES = {
    "search, empty": "/",
    "search, results and facets": "/?q=learning",
    "search, filter chips": "/?q=learning&area=Theory&year=2024",
    "search, a filter no paper has": "/?q=learning&area=Theory&venue=No+Such+Venue",  # its chip struck through
    "search, no results": "/?q=qqxqzzjjwv",
    "paper": None,  # the first hit's page, found through the search
    "error": "/no/such/page",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_passes_axe(browser, live_server, lang):
    html_lang = "zh-CN" if lang == "zh" else "en"
    context = with_axe(browser.new_context(locale="zh-CN" if lang == "zh" else "en-US"))
    page = context.new_page()
    found = {}
    try:
        for what, path in PAGES.items():
            if path is None:
                page.goto(f"{live_server}/?q=diffusion&lang={lang}")
                page.locator(".hit-title a").first.click()
                expect(page.locator("h1")).to_be_visible()
            else:
                page.goto(f"{live_server}{path}{'&' if '?' in path else '?'}lang={lang}")
            expect(page.locator("html")).to_have_attribute("lang", html_lang)
            found[what] = violations(page)
    finally:
        context.close()
    assert set(found) == set(PAGES)
    assert {what: v for what, v in found.items() if v} == {}
