"""Real browser runs (Debian's chromium via Playwright) over the sample papers; screenshots go to
test-artifacts/. The sample has 40 papers, so page size 10 gives 4 pages."""

from __future__ import annotations

import re

import pytest
from console import no_console_errors
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def shot(page: Page, artifacts, name: str, full_page: bool = True) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=full_page)


def test_search_in_english(page: Page, live_server, artifacts):
    errors = no_console_errors(page)
    page.goto(live_server + "/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    box = page.get_by_label("Search papers")
    box.fill("language models")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]q=language\+models"))
    expect(page.locator("#results-summary")).to_contain_text(re.compile(r"Showing 1–\d+ of \d+ results \(\d+ ms\)"))
    expect(page.locator(".hit mark").first).to_be_visible()
    shot(page, artifacts, "01-search-english")
    assert not errors, errors  # CSP violations and script errors show up here


def test_search_in_chinese(page: Page, live_server, artifacts):
    page.goto(live_server + "/?lang=zh")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    box = page.get_by_label("搜索论文")
    box.fill("大语言模型")
    page.get_by_role("button", name="搜索", exact=True).click()
    expect(page.locator("#results-summary")).to_contain_text(re.compile(r"共 \d+ 条结果，用时 \d+ 毫秒"))
    expect(page.locator(".hit").first).to_contain_text("大语言模型")
    shot(page, artifacts, "02-search-chinese")


def test_facet_click_and_clear_all(page: Page, live_server, artifacts):
    page.goto(live_server + "/")
    total = int(re.search(r"of (\d+) results", page.locator("#results-summary").inner_text()).group(1))
    facet = page.locator("#filters a.facet-value", has_text="Deep Learning").first
    count = int(facet.locator(".count").inner_text())
    facet.click()
    expect(page).to_have_url(re.compile(r"area=Deep\+Learning"))
    expect(page.locator("#results-summary")).to_contain_text(f"of {count} result")
    expect(page.locator("#filters a.facet-value[aria-checked=true]")).to_have_count(1)
    expect(page.locator(".facet-children")).to_be_visible()  # subareas of the selected area
    shot(page, artifacts, "03-facet-selected")
    page.get_by_role("link", name="Clear all").click()
    expect(page.locator("#results-summary")).to_contain_text(f"of {total} results")


def test_pagination_and_page_size(page: Page, live_server, artifacts):
    page.goto(live_server + "/?size=10")
    first = page.locator(".hit-title a").all_inner_texts()
    page.get_by_role("navigation", name="Result pages").get_by_role("link", name="Page 2").click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(page.locator("#results-summary")).to_contain_text("Showing 11–20 of 40 results")
    expect(page.locator(".pagination a[aria-current=page]")).to_have_text("2")
    assert page.locator(".hit-title a").all_inner_texts() != first
    shot(page, artifacts, "04-page-2")
    # Changing the page size auto-submits (JS) and goes back to page 1.
    page.get_by_label("Per page").select_option("25")
    expect(page).to_have_url(re.compile(r"size=25"))
    expect(page.locator("#results-summary")).to_contain_text("Showing 1–25 of 40 results")
    page.go_back()
    expect(page.locator("#results-summary")).to_contain_text("Showing 11–20 of 40 results")


def test_sort_select_auto_submits(page: Page, live_server):
    page.goto(live_server + "/?q=learning")
    page.get_by_label("Sort by").select_option("title")
    expect(page).to_have_url(re.compile(r"sort=title"))
    expect(page.get_by_label("Sort by")).to_have_value("title")


def test_switch_language_is_remembered(page: Page, live_server, artifacts):
    page.goto(live_server + "/?q=learning&area=Theory")
    page.get_by_role("link", name="中文").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page).to_have_url(re.compile(r"q=learning.*area=Theory.*lang=zh"))
    expect(page.locator(".chip-removable")).to_contain_text("理论")  # the filter chip in Chinese
    shot(page, artifacts, "05-chinese-ui")
    page.goto(live_server + "/")  # no ?lang: the cookie keeps Chinese
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    page.get_by_role("link", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_autocomplete_with_keyboard(page: Page, live_server, artifacts):
    page.goto(live_server + "/")
    box = page.get_by_role("combobox", name="Search papers")
    box.press_sequentially("Haoy", delay=40)
    listbox = page.get_by_role("listbox")
    expect(listbox).to_be_visible()
    expect(listbox.get_by_role("option").first).to_contain_text("Haoyun Jiang")
    shot(page, artifacts, "06-autocomplete")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", "q-suggestions-0")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/author/Haoyun(%20| )Jiang"))  # an author suggestion: their page
    expect(page.locator(".hit").first).to_contain_text("Haoyun Jiang")


