"""The webapp's operations features on the real node, in process: what a search writes to the query log,
the click and retype beacons, /metrics, and a query log whose cluster hangs or is gone.

(Several gunicorn workers: tests/integration/test_operations_gunicorn.py.)
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import time
import uuid

import pytest
from elasticsearch import Elasticsearch
from prometheus_client.parser import text_string_to_metric_families

from webapp import create_app
from webapp.controllers.query_ids import TOKEN_PATTERN, QueryIds
from webapp.querylog_writer import FULL, UNAVAILABLE, QueryLogWriter

PRIVATE = {"REMOTE_ADDR": "203.0.113.77", "HTTP_X_FORWARDED_FOR": "198.51.100.9",
           "HTTP_USER_AGENT": "SecretAgent/1.0 (tester)", "HTTP_COOKIE": "lang=en; session=s3cr3t-cookie"}


@pytest.fixture
def log_base(query_log_base: str) -> str:
    return query_log_base


@pytest.fixture
def logged_app(cluster, sample_alias, log_base):
    app = create_app(cluster.settings(sample_alias, PAPERSEARCH_QUERY_LOG="on", PAPERSEARCH_QUERY_LOG_INDEX=log_base),
                     rate_limit="off")
    yield app
    app.extensions["recorder"].writer.close()


def stored(app, admin: Elasticsearch, base: str) -> list[dict]:
    assert app.extensions["recorder"].writer.flush(30)
    admin.indices.refresh(index=f"{base}-*")
    hits = admin.search(index=f"{base}-*", size=100, sort=[{"timestamp": "asc"}])["hits"]["hits"]
    return [h["_source"] for h in hits]


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """Every sample of a Prometheus exposition as (name, sorted labels) → value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(scrape: dict, name: str, **labels: str) -> float:
    return scrape.get((name, tuple(sorted(labels.items()))), 0.0)


def scrape(client) -> dict:
    r = client.get("/metrics")
    assert r.status_code == 200 and r.content_type.startswith("text/plain")
    return samples(r.get_data(as_text=True))


def test_searches_and_clicks_are_logged_without_anything_identifying(logged_app, admin, log_base):
    client = logged_app.test_client()
    page = client.get("/?q=diffsuion&area=Deep+Learning&lang=zh", environ_base=PRIVATE)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    page_token = re.search(r'data-query-id="([^"]+)"', html).group(1)
    assert re.fullmatch(TOKEN_PATTERN, page_token) and ".page.1." in page_token
    page_id = page_token[:32]  # what the log stores; the page carries it signed
    assert 'data-events-url="/api/events"' in html and "querylog.js" in html
    api = client.get("/api/search?q=transformer&year=2024&year=2023&year_from=2020&sort=year",
                     environ_base=PRIVATE).get_json()
    assert re.fullmatch(TOKEN_PATTERN, api["query_id"]) and ".api.1." in api["query_id"]
    api_id = api["query_id"][:32]
    paper_id = re.search(r'data-paper-id="([^"]+)"', html).group(1)
    for body in (f'{{"type":"click","query_id":"{page_token}","position":1,"paper_id":"{paper_id}"}}',
                 f'{{"type":"retype","query_id":"{api["query_id"]}","previous_query_id":"{page_token}"}}'):
        r = client.post("/api/events", data=body, content_type="application/json", environ_base=PRIVATE)
        assert r.status_code == 204, r.get_data(as_text=True)

    docs = stored(logged_app, admin, log_base)
    assert [d["event"] for d in docs] == ["search", "search", "click", "retype"]
    page_doc, api_doc, click, retype = docs
    assert page_doc["query_id"] == page_id and page_doc["source"] == "page" and page_doc["lang"] == "zh"
    assert page_doc["q"] == "diffsuion" and page_doc["filters"] == ["area=Deep Learning"]
    # the correction offered, or (fallback "corrected") the one whose results were shown
    assert {"did_you_mean", "corrected"} & set(page_doc["fallbacks"]) and page_doc["did_you_mean"] == "diffusion"
    assert page_doc["total"] > 0 and page_doc["zero_result"] is False
    assert api_doc["query_id"] == api_id and api_doc["source"] == "api"
    assert api_doc["filters"] == ["year=2024", "year=2023", "year_from=2020"] and api_doc["sort"] == "year"
    assert api_doc["total"] == api["total"] and api_doc["took_ms"] == api["took_ms"]
    assert click == {"timestamp": click["timestamp"], "query_id": page_id, "event": "click", "position": 1,
                     "paper_id": paper_id, "source": "page"}
    assert retype["previous_query_id"] == page_id and retype["query_id"] == api_id and retype["source"] == "api"
    everything = repr(docs)
    for secret in ("203.0.113.77", "198.51.100.9", "SecretAgent", "s3cr3t-cookie"):
        assert secret not in everything


