"""The web application end to end: Flask's test client against a real alias on a real node.

The alias holds the shipped sample papers plus a few of our own (a Chinese paper, an abstract with a
<script> tag, years and an "et al." author list), loaded through the real indexer.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest
from elasticsearch import AuthorizationException, Elasticsearch
from limits.errors import ConfigurationError
from support import ROOT, SAMPLE, loaded_alias, write_jsonl

from papersearch.index_definition import search_config
from papersearch.settings import Settings
from webapp import create_app
from webapp.services.search import SearchService

CONFIG = search_config()

EXTRA = [
    {"id": "zh-llm-retrieval", "title_zh": "基于大语言模型的中文学术论文检索",
     "abstract_zh": "本文研究大语言模型在中文学术论文检索中的应用，提出一种结合词语切分与双字索引的方法。",
     "authors": ["张伟", "李娜"], "authors_et_al": True,
     "topic_area": "Deep Learning", "topic_subarea": "Large Language Models",
     "year": 2024, "venue": "中文信息学报", "url": "https://example.org/zh-llm"},
    {"id": "xss-abstract", "title": "Cross-site scripting in paper abstracts",
     "abstract": "We show that <script>alert('xss')</script> inside an abstract must be escaped by every "
                 "search engine that displays it.",
     "authors": ["Mallory Example"], "topic_area": "Social Aspects", "topic_subarea": "Security",
     "year": 2023, "venue": "WebSec", "pdf_url": "https://example.org/xss.pdf"},
    {"id": "gnn-molecules", "title": "Graph neural networks for molecule generation",
     "abstract": "Graph neural networks generate molecules with diffusion over bonds and atoms.",
     "authors": ["Ada Lovelace", "Alan Turing"], "authors_et_al": True,
     "topic_area": "Deep Learning", "topic_subarea": "Graph Neural Networks", "year": 2022},
]
TOTAL = 43  # 40 sample papers + EXTRA


# --- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def web_alias(cluster, admin: Elasticsearch, tmp_path_factory) -> Iterator[str]:
    """Sample + EXTRA behind a fresh alias, built by the real indexer (full reindex)."""
    extra = write_jsonl(tmp_path_factory.mktemp("web") / "extra.jsonl", EXTRA)
    with loaded_alias(cluster, "paperstest_web", [SAMPLE, extra]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def app(cluster, web_alias):
    return create_app(cluster.settings(web_alias), rate_limit="off")


@pytest.fixture
def client(app):
    return app.test_client()


# --- helpers --------------------------------------------------------------------------------------


class Links(HTMLParser):
    """Collects <a> tags (attributes + text) and the ids of result links, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict] = []
        self._open: dict | None = None
        self.scripts: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open = dict(attrs) | {"text": ""}
            self.links.append(self._open)
        elif tag == "script":
            self.scripts.append(dict(attrs))

    def handle_endtag(self, tag):
        if tag == "a":
            self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open["text"] += data


def parse(html: str) -> Links:
    parser = Links()
    parser.feed(html)
    for link in parser.links:
        link["text"] = " ".join(link["text"].split())
    return parser


def result_ids(html: str) -> list[str]:
    hits = html.split('<ol class="hits"', 1)[1].split("</ol>", 1)[0]
    return re.findall(r'<h2 class="hit-title"><a href="/paper/([^"?]+)', hits)


def link(html: str, cls: str, text: str) -> str:
    """href of the first <a> with this class whose text contains `text`."""
    for a in parse(html).links:
        if (not cls or cls in a.get("class", "").split()) and text in a["text"]:
            return a["href"]
    raise AssertionError(f"no <a class={cls}> containing {text!r}")