def test_paper_page_and_phone_width(browser, live_server, artifacts):
    context = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(live_server + "/?q=diffusion")
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN")  # from Accept-Language
        # Nothing wider than the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(page, artifacts, "07-phone-results", full_page=False)
        page.locator(".hit-title a").first.click()
        expect(page.locator("h1")).to_be_visible()
        expect(page.get_by_role("heading", name="相似论文")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(page, artifacts, "08-phone-paper", full_page=False)
    finally:
        context.close()


def test_works_without_javascript(browser, live_server, artifacts):
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(live_server + "/?q=learning")
        page.get_by_label("Sort by").select_option("year")
        page.get_by_role("button", name="Apply").click()  # visible only without JS
        expect(page).to_have_url(re.compile(r"sort=year"))
        page.locator("#filters a.facet-value").first.click()
        expect(page.locator("#filters a.facet-value[aria-checked=true]")).to_have_count(1)
        shot(page, artifacts, "09-no-javascript")
    finally:
        context.close()


def test_keyboard_focus_is_visible(page: Page, live_server):
    page.goto(live_server + "/")
    page.keyboard.press("Tab")  # the skip link comes first
    expect(page.locator(".skip-link")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("", "none")


def test_chinese_query_finds_english_papers_says_so_and_links_to_the_search_as_typed(page: Page, live_server,
                                                                                     artifacts):
    errors = no_console_errors(page)
    page.goto(live_server + "/?lang=zh")
    box = page.get_by_label("搜索论文")
    box.fill("扩散模型")
    box.press("Enter")
    notice = page.locator(".expansions")
    expect(notice).to_contain_text("同时搜索了：")
    expect(notice.locator(".expansion").first).to_have_text(re.compile(r"diffusion model", re.I))
    expect(page.locator(".hit mark", has_text=re.compile(r"diffusion", re.I)).first).to_be_visible()
    shot(page, artifacts, "12-crosslingual-notice")
    page.get_by_role("link", name="只按输入搜索").click()
    expect(page).to_have_url(re.compile(r"[?&]xl=0"))
    expect(page.locator(".expansions")).to_contain_text("仅按输入的文字搜索。")
    expect(page.locator(".hit mark", has_text=re.compile(r"diffusion", re.I))).to_have_count(0)
    page.get_by_role("link", name="同时搜索另一种语言的术语").click()
    expect(page).not_to_have_url(re.compile(r"xl=0"))
    expect(page.locator(".expansions")).to_contain_text("同时搜索了：")
    assert not errors, errors


def test_autocomplete_offers_concepts_in_both_languages(page: Page, live_server):
    page.goto(live_server + "/?lang=en")
    box = page.get_by_label("Search papers")
    box.press_sequentially("对比学")
    option = page.locator(".suggestions li", has_text="对比学习").first
    expect(option).to_contain_text("contrastive learning")
    expect(option.locator(".kind")).to_have_text("Concept")
    box.press("ArrowDown")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]q=%E5%AF%B9%E6%AF%94%E5%AD%A6%E4%B9%A0"))
    expect(page.locator(".expansions")).to_contain_text("Also searched: ")


# --- keyboard paths: Tab to the control, then the keys a keyboard user would press ----------------------


def tab_to(page: Page, selector: str, limit: int = 200) -> None:
    """Press Tab until the focused element matches `selector` (fails after `limit` presses)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_search_by_keyboard(page: Page, live_server):
    page.goto(live_server + "/")
    tab_to(page, "#q")
    page.keyboard.type("diffusion")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]q=diffusion"))
    expect(page.locator(".hit mark").first).to_be_visible()


def test_facets_by_keyboard(page: Page, live_server):
    page.goto(live_server + "/?q=learning")
    tab_to(page, "#filters a.facet-value")
    label = page.evaluate("document.activeElement.querySelector('.facet-label').textContent")
    page.keyboard.press("Space")  # a checkbox toggles with Space
    expect(page).to_have_url(re.compile(r"area="))
    selected = page.locator("#filters a.facet-value[aria-checked=true]")
    expect(selected).to_have_count(1)
    expect(selected).to_contain_text(label)
    tab_to(page, "#filters a.facet-value[aria-checked=true]")
    page.keyboard.press("Enter")  # and Enter follows the link, unselecting it
    expect(page.locator("#filters a.facet-value[aria-checked=true]")).to_have_count(0)


def test_pagination_by_keyboard(page: Page, live_server):
    page.goto(live_server + "/?size=10")
    tab_to(page, ".pagination a[aria-label='Page 2']")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(page.locator("#results-summary")).to_contain_text("Showing 11–20 of 40 results")
    tab_to(page, ".pagination a[rel=prev]")
    page.keyboard.press("Enter")
    expect(page.locator("#results-summary")).to_contain_text("Showing 1–10 of 40 results")


def test_autocomplete_escape_closes_and_keeps_the_text(page: Page, live_server):
    page.goto(live_server + "/")
    tab_to(page, "#q")
    page.keyboard.type("Haoy", delay=40)
    listbox = page.get_by_role("listbox")
    expect(listbox).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Escape")
    expect(listbox).to_be_hidden()
    expect(page.locator("#q")).to_have_value("Haoy")
    expect(page.locator("#q")).to_have_attribute("aria-expanded", "false")
