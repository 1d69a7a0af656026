"""Issue 53.2 and 54.2, in process against a real alias: every route that runs a visitor's query is priced as the
searches it sends (export, feed, author pages as the search page is), one per-client cap on what runs at once
covers them all, the query is validated and parsed once per request, and a request that times out does not put
the only node on a back-off.
"""

from __future__ import annotations

import logging
import socket
from urllib.parse import quote, urlencode

import pytest
from elastic_transport import ConnectionTimeout
from webapp_support import costly_query

from papersearch.es import make_client
from webapp import create_app, headers_and_limits
from webapp.controllers.params import RequestArgs
from webapp.services import search as search_module

AUTHOR = quote("Ada Lovelace")  # an author of tests/integration/webapp_support.py EXTRA


def _routes(q: str) -> dict[str, str]:
    """Every route that runs a visitor's query, asking for `q`."""
    words = urlencode({"q": q})
    return {"search": f"/api/search?{words}&size=100", "page": f"/?{words}",
            "export": f"/api/export?format=csv&limit=1&{words}", "feed": f"/feed?{words}",
            "author page": f"/author/{AUTHOR}?{words}", "author api": f"/api/authors/{AUTHOR}?{words}"}


@pytest.fixture(scope="module")
def priced(cluster, web_alias):
    return create_app(cluster.settings(web_alias), rate_limit="120/minute")


def _price(app, url: str) -> int:
    with app.test_request_context(url):
        return headers_and_limits.cost()


def test_every_route_running_a_query_weighs_its_searches(priced):
    """The probe's query weighed 16 on /api/search but 1 on an export of one paper, 4 on a feed and 1 on an
    author page: each is now the plan's price of its search times the searches it sends."""
    config = priced.config["SEARCH_CONFIG"].query_cost
    costly = costly_query(config.max_clauses)
    prices = {name: _price(priced, url) for name, url in _routes(costly).items()}
    assert prices == dict.fromkeys(prices, config.max_units), prices
    # A whole export is five pages of a hundred: five searches.
    assert _price(priced, "/api/export?" + urlencode({"q": costly})) == 5 * config.max_units
    # Plain words keep the routes' own weights (DECISIONS.md D-123): a feed 4, a 500-paper export 40.
    assert _price(priced, "/feed?q=learning") == 4 and _price(priced, "/api/export?q=learning") == 40
    assert _price(priced, "/api/export?q=learning&limit=10") == 1 and _price(priced, "/?q=learning") == 1
    # An invalid request is answered 400 without searching: it weighs 1.
    assert _price(priced, "/api/export?limit=0&" + urlencode({"q": costly})) == 1


def test_a_costly_query_on_any_route_exhausts_the_limit_as_a_search_does(cluster, web_alias):
    costly = costly_query()
    for name, url in _routes(costly).items():
        client = create_app(cluster.settings(web_alias), rate_limit="60/minute").test_client()
        codes = []
        for _ in range(12):
            response = client.get(url)
            response.close()  # a streamed export holds its request context until closed
            codes.append(response.status_code)
        assert set(codes) <= {200, 429} and codes.count(200) <= 4, (name, codes)


def test_one_cap_holds_what_a_client_runs_at_once_on_every_route(cluster, web_alias):
    """A client whose costly request is running gets 429 on every route that runs a query, not only searches;
    another address is served."""
    app = create_app(cluster.settings(web_alias), rate_limit="1000/minute")
    running = app.extensions["papersearch_concurrency"]
    cap = app.config["SEARCH_CONFIG"].query_cost.max_concurrent_units_per_client
    client = app.test_client()
    urls = [*_routes("learning").values(), "/api/suggest?q=lea", "/api/opensearch/suggest?q=lea",
            "/topic/computer-vision", "/paper/nosuch", "/api/papers/nosuch"]
    assert running.enter("127.0.0.1", cap)  # a costly request of this client still running
    try:
        for url in urls:
            refused = client.get(url)
            assert refused.status_code == 429 and refused.headers["Retry-After"] == "1", url
            other = client.get(url, environ_base={"REMOTE_ADDR": "10.7.7.8"})
            other.close()
            assert other.status_code != 429, url
    finally:
        running.leave("127.0.0.1", cap)
    assert client.get("/robots.txt").status_code == 200  # no query: never capped
    assert running.enter("127.0.0.1", 1)
    try:  # one plain request running: a costly export waits its turn, a plain one goes on
        assert client.get("/api/export?format=csv&limit=1&" + urlencode({"q": costly_query()})).status_code == 429
        plain = client.get("/api/export?format=csv&limit=1&q=learning")
        plain.close()
        assert plain.status_code == 200
    finally:
        running.leave("127.0.0.1", 1)


@pytest.fixture
def counted(monkeypatch):
    """How often a request validated its search arguments and parsed its query."""
    calls = {"validated": 0, "parsed": 0}

    def counting(name: str, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(RequestArgs, "validate", counting("validated", RequestArgs.validate))
    monkeypatch.setattr(search_module, "parse_query", counting("parsed", search_module.parse_query))
    return calls


@pytest.mark.parametrize("url", ["/api/search?q=graph+neural+networks", "/?q=graph+neural+networks",
                                 "/api/export?q=learning&limit=250&format=csv", "/feed?q=learning",
                                 f"/author/{AUTHOR}?q=graph+neural+networks"])
def test_a_request_validates_and_parses_its_query_once(priced, counted, url):
    """Issue 54.2: the limiter's price and the route's search share one validated, parsed query."""
    response = priced.test_client().get(url, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    body = response.get_data(as_text=True)  # the whole export: every page of it
    response.close()
    assert response.status_code == 200, body[:300]
    assert counted == {"validated": 1, "parsed": 1}, url


def test_a_timed_out_request_does_not_put_the_only_node_on_a_back_off(cluster, web_alias, caplog):
    """One node has nowhere else to send a request: a timeout (a costly query over the page's budget) says
    nothing of the node's health, and must not log it as put on a back-off of up to 30 s. The node here is a
    loopback listener that takes the connection and never answers, so every request times out (a microsecond
    timeout against the real node did not, reliably); the real node then answers through the same pool class."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        silent.listen(16)
        port = silent.getsockname()[1]
        settings = cluster.settings(web_alias).model_copy(update={"es_url": f"http://127.0.0.1:{port}"})
        client = make_client("web", settings, request_timeout=0.3)
        body = {"query": {"match_all": {}}, "size": 1}
        timeouts = 0
        with caplog.at_level(logging.WARNING, logger="elastic_transport.node_pool"):
            for _ in range(3):
                try:
                    client.search(index=web_alias, body=body)
                except ConnectionTimeout:
                    timeouts += 1
        assert timeouts == 3
        assert not [r for r in caplog.records if r.name == "elastic_transport.node_pool"], caplog.text
        assert len(client.transport.node_pool.all()) == 1
    real = make_client("web", cluster.settings(web_alias), request_timeout=5)
    assert real.search(index=web_alias, body=body)["hits"]["hits"]
