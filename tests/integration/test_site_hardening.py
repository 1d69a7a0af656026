"""What the second security probe found (issue 37), in process against a real alias: absolute URLs from the public
address and the Host header checked, Cache-Control on every route, /metrics labels from fixed sets, links built
from the app's own paths, clicks stored once, sitemaps cached per index version, the limiter weighing requests by
their cost, and a cap on what a page echoes back. (The server side — slow clients, gunicorn's forwarded headers —
is tests/integration/test_slow_clients.py.)
"""

from __future__ import annotations

import gzip
import hashlib
import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from prometheus_client.parser import text_string_to_metric_families
from support import SAMPLE, loaded_alias
from webapp_support import costly_query

from indexer.querylog.report import build
from webapp import caching, create_app
from webapp.caching import shared
from webapp.services.query.parser import parse_query

PUBLIC = "https://papers.example.org"
EVIL = "evil.example"
# Every route whose answer holds absolute URLs, and how to ask for it.
ABSOLUTE = ["/opensearch.xml", "/robots.txt", "/sitemap.xml", "/feed?q=learning", "/api/opensearch/suggest?q=lea",
            "/api//search?q=x"]


@pytest.fixture(scope="module")
def public_app(cluster, web_alias):
    """The site behind its public address (the test client's own name, localhost, still allowed)."""
    return create_app(cluster.settings(web_alias, PAPERSEARCH_PUBLIC_URL=PUBLIC), rate_limit="off")


def urls_in(response) -> list[str]:
    text = response.get_data(as_text=True) + " " + response.headers.get("Location", "")
    return re.findall(r"https?://[^\s\"'<>]+", text)