def test_bad_beacons_are_refused_counted_and_never_written(logged_app, admin, log_base, caplog):
    client = logged_app.test_client()
    ids = logged_app.extensions["recorder"].query_ids
    served = client.get("/api/search?q=transformer&page=2&size=5").get_json()  # results 6 to 10
    assert len(served["hits"]) == 5
    token, qid = served["query_id"], uuid.uuid4().hex
    sixth = served["hits"][0]["id"]  # shown at position 6
    forged = QueryIds(b"f" * 32).issue(qid, "page", 0, [sixth] * 10)  # well-formed, signed with another key
    widened = token.replace(".6.10.", ".1.100.")
    unsigned = ("not one this site signed", "unknown_query")
    cases = {
        "not json": ("Invalid JSON", "invalid"),
        f'{{"type":"click","query_id":"{token}","position":0,"paper_id":"p"}}': ("position", "invalid"),
        f'{{"type":"click","query_id":"{token}","position":100001,"paper_id":"p"}}': ("position", "invalid"),
        f'{{"type":"click","query_id":"{qid}","position":1,"paper_id":"p"}}': ("query_id", "invalid"),  # unsigned
        f'{{"type":"view","query_id":"{token}"}}': ("type", "invalid"),
        f'{{"type":"retype","query_id":"{token}","previous_query_id":"{token}","ip":"1.2.3.4"}}': ("ip", "invalid"),
        "x" * 5000: ("larger than 2048 bytes", "too_large"),
        f'{{"type":"click","query_id":"{forged}","position":1,"paper_id":"p"}}': unsigned,
        f'{{"type":"click","query_id":"{widened}","position":1,"paper_id":"p"}}': unsigned,
        f'{{"type":"retype","query_id":"{token}","previous_query_id":"{forged}"}}': unsigned,
        f'{{"type":"click","query_id":"{token}","position":5,"paper_id":"p"}}': ("position", "position"),
        f'{{"type":"click","query_id":"{token}","position":11,"paper_id":"p"}}': ("position", "position"),
        # The probe's: a paper the search did not show there, and a position as a string.
        f'{{"type":"click","query_id":"{token}","position":6,"paper_id":"ANY-STRING-<script>"}}': ("this paper",
                                                                                                   "paper"),
        f'{{"type":"click","query_id":"{token}","position":7,"paper_id":"{sixth}"}}': ("this paper", "paper"),
        f'{{"type":"click","query_id":"{token}","position":"6","paper_id":"{sixth}"}}': ("position", "invalid"),
    }
    before = scrape(client)
    caplog.set_level(logging.DEBUG)
    caplog.clear()
    for body, (message, reason) in cases.items():
        r = client.post("/api/events", data=body, content_type="application/json")
        # Not the site's signature: understood and refused, 403 (issue 44.11); every other bad beacon 400.
        assert r.status_code == (403 if reason == "unknown_query" else 400), body
        assert r.get_json()["error"]["code"] == ("forbidden" if reason == "unknown_query" else "bad_request")
        assert message in r.get_json()["error"]["message"], (body, r.get_json())
    good = f'{{"type":"click","query_id":"{token}","position":6,"paper_id":"{sixth}"}}'
    # Not JSON: what a cross-site form or a bare sendBeacon can send without a preflight.
    media = [client.post("/api/events", data=good, content_type=kind) for kind in (
        "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x")]
    media.append(client.post("/api/events", data=good))
    assert [r.status_code for r in media] == [415] * 4
    assert all(r.get_json()["error"]["code"] == "unsupported_media_type" for r in media)
    cross_site = [client.post("/api/events", headers=headers, data=good, content_type="application/json")
                  for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://evil.example"},
                                  {"Origin": "null"})]
    assert [r.status_code for r in cross_site] == [400] * 3
    assert all("another site" in r.get_json()["error"]["message"] for r in cross_site)
    assert client.get("/api/events").status_code == 405
    assert [r.getMessage() for r in caplog.records if r.name.startswith("webapp")] == []  # never logged
    after = scrape(client)
    rejected = "papersearch_events_rejected_total"
    expected = {reason: sum(1 for _, r in cases.values() if r == reason) for _, reason in cases.values()}
    expected["cross_site"] = 3
    expected["media_type"] = 4
    assert {reason: value(after, rejected, reason=reason) - value(before, rejected, reason=reason)
            for reason in expected} == expected
    # Only the search was written, no refused beacon.
    assert [d["event"] for d in stored(logged_app, admin, log_base)] == ["search"]
    assert ids.verify(token) is not None  # the real one stays valid
    own = client.post("/api/events", data=good, content_type="application/json",
                      headers={"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert own.status_code == 204, own.get_json()


def test_metrics_only_to_allowed_addresses(cluster, sample_alias):
    """PAPERSEARCH_METRICS_ALLOW: loopback by default; a request relayed by an untrusted proxy is not its own."""
    default = create_app(cluster.settings(sample_alias), rate_limit="off").test_client()
    assert default.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 200
    assert default.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    refused = default.get("/metrics", environ_base={"REMOTE_ADDR": "203.0.113.5"})
    assert refused.status_code == 404 and refused.get_json()["error"]["code"] == "not_found"
    relayed = default.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"},
                          headers={"X-Forwarded-For": "203.0.113.5"})
    assert relayed.status_code == 404  # a reverse proxy on this host must not open /metrics to the world
    lan = create_app(cluster.settings(sample_alias, PAPERSEARCH_METRICS_ALLOW="10.0.0.0/8, 192.168.1.7"),
                     rate_limit="off").test_client()
    assert [lan.get("/metrics", environ_base={"REMOTE_ADDR": a}).status_code
            for a in ("10.1.2.3", "192.168.1.7", "192.168.1.8", "127.0.0.1")] == [200, 200, 404, 404]
    proxied = create_app(cluster.settings(sample_alias, PAPERSEARCH_TRUSTED_PROXIES="1"), rate_limit="off")
    client = proxied.test_client()
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"},
                      headers={"X-Forwarded-For": "203.0.113.5"}).status_code == 404
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"},
                      headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200
    with pytest.raises(ValueError, match="not an address or CIDR"):
        cluster.settings(sample_alias, PAPERSEARCH_METRICS_ALLOW="10.0.0.0/33")


