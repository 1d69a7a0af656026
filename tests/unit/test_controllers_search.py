"""A search refused as too long answers a page that keeps the search box and the text typed (issue 44.4)."""

from __future__ import annotations

import html

from papersearch.settings import Settings
from webapp import create_app
from webapp.services.search_settings import search_config


def test_a_query_longer_than_the_limit_gets_a_page_with_the_box_and_the_text() -> None:
    # No node is asked: the parameters are refused before any search (the client connects lazily).
    settings = Settings(_env_file=None, ES_URL="http://127.0.0.1:9", PAPERSEARCH_QUERY_LOG="off",
                        PAPERSEARCH_SECRET_KEY="s" * 32)
    client = create_app(settings, rate_limit="off").test_client()
    typed = "diffusion models " * (search_config().max_query_length // 17 + 1)
    page = client.get("/", query_string={"q": typed})
    assert page.status_code == 400
    body = page.get_data(as_text=True)
    assert 'role="search"' in body and f'value="{html.escape(typed)}"' in body
    assert 'role="search"' not in client.get("/no-such-page").get_data(as_text=True)  # other errors: no box


def test_an_error_page_carries_no_language_alternates() -> None:
    """Three copies of a junk URL's every parameter made the 400 page of the probe's URL 29 KB (issue 45.3)."""
    settings = Settings(_env_file=None, ES_URL="http://127.0.0.1:9", PAPERSEARCH_QUERY_LOG="off",
                        PAPERSEARCH_SECRET_KEY="s" * 32)
    page = create_app(settings, rate_limit="off").test_client().get("/?year=abc&venue=x")
    assert page.status_code == 400 and 'rel="alternate" hreflang' not in page.get_data(as_text=True)