def test_a_foreign_host_is_refused_and_absolute_urls_are_the_public_ones(public_app, client):
    web = public_app.test_client()
    paper = client.get("/api/search?q=learning").get_json()["hits"][0]["id"]
    for path in [*ABSOLUTE, f"/paper/{paper}", "/"]:
        refused = web.get(path, headers={"Host": EVIL})
        assert refused.status_code == 400, path
        assert EVIL not in refused.get_data(as_text=True) and refused.headers["Cache-Control"] == "no-store"
        if path == "/":
            continue  # no absolute URL on the page; refused all the same
        answered = web.get(path, headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": EVIL})
        assert answered.status_code in (200, 308), path
        urls = urls_in(answered)
        assert any(u.startswith(f"{PUBLIC}/") for u in urls), (path, urls)
        assert not [u for u in urls if "localhost" in u or EVIL in u], (path, urls)
    assert web.get("/api//search?q=x").headers["Location"] == f"{PUBLIC}/api/search?q=x"
    article = re.search(r'"@id": ?"([^"]+)"', web.get(f"/paper/{paper}").get_data(as_text=True)).group(1)
    assert article == f"{PUBLIC}/paper/{paper}"
    assert web.get("/api/search", headers={"Host": "localhost:8000"}).status_code == 200  # names, not ports


def test_the_language_cookie_is_secure_under_https(cluster, web_alias, public_app):
    """Issue 45.11: `lang` lacked Secure under HTTPS, so a browser would send it over plain HTTP too."""
    behind_proxy = create_app(cluster.settings(web_alias, PAPERSEARCH_TRUSTED_PROXIES="1"), rate_limit="off")
    plain = create_app(cluster.settings(web_alias), rate_limit="off")
    cookie = "Set-Cookie"
    https = behind_proxy.test_client().get("/?lang=zh", headers={"X-Forwarded-Proto": "https",
                                                                  "X-Forwarded-For": "198.51.100.7"})
    assert "lang=zh" in https.headers[cookie] and "Secure" in https.headers[cookie]
    assert "Secure" in public_app.test_client().get("/?lang=zh").headers[cookie]  # an https public address
    over_http = plain.test_client().get("/?lang=zh").headers[cookie]
    assert "lang=zh" in over_http and "Secure" not in over_http  # plain HTTP on localhost: a Secure one is lost


def test_no_cookie_on_what_a_shared_cache_may_keep(client):
    """Issue 53.8: `?lang=zh` set the language cookie on `public` answers, so a shared cache could hand one visitor's
    cookie (and language) to everyone. The cookie is remembered from pages only, and a page that sets it is private."""
    paper = client.get("/api/search?q=learning").get_json()["hits"][0]["id"]
    public = [f"/paper/{paper}", f"/api/papers/{paper}", "/feed?q=learning", "/api/export?limit=2",
              "/author/Ada%20Lovelace", "/topic/deep-learning", "/api/suggest?q=lea", "/robots.txt",
              "/api/opensearch/suggest?q=lea", f"/api/papers/{paper}/citation", "/opensearch.xml", "/sitemap.xml"]
    for path in public:  # each answer read whole (buffered): a streamed export must not outlive its request
        client.delete_cookie("lang")
        plain = client.get(path, buffered=True)
        assert plain.status_code == 200 and shared(plain.headers["Cache-Control"]), path  # public without ?lang=
        answer = client.get(path + ("&" if "?" in path else "?") + "lang=zh", buffered=True)
        assert answer.status_code == 200, path
        stored = shared(answer.headers.get("Cache-Control", ""))
        assert not (stored and answer.headers.getlist("Set-Cookie")), (path, answer.headers)
        if answer.mimetype == "text/html":  # a page remembers the language asked for, privately
            assert "lang=zh" in answer.headers["Set-Cookie"] and not stored, path
        else:  # an API answer, a feed, a file: in the language asked for, still shared, no cookie
            assert stored and "Set-Cookie" not in answer.headers, path
        # With the cookie already set the page is the same for everyone who sends it: shared again, keyed on it.
        again = client.get(path + ("&" if "?" in path else "?") + "lang=zh", buffered=True)
        assert "Set-Cookie" not in again.headers and shared(again.headers["Cache-Control"]), path
        assert "Cookie" in again.headers["Vary"], path
    client.delete_cookie("lang")


def test_every_route_says_how_it_may_be_cached(app, client):
    rules = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert rules <= set(caching.POLICY), sorted(rules - set(caching.POLICY))  # a new route must say
    paper = client.get("/api/search?q=learning").get_json()["hits"][0]["id"]
    expected = {"/": "private, no-cache", "/api/search?q=x": "private, no-cache", f"/paper/{paper}": caching.SHORT,
                "/api/suggest?q=lea": caching.SHORT, "/robots.txt": caching.CRAWLERS, "/sitemap.xml": caching.CRAWLERS,
                "/opensearch.xml": caching.CRAWLERS, "/feed": caching.FEED, "/api/export?limit=2": caching.SHORT,
                "/healthz": "no-store", "/metrics": "no-store", "/no/such/page": "no-store", "/?page=0": "no-store",
                "/static/style.css": "public, max-age=3600"}
    got = {path: client.get(path, buffered=True).headers.get("Cache-Control") for path in expected}
    assert got == expected
    vary = client.get("/").headers["Vary"]
    assert "Accept-Language" in vary and "Cookie" in vary and "Host" not in vary  # URLs no longer follow Host


def test_static_files_are_linked_by_digest_and_kept_for_a_year(client):
    page = client.get("/?lang=zh").get_data(as_text=True)
    links = dict(re.findall(r'/static/([a-z]+\.(?:css|js|svg))\?v=([0-9a-f]{12})', page))
    assert {"style.css", "app.js", "favicon.svg"} <= set(links), links
    css = client.get(f"/static/style.css?v={links['style.css']}", headers={"Cookie": "lang=zh"})
    assert css.status_code == 200 and css.headers["Cache-Control"] == caching.IMMUTABLE
    # Only the encoding may vary (compressed or not: webapp/compression.py), never the language or the cookie.
    assert css.headers.get("Vary", "Accept-Encoding") == "Accept-Encoding"
    assert "Expires" not in css.headers and "Set-Cookie" not in css.headers
    assert hashlib.sha256(css.get_data()).hexdigest()[:12] == links["style.css"]
    # An old or made-up digest is not promised for a year: that URL may serve another file tomorrow.
    assert client.get("/static/style.css?v=000000000000").headers["Cache-Control"] == "public, max-age=3600"


def series(client) -> set[tuple]:
    text = client.get("/metrics").get_data(as_text=True)
    return {(s.name, tuple(sorted(s.labels.items()))) for family in text_string_to_metric_families(text)
            for s in family.samples}


def test_invented_methods_and_paths_add_no_metric_series(app, client):
    for method, path in (("SECPROBEA", "/zz"), ("GET", "/zz/0"), ("POST", "/"), ("GET", "/paper/made-up")):
        client.open(path, method=method)  # every label value these can reach exists from here on
    before = series(client)
    statuses = {client.open(f"/probe/{i}/{'x' * (i % 7)}", method=f"SECPROBE{chr(65 + i % 26)}{i}").status_code
                for i in range(300)}
    statuses |= {client.get(f"/paper/made-up-{i}").status_code for i in range(50)}
    assert statuses <= {404, 405}
    assert series(client) == before


def test_the_language_link_of_a_404_stays_on_the_site(client):
    html = client.get("/%5Cevil.example").get_data(as_text=True)
    link = re.search(r'<nav class="lang-switch"[^>]*>\s*<a href="([^"]+)"', html).group(1)
    assert link == "/?lang=zh"  # before: "/\\evil.example?lang=zh", another site to a browser
    page = client.get("/?q=graph&area=Deep+Learning").get_data(as_text=True)
    link = re.search(r'<nav class="lang-switch"[^>]*>\s*<a href="([^"]+)"', page).group(1)
    assert link == "/?q=graph&amp;area=Deep+Learning&amp;lang=zh"


def test_a_click_sent_again_is_stored_once(cluster, sample_alias, admin, query_log_base):
    app = create_app(cluster.settings(sample_alias, PAPERSEARCH_QUERY_LOG="on",
                                      PAPERSEARCH_QUERY_LOG_INDEX=query_log_base), rate_limit="off")
    client = app.test_client()
    try:
        served = client.get("/api/search?q=learning").get_json()
        token, first = served["query_id"], served["hits"][0]["id"]
        beacon = {"type": "click", "query_id": token, "position": 1, "paper_id": first}
        assert {client.post("/api/events", json=beacon).status_code for _ in range(30)} == {204}  # the probe's
        assert client.post("/api/events", json=beacon | {"position": 2, "paper_id": served["hits"][1]["id"]}
                           ).status_code == 204
        assert app.extensions["recorder"].writer.flush(30)
        admin.indices.refresh(index=f"{query_log_base}-*")
        clicks = admin.search(index=f"{query_log_base}-*", query={"term": {"event": "click"}})["hits"]["hits"]
        assert sorted(h["_source"]["position"] for h in clicks) == [1, 2]
        assert build(cluster.client("indexer"), query_log_base, timedelta(days=1), source="api").clicks == 2
    finally:
        app.extensions["recorder"].writer.close()


def test_sitemaps_are_built_once_per_index_version(cluster, admin):
    with loaded_alias(cluster, "paperstest_sitemaps", [SAMPLE]) as (alias, _):
        app = create_app(cluster.settings(alias), rate_limit="off")
        app.config["SITEMAP_MAX_URLS"] = 25  # an index of two files
        client, cache = app.test_client(), app.extensions["crawler_cache"]
        files = re.findall(r"<loc>http://localhost(/sitemap-papers\.xml[^<]*)</loc>",
                           client.get("/sitemap.xml").get_data(as_text=True))
        first = [client.get(f.replace("&amp;", "&")).get_data() for f in files]
        builds = cache.builds
        assert builds == 3 and [client.get(f.replace("&amp;", "&")).get_data() for f in files] == first
        assert client.get("/sitemap.xml").status_code == 200 and cache.builds == builds  # kept
        # A paper added in place (papersearch-admin add): a new version, built anew, with the paper.
        concrete = next(iter(admin.indices.get_alias(name=alias)))
        admin.index(index=concrete, id="added-later", document={"id": "added-later", "title": "Added later"},
                    refresh=True)
        after = "".join(client.get(f.replace("&amp;", "&")).get_data(as_text=True) for f in files)
        assert cache.builds > builds and "/paper/added-later<" in after


def test_the_limiter_weighs_exports_sitemaps_and_feeds(cluster, web_alias):
    client = create_app(cluster.settings(web_alias), rate_limit="120/minute").test_client()
    assert [client.get("/api/export?q=learning").status_code for _ in range(4)] == [200, 200, 200, 429]
    client = create_app(cluster.settings(web_alias), rate_limit="120/minute").test_client()
    assert [client.get("/sitemap.xml").status_code for _ in range(4)] == [200, 200, 200, 429]
    client = create_app(cluster.settings(web_alias), rate_limit="120/minute").test_client()
    assert {client.get("/feed").status_code for _ in range(30)} == {200}
    assert client.get("/feed").status_code == 429
    client = create_app(cluster.settings(web_alias), rate_limit="120/minute").test_client()
    small = [client.get("/api/export?q=learning&limit=10").status_code for _ in range(10)]  # weighs what it asks
    assert small == [200] * 10 and client.get("/api/search?q=x").status_code == 200


def test_a_small_url_cannot_buy_megabytes(client):
    """The probe's 4.9 KB URL (300 Chinese characters, 50 values each of area, subarea, venue, year) returned
    2.72 MB of HTML; at most 10 values per parameter now, and a page at the limits stays small."""
    q = ("图神经网络的推理加速方法研究" * 30)[:300]

    def url(n: int) -> str:
        pairs = [("q", q), *[("area", f"Area {i}") for i in range(n)],
                 *[("subarea", f"Area {i} > Sub {i}") for i in range(n)], *[("venue", f"Venue {i}") for i in range(n)],
                 *[("year", str(2000 + i)) for i in range(n)]]
        return "/?" + urlencode(pairs)

    probe = client.get(url(50))
    assert probe.status_code == 400 and len(probe.data) < 20_000
    assert "at most 10" in probe.get_data(as_text=True)
    at_limit = client.get(url(10))
    assert at_limit.status_code == 200 and len(at_limit.data) < 500_000


def test_a_paper_page_linking_back_to_a_search_is_not_publicly_cached(client):
    """Issue 45.7: the back link carries the visitor's search (from the Referer), so the page is per visitor."""
    paper = client.get("/api/search?q=learning").get_json()["hits"][0]["id"]
    came_from = client.get(f"/paper/{paper}", headers={"Referer": "http://localhost/?q=my+private+search"})
    assert "my+private+search" in came_from.get_data(as_text=True)
    assert came_from.headers["Cache-Control"] == caching.PER_VISITOR
    plain = client.get(f"/paper/{paper}")
    assert plain.headers["Cache-Control"] == caching.SHORT
    elsewhere = client.get(f"/paper/{paper}", headers={"Referer": "https://evil.example/?q=x"})
    assert elsewhere.headers["Cache-Control"] == caching.SHORT


def _junk_url(path: str) -> str:
    """The probe's URL (issue 45.3): size=100 and nine junk venue and area values of 290 characters each."""
    junk = [(name, (name[0] * 290)[:288] + f"{i:02d}") for name in ("venue", "area") for i in range(9)]
    return path + urlencode([("q", "learning"), ("size", "100"), *junk])


def test_unknown_filter_values_are_not_echoed_as_facet_entries(client):
    body = client.get(_junk_url("/api/search?")).get_json()
    entries = [v["value"] for f in body["facets"] for v in f["values"]]
    assert not [v for v in entries if v.startswith(("vvvv", "aaaa"))], entries
    # A value some paper has stays, with 0 under the other filters, so it can be unselected.
    real = client.get("/api/search?q=learning").get_json()
    venue = next(v["value"] for f in real["facets"] if f["name"] == "venue" for v in f["values"])
    area = next(v["value"] for f in real["facets"] if f["name"] == "topic" for v in f["values"])
    both = client.get("/api/search?" + urlencode([("q", "learning"), ("venue", venue), ("area", "aaaa"),
                                                  ("area", area), ("year", "1901")])).get_json()
    shown = {f["name"]: {v["value"]: v for v in f["values"]} for f in both["facets"]}
    assert shown["venue"][venue]["selected"] and area in shown["topic"] and "aaaa" not in shown["topic"]
    assert "1901" not in shown["year"]


def test_answers_are_compressed_where_the_client_accepts_gzip(client):
    for n, url in enumerate((_junk_url("/?"), _junk_url("/api/search?"), "/?q=learning&size=100",
                             "/api/export?q=learning")):
        plain = client.get(url)
        packed = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert plain.status_code == packed.status_code == 200, url
        assert "Content-Encoding" not in plain.headers
        assert packed.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed.headers["Vary"]
        # The same answer but its signed query id (one per response).
        assert abs(len(gzip.decompress(packed.get_data())) - len(plain.get_data())) < 100, n
        assert len(packed.get_data()) * 2 < len(plain.get_data()), (n, len(packed.get_data()), len(plain.data))
    # The probe's page: the bytes out per byte of URL, plain and compressed.
    url = _junk_url("/?")
    ratio = len(client.get(url, headers={"Accept-Encoding": "gzip"}).get_data()) / len(url)
    assert ratio < 5, ratio
    assert "Content-Encoding" not in client.get("/healthz", headers={"Accept-Encoding": "gzip"}).headers  # tiny


def test_a_costly_query_exhausts_the_limit_sooner_than_plain_ones(cluster, web_alias):
    def served(url: str) -> int:
        client = create_app(cluster.settings(web_alias), rate_limit="60/minute").test_client()
        codes = [client.get(url).status_code for _ in range(70)]
        assert set(codes) <= {200, 429}, client.get(url).get_json()
        return codes.count(200)

    plain = served("/api/search?q=learning")
    costly = served("/api/search?" + urlencode({"q": costly_query(), "size": 100}))
    assert plain >= 30 and costly * 8 <= plain, (plain, costly)


def test_a_query_is_bounded_and_priced_by_the_plan(app):
    from webapp.domain import SearchParams

    service = app.extensions["search_service"]
    config = app.config["SEARCH_CONFIG"].query_cost
    costly = costly_query(config.max_clauses)
    assert service.cost(SearchParams(q="learning")) <= 2
    assert service.cost(SearchParams(q=costly, size=100)) == config.max_units
    # More words than that are not searched (cut, and the page says so), so they cost no more.
    assert parse_query(costly + " one more").cut
    assert service.cost(SearchParams(q=costly + " one more", size=100)) == config.max_units


def test_one_client_runs_at_most_a_few_searches_at_once(cluster, web_alias):
    """Issue 45.2: searches running at once are capped per client by their cost units: one costly search at a
    time, several plain ones."""
    app = create_app(cluster.settings(web_alias), rate_limit="1000/minute")
    running = app.extensions["papersearch_concurrency"]
    cap = app.config["SEARCH_CONFIG"].query_cost.max_concurrent_units_per_client
    assert running.enter("127.0.0.1", cap)  # a costly search of this client still running
    client = app.test_client()
    refused = client.get("/api/search?q=learning")
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    assert client.get("/api/search?q=learning", environ_base={"REMOTE_ADDR": "10.7.7.7"}).status_code == 200
    assert client.get("/robots.txt").status_code == 200  # a route that runs no query is not capped
    running.leave("127.0.0.1", cap)
    assert [running.enter("127.0.0.1", 1) for _ in range(3)] == [True] * 3  # plain ones side by side
    assert client.get("/api/search?q=learning").status_code == 200
    assert client.get("/api/search?" + urlencode({"q": costly_query(), "size": 100})).status_code == 429
    for _ in range(3):
        running.leave("127.0.0.1", 1)
    assert client.get("/api/search?" + urlencode({"q": costly_query(), "size": 100})).status_code in (200, 503)