def test_metrics_count_requests_searches_and_elasticsearch_calls(cluster, sample_alias):
    client = create_app(cluster.settings(sample_alias), rate_limit="off").test_client()
    before = scrape(client)
    statuses = [client.get(path).status_code for path in (
        "/api/search?q=transformer", "/api/search?q=zzzqqqxxyy", "/?q=diffsuion", "/api/suggest?q=tra",
        "/no/such/page")]
    paper = client.get("/api/search?q=transformer").get_json()["hits"][0]["id"]
    statuses.append(client.get(f"/paper/{paper}").status_code)
    assert statuses == [200, 200, 200, 200, 404, 200]
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    requests = "papersearch_http_request_duration_seconds_count"
    assert delta(requests, route="/api/search", method="GET", status="2xx") == 3
    assert delta(requests, route="/", method="GET", status="2xx") == 1
    assert delta(requests, route="<unmatched>", method="GET", status="4xx") == 1
    assert delta("papersearch_searches_total", source="api") == 3
    assert delta("papersearch_searches_total", source="page") == 1
    assert delta("papersearch_zero_result_searches_total", source="api") == 1
    assert delta("papersearch_search_fallbacks_total", fallback="corrected") >= 1
    # "diffsuion" finds nothing: its spelling is checked in one _msearch, then the corrected query is shown.
    for kind in ("search", "spelling", "suggest", "get", "mlt"):
        assert delta("papersearch_es_request_duration_seconds_count", kind=kind) >= 1, kind
    assert delta("papersearch_querylog_written_total") == 0  # the log is off here


