"""The search page's beacons in a real browser: a followed result link and a retyped query reach the query
log through navigator.sendBeacon, under the site's CSP, with nothing but the query id and the position."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Page, expect

from webapp.controllers.query_ids import TOKEN_PATTERN

pytestmark = pytest.mark.browser


def logged(live_app, admin, base: str, event: str, query_id: str, timeout: float = 60) -> dict:
    """The `event` document of `query_id`, once the server has received and written it."""
    deadline = time.monotonic() + timeout
    while True:
        assert live_app.extensions["recorder"].writer.flush(10)
        if admin.indices.exists(index=f"{base}-*"):
            admin.indices.refresh(index=f"{base}-*")
            hits = admin.search(index=f"{base}-*", query={"bool": {"filter": [
                {"term": {"event": event}}, {"term": {"query_id": query_id}}]}})["hits"]["hits"]
            if hits:
                return hits[0]["_source"]
        assert time.monotonic() < deadline, f"no {event} event for {query_id}"
        time.sleep(0.3)


def beacons(page: Page) -> list[dict]:
    """The bodies the page sends to /api/events, as they leave the browser."""
    sent: list[dict] = []

    def seen(request) -> None:
        if request.url.endswith("/api/events"):
            sent.append(json.loads(request.post_data or "{}"))

    page.on("request", seen)
    return sent


def test_result_click_is_logged_with_its_position(page: Page, live_server, live_app, live_query_log, admin):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sent = beacons(page)
    page.goto(live_server + "/?q=learning&page=2")
    results = page.locator("section.results")
    query_id = results.get_attribute("data-query-id")  # signed: id, source, positions 11-20, signature
    assert query_id and re.fullmatch(TOKEN_PATTERN, query_id) and ".page.11.20." in query_id
    second = page.locator("ol.hits > li").nth(1).locator("a[data-paper-id]")
    paper_id = second.get_attribute("data-paper-id")
    second.click()
    expect(page).to_have_url(f"{live_server}/paper/{paper_id}")

    click = logged(live_app, admin, live_query_log, "click", query_id[:32])
    assert (click["position"], click["paper_id"]) == (12, paper_id)  # page 2 of 10: the second is 12th
    search = logged(live_app, admin, live_query_log, "search", query_id[:32])
    assert (search["q"], search["page"], search["source"]) == ("learning", 2, "page")
    assert sent == [{"type": "click", "query_id": query_id, "position": 12, "paper_id": paper_id}]
    assert not errors, errors  # a CSP violation would show here


def test_retyped_query_is_linked_to_the_one_before(page: Page, live_server, live_app, live_query_log, admin):
    sent = beacons(page)
    page.goto(live_server + "/")
    box = page.get_by_label("Search papers")
    box.fill("grpah nueral")
    box.press("Enter")
    expect(page).to_have_url(f"{live_server}/?q=grpah+nueral")
    first = page.locator("section.results").get_attribute("data-query-id")
    box = page.get_by_label("Search papers")
    box.fill("graph neural")
    box.press("Enter")
    expect(page).to_have_url(f"{live_server}/?q=graph+neural")
    second = page.locator("section.results").get_attribute("data-query-id")

    retype = logged(live_app, admin, live_query_log, "retype", second[:32])
    assert retype["previous_query_id"] == first[:32]
    # Paging through the same query is no retype: no beacon at all.
    page.goto(live_server + "/?q=graph+neural&page=2")
    third = page.locator("section.results").get_attribute("data-query-id")
    assert third not in (None, second)
    # The script has run once it has remembered this search (it decides about a beacon before that).
    page.wait_for_function("id => JSON.parse(sessionStorage.getItem('papersearch.lastSearch')).id === id", arg=third)
    page.wait_for_load_state("networkidle")
    assert sent == [{"type": "retype", "query_id": second, "previous_query_id": first}]
