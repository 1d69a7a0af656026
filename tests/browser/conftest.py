"""Browser fixtures: the app on a loopback port (threaded werkzeug server) and Debian's chromium."""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import expect
from support import delete_alias_indices, loaded_alias
from werkzeug.serving import make_server

from papersearch import querylog_schema
from webapp import create_app, site
from webapp.server import warm

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


VENUE_PAPERS = Path(__file__).resolve().parents[1] / "fixtures" / "venue-papers.jsonl"
# How long a page action or an expect() may wait for its condition: a ceiling that only catches a hang, not a
# speed (Playwright's defaults, 30 s for actions and 5 s for expect(), are for a quiet machine).
CEILING_MS = 30_000
expect.set_options(timeout=CEILING_MS)


@pytest.fixture(scope="session")
def live_query_log(admin) -> Iterator[str]:
    """The base name of the query log the live server writes (its indices are deleted afterwards)."""
    base = f"{querylog_schema.DEFAULT_BASE}-tbrowser{uuid.uuid4().hex[:6]}"
    querylog_schema.prepare_days(admin, base, ahead=1, template=False)  # the web user appends to days that exist
    yield base
    delete_alias_indices(admin, base)


@pytest.fixture(scope="session")
def live_app(cluster, sample_alias, live_query_log) -> Iterator[Flask]:
    """The app with its query log on, so every page runs querylog_schema.js (console errors are checked)."""
    app = create_app(cluster.settings(sample_alias, PAPERSEARCH_QUERY_LOG="on",
                                      PAPERSEARCH_QUERY_LOG_INDEX=live_query_log), rate_limit="off")
    yield app
    app.extensions["recorder"].writer.close()


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """The app on a loopback port, once it answers a search."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    app.config[site.CONFIG_KEY] = url  # the public address is where it is served (PAPERSEARCH_PUBLIC_URL)
    warm()  # as a gunicorn worker does before it serves: loading the encoder or the dictionary inside a
    # first Chinese search took more than the 2 s budget on a loaded machine (503)
    with app.test_client() as client:
        # The first searches on a fresh alias warm the node's caches and can exceed the webapp's 2 s
        # timeout on a loaded machine; the browser tests start once a search in each language answers (a Chinese
        # one also reads the meaning vectors and the Chinese fields).
        deadline = time.monotonic() + 60
        for words in ("warm", "深度学习"):
            while client.get("/api/search", query_string={"q": words}).status_code != 200:
                assert time.monotonic() < deadline, f"the app never answered a search for {words}"
                time.sleep(0.5)
    try:
        yield url
    finally:
        server.shutdown()
        thread.join(5)


@pytest.fixture(scope="session")
def live_server(live_app) -> Iterator[str]:
    with serving(live_app) as url:
        yield url


@pytest.fixture(scope="session")
def venue_server(cluster) -> Iterator[str]:
    """Papers with venues and years (tests/fixtures/venue-papers.jsonl) for the venue facet, the year range
    and citations; the shipped sample has neither venues nor years."""
    with loaded_alias(cluster, "paperstest_venues", [VENUE_PAPERS]) as (name, _), \
            serving(create_app(cluster.settings(name), rate_limit="off")) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(CEILING_MS)
    yield page
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