def test_rate_limited_requests_are_counted_and_metrics_never_limited(cluster, sample_alias):
    client = create_app(cluster.settings(sample_alias), rate_limit="2/minute").test_client()
    before = scrape(client)
    codes = [client.get("/api/search?q=x", environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code for _ in range(4)]
    assert codes == [200, 200, 429, 429]
    after = [scrape(client) for _ in range(5)][-1]  # five scrapes, none refused
    assert value(after, "papersearch_rate_limited_total") - value(before, "papersearch_rate_limited_total") == 2


def test_metrics_can_be_turned_off(cluster, sample_alias):
    client = create_app(cluster.settings(sample_alias, PAPERSEARCH_METRICS="off"), rate_limit="off").test_client()
    assert client.get("/metrics").status_code == 404
    assert client.get("/api/search?q=x").status_code == 200


class BlackHole:
    """A TCP server that accepts connections and never answers: a hung Elasticsearch."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.accepted: list[socket.socket] = []
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


def dead_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"  # closed again: connections are refused


@pytest.mark.parametrize("failure", ["hangs", "refuses"])
def test_a_query_log_cluster_that_hangs_or_is_gone_costs_searches_nothing(cluster, sample_alias, failure):
    app = create_app(cluster.settings(sample_alias), rate_limit="off")
    hole = BlackHole() if failure == "hangs" else None
    url = hole.url if hole else dead_port_url()
    # The searches use the real node; only the query log's writes go to the broken one.
    writer = QueryLogWriter(Elasticsearch(url, request_timeout=600, max_retries=0), "papersearch-querylog-tdead",
                            capacity=5, batch_size=1, flush_every=0.05)
    drops: dict[str, int] = {}
    writer.on_drop = lambda n, reason: drops.__setitem__(reason, drops.get(reason, 0) + n)
    app.extensions["recorder"].writer = writer
    client = app.test_client()
    try:
        statuses = [client.get("/api/search?q=transformer").status_code]
        if hole:  # the writer's first request is now stuck in the black hole for good
            deadline = time.monotonic() + 60
            while not hole.accepted:
                assert time.monotonic() < deadline, "the query log writer never connected"
                time.sleep(0.05)
            assert not writer.flush(0.5)  # stuck for good: no wait would do
        statuses += [client.get(path).status_code for path in ["/api/search?q=diffusion", "/?q=graph"] * 10]
        assert statuses == [200] * 21
        if hole:
            assert len(hole.accepted) == 1 and drops.get(FULL, 0) >= 21 - 1 - 5
        else:
            assert writer.flush(60) and UNAVAILABLE in drops and sum(drops.values()) == 21
    finally:
        writer.close(timeout=0)  # without waiting for the stuck request
        if hole:
            hole.close()


def test_a_retype_is_stored_once_checked_and_tokens_are_bound_to_their_site(cluster, sample_alias, logged_app,
                                                                             admin, log_base):
    """Issue 45.8: 20 retype posts stored 20 times, a retype from a search to itself or reversed was accepted,
    and a token of one site was taken by another site on the same checkout (the same .local/secret-key)."""
    client = logged_app.test_client()
    first = client.get("/api/search?q=grpah").get_json()["query_id"]
    time.sleep(1.1)  # a token's time is in seconds: the second search is a later one
    then = client.get("/api/search?q=graph").get_json()["query_id"]

    def post(query_id: str, previous: str, app=logged_app) -> int:
        body = f'{{"type":"retype","query_id":"{query_id}","previous_query_id":"{previous}"}}'
        return app.test_client().post("/api/events", data=body, content_type="application/json").status_code

    assert {post(then, first) for _ in range(20)} == {204}
    assert post(then, then) == 400 and post(first, first) == 400  # to itself
    assert post(first, then) == 400  # reversed: the "previous" search came later
    events = [d["event"] for d in stored(logged_app, admin, log_base)]
    assert events == ["search", "search", "retype"], events

    other_base = log_base + "_b"
    other = create_app(cluster.settings(sample_alias + "_b", PAPERSEARCH_QUERY_LOG="on",
                                        PAPERSEARCH_QUERY_LOG_INDEX=other_base), rate_limit="off")
    try:
        assert other.extensions["recorder"].query_ids.verify(then) is None  # the same secret, another site
        assert post(then, first, app=other) == 403  # not a query id this site signed (DECISIONS.md D-164)
        served = client.get("/api/search?q=graph").get_json()
        token, paper = served["query_id"], served["hits"][0]["id"]
        click = f'{{"type":"click","query_id":"{token}","position":1,"paper_id":"{paper}"}}'
        assert other.test_client().post("/api/events", data=click, content_type="application/json").status_code == 403
        assert logged_app.test_client().post("/api/events", data=click,
                                             content_type="application/json").status_code == 204
    finally:
        other.extensions["recorder"].writer.close()
