"""The default public address follows gunicorn's bind (issue 44.12): a site bound to another port redirects to it.

Before, PAPERSEARCH_PUBLIC_URL defaulted to http://127.0.0.1:8000 whatever PAPERSEARCH_BIND said, so a site on
:8080 sent its redirects (and feed, sitemap, OpenSearch links) to a port nothing listened on.
"""

from __future__ import annotations

import runpy

import pytest
from deploy_files import COMPOSE, ROOT, environment, services

from papersearch.settings import Settings, public_url_of_bind
from webapp import create_app


@pytest.mark.parametrize(("bind", "url"), [
    ("127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("0.0.0.0:8080", "http://127.0.0.1:8080"),  # every interface: this host reaches it on loopback
    (":8081", "http://127.0.0.1:8081"),
    ("[::]:9000", "http://[::1]:9000"),
    ("[::1]", "http://[::1]:8000"),  # no port: gunicorn's default
    ("papers.internal:8443", "http://papers.internal:8443"),
    ("unix:/run/papersearch.sock", "http://localhost"),  # a proxy in front, on its own port
])
def test_the_default_public_url_is_the_bind_address(bind: str, url: str) -> None:
    assert public_url_of_bind(bind) == url


def test_settings_derive_the_public_url_unless_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAPERSEARCH_PUBLIC_URL", raising=False)
    monkeypatch.setenv("PAPERSEARCH_BIND", "0.0.0.0:8080")
    assert Settings(_env_file=None).public_url == "http://127.0.0.1:8080"
    monkeypatch.setenv("PAPERSEARCH_PUBLIC_URL", "")  # compose's ${VAR:-}: unset
    assert Settings(_env_file=None).public_url == "http://127.0.0.1:8080"
    monkeypatch.setenv("PAPERSEARCH_PUBLIC_URL", "https://papers.example.org")
    assert Settings(_env_file=None).public_url == "https://papers.example.org"
    monkeypatch.delenv("PAPERSEARCH_BIND")
    monkeypatch.delenv("PAPERSEARCH_PUBLIC_URL")
    assert Settings(_env_file=None).public_url == "http://127.0.0.1:8000"


def test_a_redirect_names_the_bound_port() -> None:
    # No node is asked: the redirect is the routing's, before any view (the client connects lazily).
    settings = Settings(_env_file=None, ES_URL="http://127.0.0.1:9", PAPERSEARCH_BIND="0.0.0.0:8080",
                        PAPERSEARCH_QUERY_LOG="off", PAPERSEARCH_SECRET_KEY="s" * 32)
    app = create_app(settings, rate_limit="off")
    response = app.test_client().get("/api//search?q=x")  # werkzeug's routing merges the slashes: a redirect
    assert response.status_code == 308
    assert response.headers["Location"] == "http://127.0.0.1:8080/api/search?q=x"


def test_gunicorn_binds_where_the_settings_say(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERSEARCH_BIND", "0.0.0.0:8080")
    monkeypatch.setenv("PAPERSEARCH_METRICS", "off")  # no metrics directory made by the config
    assert runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))["bind"] == "0.0.0.0:8080"


def test_docker_defaults_to_the_proxys_published_port() -> None:
    """In Docker gunicorn binds :8000 inside the container; visitors come in through WEB_PORT."""
    env = environment(services(COMPOSE)["webapp"])
    assert env["PAPERSEARCH_PUBLIC_URL"] == "${PAPERSEARCH_PUBLIC_URL:-http://127.0.0.1:${WEB_PORT:-8000}}"
