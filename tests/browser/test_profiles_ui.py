"""Issue 34 in Chromium, on the shared profile papers (tests/conftest.py `profile_alias`): the papers-per-year chart
by keyboard (one tab stop, arrows between bars, Enter chooses, a second bar makes a span), and the results,
author and topic pages at phone width in both languages: axe-core clean, nothing wider than the screen, no
console error. Screenshots in test-artifacts/ (34-*.png)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from accessibility import violations, with_axe
from conftest import serving
from console import no_console_errors
from playwright.sync_api import Page, expect

from webapp import create_app

pytestmark = pytest.mark.browser

PAGES = {"results": "/?q=language", "author": f"/author/{quote('张伟')}",
         "topic": "/topic/deep-learning/large-language-models"}


@pytest.fixture(scope="module")
def profile_server(cluster, profile_alias) -> Iterator[str]:
    with serving(create_app(cluster.settings(profile_alias), rate_limit="off")) as url:
        yield url


def test_the_chart_by_keyboard(page: Page, profile_server, artifacts):
    errors = no_console_errors(page)
    page.goto(f"{profile_server}/?area=Deep+Learning&lang=en")
    bars = page.locator("ol.chart-bars a")
    expect(bars).to_have_count(10)  # 2015 … 2024, the gap year included
    assert [bars.nth(i).get_attribute("tabindex") for i in range(10)].count("0") == 1  # one tab stop
    bars.last.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    focused = page.locator("ol.chart-bars a:focus")
    expect(focused.locator(".chart-text")).to_have_text("2022: 3 papers. Show only 2022")
    expect(focused.locator(".chart-text")).to_be_visible()  # the tip shows on focus
    page.screenshot(path=str(artifacts / "34-chart-focused.png"))
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"year_from=2022&year_to=2022"))
    expect(page.locator("#results-summary")).to_contain_text("of 3 results")
    page.locator("ol.chart-bars a:focus-within, ol.chart-bars a[tabindex='0']").first.focus()
    expect(page.locator("ol.chart-bars a:focus .chart-text")).to_contain_text("2022: 3 papers (chosen)")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")  # 2015: the range widens to take it in
    expect(page).to_have_url(re.compile(r"year_from=2015&year_to=2022"))
    expect(page.locator("ol.chart-bars a.is-selected")).to_have_count(8)
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_new_pages_at_phone_width_pass_axe(browser, profile_server, artifacts, lang):
    context = with_axe(browser.new_context(locale="zh-CN" if lang == "zh" else "en-US",
                                           viewport={"width": 390, "height": 844}, is_mobile=True))
    page = context.new_page()
    errors = no_console_errors(page)
    found, wide = {}, {}
    try:
        for what, path in PAGES.items():
            page.goto(f"{profile_server}{path}{'&' if '?' in path else '?'}lang={lang}")
            expect(page.locator("html")).to_have_attribute("lang", "zh-CN" if lang == "zh" else "en")
            expect(page.locator("ol.chart-bars")).to_be_visible()
            found[what] = violations(page)
            wide[what] = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            page.screenshot(path=str(artifacts / f"34-{what}-phone-{lang}.png"), full_page=True)
    finally:
        context.close()
    assert {what: v for what, v in found.items() if v} == {}
    assert wide == dict.fromkeys(PAGES, 0)  # nothing scrolls sideways at phone width
    assert not errors, errors