def query(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def api(client, path: str, **kw):
    response = client.get(path, **kw)
    return response, response.get_json()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- search page ----------------------------------------------------------------------------------


def test_home_lists_everything_with_labelled_search_box(client):
    r = client.get("/")
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert '<html lang="en">' in html
    assert '<label for="q"' in html and 'id="q" name="q"' in html
    assert '<label for="sort">' in html and '<label for="size">' in html
    assert f"Showing 1–10 of {TOTAL} results (" in text(html)
    assert len(result_ids(html)) == 10
    # Query syntax help, without JavaScript (a <details> element).
    assert "<details" in html and 'author:"Bo Li"' in html.replace("&#34;", '"')
    # CSP forbids inline scripts: every script has a src under /static.
    assert all(s.get("src", "").startswith("/static/") for s in parse(html).scripts)


def test_english_query_is_highlighted_and_timed(client):
    html = client.get("/?q=diffusion").get_data(as_text=True)
    assert re.search(r"Showing 1–\d+ of \d+ results? \(\d+ ms\)", text(html))
    assert "<mark>" in html.split('<ol class="hits"', 1)[1]
    assert "gnn-molecules" in result_ids(html)


def test_chinese_query_and_chinese_ui(client):
    r = client.get("/?q=大语言模型&lang=zh")
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert '<html lang="zh-CN">' in html
    ids = result_ids(html)
    assert ids[0] == "zh-llm-retrieval"
    assert "<mark>" in html
    assert re.search(r"共 \d+ 条结果，用时 \d+ 毫秒", text(html))
    # Chinese "et al." and topic labels in the UI language.
    assert "张伟, 李娜 等" in text(html)
    assert "深度学习" in text(html) and "大语言模型" in text(html)


def test_script_in_abstract_is_escaped(client):
    for path in ("/?q=scripting", "/paper/xss-abstract"):
        html = client.get(path).get_data(as_text=True)
        assert "<script>alert" not in html, path
        # The query word may be marked inside the escaped tag: compare without our <mark>s.
        assert "&lt;script&gt;alert" in re.sub(r"</?mark>", "", html), path
    data = client.get("/api/search?q=scripting").get_json()
    hit = next(h for h in data["hits"] if h["id"] == "xss-abstract")
    assert "<script>" in hit["abstract"]  # raw in JSON (its consumer escapes), never in HTML
    assert "<script>" not in hit["snippet_html"]


def test_empty_state(client):
    html = client.get("/?q=qqxqzzjjwv").get_data(as_text=True)
    assert "No papers match “qqxqzzjjwv”" in text(html)
    assert 'class="hits"' not in html


def test_did_you_mean_links_to_corrected_query(client):
    data = client.get("/api/search?q=difusion").get_json()
    html = client.get("/?q=difusion").get_data(as_text=True)
    if data["did_you_mean"]:
        assert 'class="did-you-mean"' in html
        href = re.search(r'class="did-you-mean">[^<]*<a href="([^"]+)"', html).group(1)
        assert query(href.replace("&amp;", "&"))["q"] == [data["did_you_mean"]]
    else:  # no correction offered for this data: the page must not show the block
        assert 'class="did-you-mean"' not in html


def test_too_deep_is_a_friendly_message(client):
    r = client.get("/?page=1001&size=10")
    assert r.status_code == 200
    assert "That page is too far back" in r.get_data(as_text=True)


# --- facets ---------------------------------------------------------------------------------------


def topic_counts(data: dict) -> dict[str, int]:
    facet = next(f for f in data["facets"] if f["name"] == "topic")
    return {v["value"]: v["count"] for v in facet["values"]}


def test_facet_click_is_disjunctive_within_topic(client):
    _, everything = api(client, "/api/search")
    counts = topic_counts(everything)
    first, second = sorted(counts, key=counts.get, reverse=True)[:2]

    html = client.get("/").get_data(as_text=True)
    href = link(html, "facet-value", first)
    assert query(href)["area"] == [first] and "page" not in query(href)
    html = client.get(href).get_data(as_text=True)
    assert f"of {counts[first]} results" in text(html)
    assert 'aria-checked="true"' in html
    # Other areas keep their counts (OR within the facet), so a second click widens the results.
    html = client.get(link(html, "facet-value", second)).get_data(as_text=True)
    assert f"of {counts[first] + counts[second]} results" in text(html)


def test_subareas_appear_under_a_selected_area_and_filter(client):
    html = client.get("/?area=Deep+Learning").get_data(as_text=True)
    assert 'class="facet-values facet-children"' in html
    href = link(html, "facet-value", "Large Language Models")
    assert query(href)["subarea"] == ["Deep Learning > Large Language Models"]
    data = client.get("/api" + "/search?" + urlsplit(href).query).get_json()
    assert data["total"] >= 1
    assert all(h["topic_subarea"] == "Large Language Models" for h in data["hits"])


def test_topic_chip_filters_and_clear_all_keeps_query(client):
    html = client.get("/?q=language").get_data(as_text=True)
    href = link(html, "chip", "Deep Learning")
    assert query(href) == {"q": ["language"], "area": ["Deep Learning"]}
    html = client.get(href + "&year=2024").get_data(as_text=True)
    # Selected-filter chips, each removable, and one "Clear all".
    assert "Remove filter: Deep Learning" in html and "Remove filter: 2024" in html
    clear = link(html, "clear-all", "Clear all")
    assert query(clear) == {"q": ["language"]}


def test_year_facet_and_filter(client):
    _, data = api(client, "/api/search")
    years = next(f for f in data["facets"] if f["name"] == "year")
    assert {v["value"] for v in years["values"]} >= {"2022", "2023", "2024"}
    _, data = api(client, "/api/search?year=2023&year=2024")
    assert {h["id"] for h in data["hits"]} == {"zh-llm-retrieval", "xss-abstract"}


# --- pagination, page size, sort --------------------------------------------------------------------


def test_pagination_and_page_size(client):
    html = client.get("/").get_data(as_text=True)
    first_page = result_ids(html)
    nav = html.split('class="pagination"', 1)[1].split("</nav>", 1)[0]
    assert 'aria-current="page"' in nav and 'rel="next"' in nav
    next_href = re.search(r'rel="next" href="([^"]+)"', nav).group(1).replace("&amp;", "&")
    assert query(next_href)["page"] == ["2"]
    html = client.get(next_href).get_data(as_text=True)
    assert f"Showing 11–20 of {TOTAL} results" in text(html)
    assert not set(result_ids(html)) & set(first_page)
    assert 'rel="prev"' in html

    html = client.get("/?size=25&page=2").get_data(as_text=True)
    assert f"Showing 26–{TOTAL} of {TOTAL} results" in text(html)
    assert len(result_ids(html)) == TOTAL - 25
    # A filter change from page 2 goes back to page 1 but keeps the page size.
    href = link(html, "facet-value", "Deep Learning")
    assert "page" not in query(href) and query(href)["size"] == ["25"]


def test_sorts(client):
    _, data = api(client, "/api/search?sort=year&size=50")
    years = [h["year"] for h in data["hits"]]
    known = [y for y in years if y is not None]
    assert known == sorted(known, reverse=True) and years[: len(known)] == known  # missing last
    _, data = api(client, "/api/search?sort=title&size=50")
    headings = [h["heading"].casefold() for h in data["hits"]]
    assert headings == sorted(headings)
    html = client.get("/?sort=year").get_data(as_text=True)
    assert '<option value="year" selected>' in html


# --- language -------------------------------------------------------------------------------------


def test_accept_language_cookie_and_switch(app):
    client = app.test_client()
    r = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"})
    html = r.get_data(as_text=True)
    assert '<html lang="zh-CN">' in html and "搜索论文" in html
    assert "Set-Cookie" not in r.headers  # negotiated, not chosen: nothing to remember
    switch = link(html, "", "English")
    assert query(switch)["lang"] == ["en"]

    r = client.get(switch, headers={"Accept-Language": "zh-CN"})
    assert '<html lang="en">' in r.get_data(as_text=True)
    assert "lang=en" in r.headers["Set-Cookie"]
    # The cookie now wins over Accept-Language.
    r = client.get("/?q=learning", headers={"Accept-Language": "zh-CN"})
    assert '<html lang="en">' in r.get_data(as_text=True)
    r = client.get("/?lang=zh")
    assert "lang=zh" in r.headers["Set-Cookie"]
    assert '<html lang="zh-CN">' in client.get("/").get_data(as_text=True)


def test_language_switch_keeps_the_search_state(client):
    html = client.get("/?q=learning&area=Theory&page=1&size=25").get_data(as_text=True)
    switch = link(html, "", "中文")
    assert query(switch) == {"q": ["learning"], "area": ["Theory"], "page": ["1"], "size": ["25"], "lang": ["zh"]}


def test_every_template_string_is_translated():
    en = json.loads((ROOT / "webapp" / "translations" / "en.json").read_text(encoding="utf-8"))
    zh = json.loads((ROOT / "webapp" / "translations" / "zh.json").read_text(encoding="utf-8"))
    plural_only = {k for k in en if k.endswith(".one")}
    assert set(en) - plural_only == set(zh) - plural_only
    used = set()
    for path in (ROOT / "webapp" / "templates").glob("*.html"):
        used |= set(re.findall(r"""\bt[n]?\(\s*'([a-z_.0-9]+)'""", path.read_text(encoding="utf-8")))
    assert not {k for k in used if not k.endswith(".")} - set(en)


# --- paper page, suggestions ----------------------------------------------------------------------


def test_paper_page_has_full_abstract_links_and_similar(client):
    r = client.get("/paper/gnn-molecules")
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    assert "<h1" in html and "Graph neural networks for molecule generation" in html
    assert EXTRA[2]["abstract"] in html
    assert "Similar papers" in html
    assert 'class="similar-list"' in html
    html = client.get("/paper/zh-llm-retrieval?lang=zh").get_data(as_text=True)
    assert EXTRA[0]["abstract_zh"] in html and 'href="https://example.org/zh-llm"' in html
    assert "中文信息学报" in html


def test_citation_download_bibtex_and_ris(client):
    r = client.get("/api/papers/zh-llm-retrieval/citation?format=bibtex")
    assert r.status_code == 200 and r.content_type == "application/x-bibtex; charset=utf-8"
    assert r.headers["Content-Disposition"] == 'attachment; filename="zhang2024jiyu.bib"'
    text = r.get_data(as_text=True)
    assert text.startswith("@inproceedings{zhang2024jiyu,\n")
    assert "  author = {{张伟} and {李娜} and others},\n" in text
    assert "  title = {基于大语言模型的中文学术论文检索},\n" in text and "  booktitle = {中文信息学报},\n" in text
    r = client.get("/api/papers/xss-abstract/citation?format=ris")
    assert r.mimetype == "application/x-research-info-systems"
    assert r.headers["Content-Disposition"] == 'attachment; filename="example2023crosssite.ris"'
    lines = r.get_data(as_text=True).split("\r\n")
    assert lines[:3] == ["TY  - CPAPER", "ID  - example2023crosssite", "TI  - Cross-site scripting in paper abstracts"]
    assert "AU  - Example, Mallory" in lines and "L1  - https://example.org/xss.pdf" in lines
    assert "AB  - We show that <script>alert('xss')</script> inside an abstract must be escaped by every " \
           "search engine that displays it." in lines  # a download, never rendered as HTML
    assert client.get("/api/papers/gnn-molecules/citation").mimetype == "application/x-bibtex"  # the default
    r, data = api(client, "/api/papers/gnn-molecules/citation?format=endnote")
    assert r.status_code == 400 and "Unknown citation format" in data["error"]["message"]
    r, data = api(client, "/api/papers/no-such-paper/citation")
    assert r.status_code == 404 and data["error"]["code"] == "not_found"


def test_paper_page_offers_the_citation(client):
    html = client.get("/paper/xss-abstract").get_data(as_text=True)
    assert 'href="/api/papers/xss-abstract/citation?format=bibtex" download' in html
    assert 'href="/api/papers/xss-abstract/citation?format=ris" download' in html
    pre = re.search(r'<pre id="cite-bibtex"[^>]*>(.*?)</pre>', html, re.S).group(1)
    assert pre.startswith("@inproceedings{example2023crosssite,")
    assert "&lt;script&gt;" in pre and "<script>alert" not in html  # escaped in the page
    assert 'data-copy="cite-bibtex"' in html and "<script>" not in html.split("</head>")[1].replace(
        '<script src="', "")  # no inline script: the copy button's code is in static/app.js


def test_suggest_json(client):
    r = client.get("/api/suggest?q=Haoy")
    assert r.status_code == 200 and r.mimetype == "application/json"
    suggestions = r.get_json()["suggestions"]
    author = next(s for s in suggestions if s["text"] == "Haoyun Jiang")
    assert author["kind"] == "author" and query(author["url"]) == {"q": ['author:"Haoyun Jiang"']}
    assert client.get("/api/suggest?q=").get_json() == {"suggestions": []}
    assert client.get("/suggest?q=Haoy").status_code == 404  # one suggest route: the API's
    # The page's autocomplete script asks the API route.
    assert 'data-suggest-url="/api/suggest"' in client.get("/").get_data(as_text=True)
    title = client.get("/api/suggest?q=Cross-site").get_json()["suggestions"][0]
    assert title["kind"] == "title" and title["url"] == "/paper/xss-abstract"


# --- JSON API -------------------------------------------------------------------------------------


def test_api_matches_the_page(client):
    for qs in ("q=learning", "q=learning&page=2", "area=Theory&sort=title", "q=大语言模型", "size=25&page=2"):
        _, data = api(client, f"/api/search?{qs}")
        html = client.get(f"/?{qs}").get_data(as_text=True)
        assert [h["id"] for h in data["hits"]] == result_ids(html), qs
        assert f"of {data['total']} result" in text(html), qs
        assert set(data) >= {"params", "total", "took_ms", "hits", "facets", "did_you_mean", "page_count",
                             "too_deep"}


def test_api_paper_and_404(client):
    r, data = api(client, "/api/papers/xss-abstract")
    assert r.status_code == 200 and data["paper"]["id"] == "xss-abstract"
    assert isinstance(data["similar"], list)
    r, data = api(client, "/api/papers/no-such-paper")
    assert r.status_code == 404 and data["error"]["code"] == "not_found"


def test_openapi_document(client):
    r, doc = api(client, "/api/openapi.json")
    assert r.status_code == 200
    assert doc["openapi"].startswith("3.1")
    assert set(doc["paths"]) >= {"/api/search", "/api/papers/{id}", "/api/suggest", "/api/openapi.json",
                                 "/healthz", "/readyz"}
    params = {p["name"]: p for p in doc["paths"]["/api/search"]["get"]["parameters"]}
    assert set(params) == {"q", "area", "subarea", "venue", "year", "year_from", "year_to", "sort", "page", "size",
                           "xl"}
    assert (params["size"]["schema"]["minimum"], params["size"]["schema"]["maximum"]) == (1, max(CONFIG["page_sizes"]))
    assert params["size"]["schema"]["default"] == CONFIG["default_page_size"]
    assert set(params["sort"]["schema"]["enum"]) == set(CONFIG["sorts"])
    assert params["q"]["schema"]["maxLength"] == CONFIG["max_query_length"]
    assert "pattern" in params["subarea"]["schema"]["items"]
    assert "SearchResult" in doc["components"]["schemas"]
    # Every $ref resolves inside the document.
    refs = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(doc))
    assert refs and all(ref in doc["components"]["schemas"] for ref in refs)


# --- errors ---------------------------------------------------------------------------------------


BAD = [
    ("page=0", "Page must be from 1 to 10000 (got 0)"),
    ("page=10001", "Page must be from 1 to 10000 (got 10001)"),
    # Once a 500 (Schemathesis): a page number beyond 64 bits could not be written back as JSON.
    ("page=6863645574222568226816", "Page must be from 1 to 10000 (got 6863645574222568226816)"),
    ("page=" + "9" * 5000, "Page must be from 1 to 10000"),
    ("page=1.0", "must be a whole number"),
    ("page=2&page=3", "may be given only once"),
    ("q=a&q=b", "may be given only once"),
    ("page=abc", "must be a whole number"),
    ("size=101", "Page size"),
    ("year=abc", "“year” must be a whole number"),
    ("year_from=0", "“year_from” 0 is outside 1–9999"),
    ("year=1" + "0" * 30, "is outside 1–9999"),  # once a 500: too large for the client's JSON
    ("sort=random", "Unknown sort"),
    ("subarea=Nonsense", "must look like"),
    ("q=" + "a" * (CONFIG["max_query_length"] + 1), "The query is too long"),
]


@pytest.mark.parametrize(("qs", "message"), BAD)
def test_bad_parameters_are_400_with_a_message(client, qs, message):
    r = client.get(f"/?{qs}")
    assert r.status_code == 400
    assert message in r.get_data(as_text=True).replace("&#34;", '"').replace("&gt;", ">")
    r, data = api(client, f"/api/search?{qs}")
    assert r.status_code == 400 and message in data["error"]["message"]


def test_the_api_takes_any_page_size_the_page_its_selector(client):
    total = api(client, "/api/search")[1]["total"]
    for size in (1, 7, 100):
        r, data = api(client, f"/api/search?size={size}")
        assert r.status_code == 200 and len(data["hits"]) == min(size, total) and data["params"]["size"] == size
        assert data["page_count"] == -(-total // size)
    r, data = api(client, "/api/search?size=101")
    assert r.status_code == 400 and data["error"]["message"] == "Page size must be from 1 to 100 (got 101)."
    r = client.get("/?size=7")
    assert r.status_code == 400 and "Page size 7 is not offered" in r.get_data(as_text=True)


def test_bad_parameter_message_in_chinese(client):
    r = client.get("/?page=0&lang=zh")
    assert r.status_code == 400 and "页码须在 1 到 10000 之间" in r.get_data(as_text=True)


def test_the_deepest_page_is_too_deep_not_an_error(client):
    """Pages up to the window's end answer (no hits beyond it, a friendly note); only beyond is a 400."""
    r, data = api(client, "/api/search?page=10000")
    assert r.status_code == 200 and data["too_deep"] is True and data["hits"] == []
    assert client.get("/?page=10000").status_code == 200


def test_over_long_suggest_prefix_is_400(client):
    r = client.get("/api/suggest?q=" + "x" * (CONFIG["max_query_length"] + 1))
    assert r.status_code == 400 and "too long" in r.get_json()["error"]["message"]


def test_404_pages(client):
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "Page not found" in r.get_data(as_text=True)
    assert client.get("/paper/no-such-paper").status_code == 404
    r, data = api(client, "/api/nothing-here")
    assert r.status_code == 404 and data["error"]["code"] == "not_found"


def test_unexpected_errors_are_500_without_a_trace(cluster, web_alias, caplog):
    class Exploding(SearchService):
        def search(self, params):
            raise RuntimeError("secret internals")

    service = Exploding(cluster.client("web"), web_alias)
    client = create_app(cluster.settings(web_alias), service=service, rate_limit="off").test_client()
    for path in ("/?q=x", "/api/search?q=x"):
        r = client.get(path)
        body = r.get_data(as_text=True)
        assert r.status_code == 500
        assert "secret internals" not in body and "Traceback" not in body
    assert any("secret internals" in rec.getMessage() or rec.exc_info for rec in caplog.records)


# --- health, availability -------------------------------------------------------------------------


def test_healthz_and_readyz(client, cluster):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    r = client.get("/readyz")
    assert r.status_code == 200 and r.get_json()["status"] == "ready"
    missing = create_app(cluster.settings("papers_missing_" + uuid.uuid4().hex[:8]), rate_limit="off")
    r = missing.test_client().get("/readyz")
    assert r.status_code == 503 and r.get_json()["status"] == "unavailable"
    r = missing.test_client().get("/?q=x")
    assert r.status_code == 503


class Forwarder:
    """A TCP port that forwards to the real node while running: 'the cluster comes back'."""

    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port, self.target = port, target
        self.server = socket.create_server(("127.0.0.1", port))
        self.server.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            upstream = socket.create_connection(self.target)
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.server.close()


def test_unreachable_cluster_is_a_fast_503_and_recovers(cluster, web_alias):
    port = free_port()  # nothing listens here yet
    settings = Settings(ES_URL=f"http://127.0.0.1:{port}", ES_WEB_USERNAME=cluster.web[0],
                        ES_WEB_PASSWORD=cluster.web[1], PAPERSEARCH_ALIAS=web_alias)
    client = create_app(settings, rate_limit="off").test_client()
    for path, is_json in (("/?q=learning", False), ("/api/search?q=learning", True), ("/paper/x", False),
                          ("/api/suggest?q=ab", True)):
        started = time.monotonic()
        r = client.get(path)
        elapsed = time.monotonic() - started
        body = r.get_data(as_text=True)
        assert r.status_code == 503, path
        assert elapsed < 1.5, (path, elapsed)
        assert "Traceback" not in body and "ConnectionError" not in body
        assert r.headers["Retry-After"]
        if is_json:
            assert r.get_json()["error"]["code"] == "unavailable"
        else:
            assert "Search is temporarily unavailable" in body
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200  # the process is alive all along

    # The cluster "comes back" on the same address: the same app recovers without a restart.
    target = urlsplit(cluster.url)
    forwarder = Forwarder(port, (target.hostname, target.port))
    try:
        deadline = time.monotonic() + 15
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "the app did not recover"
            time.sleep(0.2)
        r = client.get("/?q=learning")
        assert r.status_code == 200 and "results" in r.get_data(as_text=True)
    finally:
        forwarder.close()


# --- security -------------------------------------------------------------------------------------


def test_security_headers_everywhere(client):
    for path in ("/", "/api/search", "/healthz", "/no-such-page", "/static/style.css", "/?page=0"):
        r = client.get(path)
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "'unsafe-inline'" not in csp
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"
        assert r.headers["Referrer-Policy"]


def test_rate_limit_429_with_retry_after(cluster, web_alias, monkeypatch):
    client = create_app(cluster.settings(web_alias), rate_limit="3/minute").test_client()
    assert [client.get("/api/search").status_code for _ in range(3)] == [200, 200, 200]
    r = client.get("/api/search")
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    assert r.get_json()["error"]["code"] == "too_many_requests"
    r = client.get("/")
    assert r.status_code == 429 and "too quickly" in r.get_data(as_text=True)
    assert client.get("/healthz").status_code == 200  # probes are never throttled
    assert client.get("/static/style.css").status_code == 200  # nor are assets
    assert client.get("/no/such/page").status_code == 429  # unknown URLs count like the rest
    # Another client address has its own window.
    assert client.get("/api/search", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200

    monkeypatch.setenv("PAPERSEARCH_RATE_LIMIT", "2/minute")
    client = create_app(cluster.settings(web_alias)).test_client()
    assert [client.get("/healthz").status_code for _ in range(5)] == [200] * 5
    assert [client.get("/api/suggest?q=ab").status_code for _ in range(3)] == [200, 200, 429]


def test_rate_limit_storage_comes_from_the_settings(cluster, web_alias):
    settings = cluster.settings(web_alias, PAPERSEARCH_RATE_LIMIT_STORAGE="nosuchstore://x")
    with pytest.raises(ConfigurationError, match="nosuchstore"):
        create_app(settings, rate_limit="5/minute")
    settings = cluster.settings(web_alias, PAPERSEARCH_RATE_LIMIT_STORAGE="memory://")
    assert create_app(settings, rate_limit="5/minute").test_client().get("/api/search").status_code == 200


def test_web_identity_cannot_write_or_delete(cluster, web_alias):
    web = cluster.client("web")
    with pytest.raises(AuthorizationException):
        web.index(index=web_alias, id="evil", document={"id": "evil", "title": "x"})
    with pytest.raises(AuthorizationException):
        web.delete(index=web_alias, id="xss-abstract")
    with pytest.raises(AuthorizationException):
        web.update(index=web_alias, id="xss-abstract", doc={"title": "defaced"})
    concrete = next(iter(web.indices.get_alias(name=web_alias)))
    with pytest.raises(AuthorizationException):
        web.indices.delete(index=concrete)
    assert web.count(index=web_alias)["count"] == TOTAL
