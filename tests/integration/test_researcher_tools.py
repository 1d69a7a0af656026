"""What researchers' other tools read, checked with parsers we did not write, against a real alias: citation_*
tags and JSON-LD on paper pages (extruct, lxml), COinS on results, the Atom feed (feedparser and the RFC 4287
RELAX NG schema), the OpenSearch description and suggestions, robots.txt (protego), sitemaps (the
sitemaps.org XSDs) and exports of a 200-paper search (bibtexparser, rispy, the csv module)."""

from __future__ import annotations

import csv
import io
import json
from urllib.parse import parse_qs, urlsplit

import bibtexparser
import extruct
import pytest
import rispy
from consumers import opensearch_urls, valid_atom, xsd
from lxml import etree, html
from protego import Protego
from support import SAMPLE, build_alias, loaded_alias, next_millisecond, write_jsonl

from indexer import operations
from indexer.loading.rejects import RejectsWriter
from webapp import create_app, headers_and_limits

PAPERS = [
    {"id": "en-paper", "title": "Sparse attention for long documents", "title_zh": "长文档的稀疏注意力",
     "abstract": "We make attention sparse so that transformers read long documents & <tables>.",
     "authors": ["Ada Lovelace", "Søren Hauberg"], "year": 2024, "venue": "ICLR", "keywords": ["attention"],
     "url": "https://example.org/sparse", "pdf_url": "https://example.org/sparse.pdf",
     "topic_area": "Deep Learning", "topic_subarea": "Attention Mechanisms"},
    {"id": "zh-paper", "title_zh": "基于大语言模型的中文学术论文检索",
     "abstract_zh": "本文研究大语言模型在中文学术论文检索中的应用。", "authors": ["张伟", "李娜"],
     "year": 2025, "venue": "中文信息学报"},
    {"id": "etal-paper", "title": "Graph networks for molecules", "abstract": "Graphs generate molecules.",
     "authors": ["Alan Turing", "Grace Hopper"], "authors_et_al": True, "year": 2022},
    {"id": "bare-paper", "title": "A paper with nothing else"},
]
TOKAMAK = [{"id": f"tok-{i:03d}", "title": f"Tokamak plasma confinement study {i}",
            "abstract": f"Tokamak experiment number {i} on plasma confinement.",
            "authors": ["Marie Curie" if i % 3 else "Lise Meitner", f"Author {i}"], "year": 2020 + i % 3,
            "venue": "Fusion" if i % 2 else None} for i in range(200)]
TOTAL = 40 + len(PAPERS) + len(TOKAMAK)


@pytest.fixture(scope="module")
def tools_alias(cluster, tmp_path_factory):
    path = write_jsonl(tmp_path_factory.mktemp("tools") / "papers.jsonl", PAPERS + TOKAMAK)
    with loaded_alias(cluster, "paperstest_tools", [SAMPLE, path]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def app(cluster, tools_alias):  # the integration conftest's `client` serves this app
    return create_app(cluster.settings(tools_alias), rate_limit="off")


def by_class(tree, path: str, cls: str) -> list:
    return tree.xpath(f"{path}[contains(concat(' ', @class, ' '), ' {cls} ')]")


def meta_tags(page: str) -> list[tuple[str, str, str | None]]:
    return [(m.get("name"), m.get("content"), m.get("lang")) for m in html.fromstring(page).iterfind(".//head/meta")
            if m.get("name")]


# --- paper pages and results pages --------------------------------------------------------------------------


@pytest.mark.parametrize("record", PAPERS[:3], ids=["english", "chinese", "et-al"])
def test_paper_page_metadata_reads_back_as_the_record(client, record):
    page = client.get(f"/paper/{record['id']}").get_data(as_text=True)
    tags = meta_tags(page)
    values = {name: [c for n, c, _ in tags if n == name] for name, _, _ in tags}
    title = record.get("title") or record["title_zh"]
    assert values["citation_title"] == [title]
    assert values["citation_author"] == record["authors"]  # one per author, in order; "et al." adds none
    assert values["citation_publication_date"] == [str(record["year"])]
    # the venue by record type (config/record_types.json): ICLR a conference, 中文信息学报 a journal
    venue_tag = {"ICLR": "citation_conference_title", "中文信息学报": "citation_journal_title"}.get(record.get("venue"))
    for tag in ("citation_conference_title", "citation_journal_title"):
        assert values.get(tag) == ([record["venue"]] if tag == venue_tag else None)
    assert values["citation_abstract"] == [record.get("abstract") or record["abstract_zh"]]
    assert values.get("citation_pdf_url") == ([record["pdf_url"]] if record.get("pdf_url") else None)
    assert values.get("citation_abstract_html_url") == ([record["url"]] if record.get("url") else None)
    assert values["citation_language"] == (["zh"] if "title" not in record else ["en", "zh"] if "title_zh" in record
                                           else ["en"])

    data = extruct.extract(page, base_url="http://localhost/", syntaxes=["json-ld", "dublincore"])
    [article] = data["json-ld"]
    assert article["@type"] == "ScholarlyArticle" and article["url"] == f"http://localhost/paper/{record['id']}"
    assert article["headline"] == title and article["datePublished"] == str(record["year"])
    assert [a["name"] for a in article["author"]] == record["authors"]
    assert article["abstract"] == values["citation_abstract"][0]
    assert article.get("sameAs") == record.get("url")
    alternative = [t for d in data["dublincore"] for t in d["terms"] if t["name"] == "DCTERMS.alternative"]
    if record.get("title") and record.get("title_zh"):
        assert article["alternativeHeadline"] == record["title_zh"]
        assert [(t["content"], t["lang"]) for t in alternative] == [(record["title_zh"], "zh")]
    else:
        assert "alternativeHeadline" not in article and not alternative


def test_metadata_holds_nothing_the_record_lacks_and_cannot_break_out(client):
    page = client.get("/paper/bare-paper").get_data(as_text=True)
    assert [n for n, _, _ in meta_tags(page) if n.startswith("citation_")] == ["citation_title", "citation_language"]
    [article] = extruct.extract(page, syntaxes=["json-ld"])["json-ld"]
    assert set(article) == {"@context", "@type", "@id", "url", "headline", "name", "inLanguage"}
    page = client.get("/paper/en-paper").get_data(as_text=True)
    script = page.split('<script type="application/ld+json">')[1].split("</script>")[0]
    assert "<" not in script and "\\u003ctables\\u003e" in script  # escaped inside the script element


def test_results_carry_one_coins_span_per_hit(client):
    page = html.fromstring(client.get("/?q=attention+documents").get_data(as_text=True))
    hits = by_class(page, "//li", "hit")
    spans = [parse_qs(s.get("title")) for hit in hits for s in by_class(hit, "./span", "Z3988")]
    assert hits and len(spans) == len(hits)
    first = spans[0]
    assert first["ctx_ver"] == ["Z39.88-2004"] and first["rft.atitle"] == [PAPERS[0]["title"]]
    assert first["rft.au"] == PAPERS[0]["authors"] and first["rft.jtitle"] == ["ICLR"]
    assert first["rft.genre"] == ["proceeding"] and first["rft.date"] == ["2024"]


# --- feeds -------------------------------------------------------------------------------------------------


def test_feeds_parse_validate_and_link_back(client):
    r = client.get("/feed?q=tokamak&year=2021")
    assert r.status_code == 200 and r.mimetype == "application/atom+xml"
    parsed = valid_atom(r.data)
    assert parsed.feed.title == "tokamak · 2021 — new papers · PaperSearch"
    assert len(parsed.entries) == 50  # FEED_ENTRIES of the 67 matching papers
    entry = parsed.entries[0]
    assert entry.link.startswith("http://localhost/paper/tok-") and entry.title.startswith("Tokamak plasma")
    assert entry.authors[0].name in ("Marie Curie", "Lise Meitner") and entry.summary
    assert entry.updated_parsed and entry.published == entry.updated
    assert parsed.feed.links[0].href == "http://localhost/feed?q=tokamak&year=2021"  # self, canonical
    zh = valid_atom(client.get("/feed?q=大语言模型&lang=zh").data)
    assert zh.feed.title == "大语言模型 —— 新论文 · 论文搜索" and zh.feed.language == "zh-CN"
    [chinese] = [e for e in zh.entries if e.title == PAPERS[1]["title_zh"]]
    assert chinese.title_detail.language == "zh" and chinese.summary == PAPERS[1]["abstract_zh"]
    empty = valid_atom(client.get("/feed?q=qqxqzzjjwv").data)
    assert empty.entries == [] and empty.feed.updated == "1970-01-01T00:00:00.000Z"
    r = client.get("/feed?year_from=0&lang=en")
    assert r.status_code == 400 and "outside 1–9999" in r.get_data(as_text=True)


def test_results_page_links_the_feed_and_the_exports(client):
    page = html.fromstring(client.get("/?q=tokamak&sort=title&page=2").get_data(as_text=True))
    [alternate] = page.xpath("//head/link[@rel='alternate'][@type='application/atom+xml']")
    [follow] = by_class(page, "//a", "follow")
    assert alternate.get("href") == follow.get("href") == "/feed?q=tokamak"  # newest first, whatever the page's sort
    exports = [a.get("href") for span in by_class(page, "//span", "export") for a in span.iterfind("a")]
    assert exports == [f"/api/export?q=tokamak&sort=title&format={f}" for f in ("bibtex", "ris", "csl-json", "csv")]
    [search] = page.xpath("//head/link[@rel='search']")
    assert search.get("type") == "application/opensearchdescription+xml"
    assert search.get("href") == "/opensearch.xml?lang=en"


def test_a_new_paper_tops_an_open_feed_and_a_reindex_moves_nothing(cluster, alias, tmp_path):
    old = [{"id": f"old-{i}", "title": f"Stellarator coil design {i}", "year": 2020} for i in range(5)]
    build_alias(cluster, alias, [write_jsonl(tmp_path / "old.jsonl", old)])
    client = create_app(cluster.settings(alias), rate_limit="off").test_client()

    def feed_ids() -> list[str]:
        parsed = valid_atom(client.get("/feed?q=stellarator").data)
        return [e.link.rsplit("/", 1)[1] for e in parsed.entries]

    assert set(feed_ids()) == {p["id"] for p in old}
    next_millisecond()
    new = {"id": "new-1", "title": "Stellarator coil design revisited", "year": 2019}  # an older year, added last
    with RejectsWriter(None) as rejects:
        operations.add(cluster.client("indexer"), cluster.settings(alias),
                       [write_jsonl(tmp_path / "new.jsonl", [new])], rejects, progress=False)
    after_add = feed_ids()
    assert after_add[0] == "new-1"
    next_millisecond()
    newest = {"id": "new-2", "title": "Stellarator coil design, the sequel"}
    build_alias(cluster, alias, [write_jsonl(tmp_path / "all.jsonl", [*old, new, newest])])
    after_reindex = feed_ids()
    assert after_reindex[:2] == ["new-2", "new-1"]  # only the paper new to the index goes on top
    assert after_reindex[2:] == after_add[1:]  # the rebuilt old papers keep their places


# --- the browser's search bar ---------------------------------------------------------------------------------


def test_opensearch_description_and_suggestions(client):
    r = client.get("/opensearch.xml?lang=zh")
    assert r.mimetype == "application/opensearchdescription+xml"
    urls = opensearch_urls(r.data)
    doc = etree.fromstring(r.data)
    ns = {"os": "http://a9.com/-/spec/opensearch/1.1/"}
    assert doc.findtext("os:ShortName", namespaces=ns) == "论文搜索"
    assert doc.findtext("os:Language", namespaces=ns) == "zh-CN"
    assert urls["text/html"] == "http://localhost/?q={searchTerms}&lang=zh"
    suggest = urls["application/x-suggestions+json"]
    r = client.get(urlsplit(suggest.replace("{searchTerms}", "Tokam")).path + "?q=Tokam")
    assert r.mimetype == "application/x-suggestions+json"
    prefix, texts, kinds, links = json.loads(r.data)
    assert prefix == "Tokam" and texts and all(t.startswith("Tokamak") for t in texts)
    assert len(kinds) == len(links) == len(texts) and all(u.startswith("http://localhost/paper/tok-") for u in links)
    assert json.loads(client.get("/api/opensearch/suggest?q=").data) == ["", [], [], []]


# --- crawlers ----------------------------------------------------------------------------------------------------


def test_robots_txt_lets_crawlers_reach_papers_only(client):
    robots = Protego.parse(client.get("/robots.txt").get_data(as_text=True))
    base = "http://localhost"
    for path in ("/paper/en-paper", "/", "/?q=tokamak", "/sitemap.xml", "/?q=tokamak&sort=year"):
        assert robots.can_fetch(base + path, "Googlebot"), path
    for path in ("/?q=tokamak&page=2", "/?page=3", "/api/search?q=x", "/api/export?q=x", "/feed?q=x"):
        assert not robots.can_fetch(base + path, "Googlebot"), path
    assert list(robots.sitemaps) == [f"{base}/sitemap.xml"]


def _sitemap_locs(client, url: str) -> list[str]:
    r = client.get(url.removeprefix("http://localhost"))
    assert r.status_code == 200 and r.mimetype == "application/xml"
    doc = etree.fromstring(r.data)
    assert xsd("sitemap.xsd").validate(doc), xsd("sitemap.xsd").error_log
    return [loc.text for loc in doc.iter("{*}loc")]


def _sitemap_ids(client, url: str) -> list[str]:
    return [loc.rsplit("/paper/", 1)[1] for loc in _sitemap_locs(client, url) if "/paper/" in loc]


@pytest.mark.parametrize("per_file", [TOTAL + 100, 50, TOTAL // 4])
def test_sitemap_is_one_file_or_an_index_of_files(app, per_file):
    """Paper pages and (issue 34) topic pages: one file while both fit, else paper files and the topics' file."""
    app.config["SITEMAP_MAX_URLS"] = per_file
    client = app.test_client()
    try:
        r = client.get("/sitemap.xml")
        doc = etree.fromstring(r.data)
        topics = _sitemap_locs(client, "/sitemap-topics.xml")
        assert topics and all("/topic/" in t for t in topics)
        if per_file >= TOTAL + len(topics):
            assert doc.tag.endswith("urlset")
            ids = _sitemap_ids(client, "/sitemap.xml")
            papers = {f"http://localhost/paper/{i}" for i in ids}
            assert set(_sitemap_locs(client, "/sitemap.xml")) - papers == set(topics)
        else:
            assert doc.tag.endswith("sitemapindex")
            assert xsd("siteindex.xsd").validate(doc), xsd("siteindex.xsd").error_log
            *files, topics_file = [loc.text for loc in doc.iter("{*}loc")]
            assert topics_file == "http://localhost/sitemap-topics.xml"
            assert len(files) == -(-TOTAL // per_file)  # TOTAL // 4 divides evenly: no empty file at the end
            parts = [_sitemap_ids(client, f) for f in files]
            assert all(len(p) == per_file for p in parts[:-1]) and 0 < len(parts[-1]) <= per_file
            ids = [i for p in parts for i in p]
        assert len(ids) == len(set(ids)) == TOTAL and ids == sorted(ids)
    finally:
        app.config["SITEMAP_MAX_URLS"] = 50_000


# --- exports -----------------------------------------------------------------------------------------------------


def _tokamak_ids(client) -> list[str]:
    pages = [client.get(f"/api/search?q=tokamak&sort=year&size=100&page={p}").get_json() for p in (1, 2)]
    return [h["id"] for page in pages for h in page["hits"]]


def test_export_of_a_200_paper_search_in_every_format(client):
    expected = _tokamak_ids(client)
    assert len(expected) == 200
    r = client.get("/api/export?q=tokamak&sort=year&format=bibtex")
    assert r.status_code == 200 and r.is_streamed and r.mimetype == "application/x-bibtex"
    assert r.headers["Content-Disposition"] == 'attachment; filename="papers.bib"'
    library = bibtexparser.parse_string(r.get_data(as_text=True))
    assert not library.failed_blocks  # e.g. a duplicate key
    keys = [e.key for e in library.entries]
    assert len(keys) == len(set(keys)) == 200
    titles = [e.fields_dict["title"].value for e in library.entries]
    assert titles == [f"Tokamak plasma confinement study {int(i[4:])}" for i in expected]

    r = client.get("/api/export?q=tokamak&sort=year&format=ris")
    records = rispy.loads(r.get_data(as_text=True))
    assert r.mimetype == "application/x-research-info-systems" and len(records) == 200
    assert [rec["title"] for rec in records] == titles and len({rec["id"] for rec in records}) == 200
    assert records[0]["authors"][1].endswith(", Author")  # family name first

    r = client.get("/api/export?q=tokamak&sort=year&format=csv")
    assert r.mimetype == "text/csv" and r.headers["Content-Disposition"] == 'attachment; filename="papers.csv"'
    rows = list(csv.DictReader(io.StringIO(r.data.decode("utf-8-sig"))))
    assert [row["id"] for row in rows] == expected
    assert rows[0]["page"] == f"http://localhost/paper/{expected[0]}" and rows[0]["added"].endswith("Z")
    assert client.get("/api/export?q=tokamak&format=csv&limit=7").data.decode("utf-8-sig").count("\r\n") == 8


def test_export_keeps_chinese_and_guards_spreadsheets(cluster, alias, tmp_path):
    papers = [{"id": "f1", "title": "=HYPERLINK(\"http://evil\") formulas", "authors": ["张伟"]},
              {"id": "f2", "title_zh": "中文标题", "authors": ["+Plus Sign"]}]
    build_alias(cluster, alias, [write_jsonl(tmp_path / "f.jsonl", papers)])
    client = create_app(cluster.settings(alias), rate_limit="off").test_client()
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(
        client.get("/api/export?format=csv").data.decode("utf-8-sig")))}
    assert rows["f1"]["title"].startswith("'=HYPERLINK") and rows["f1"]["authors"] == "张伟"
    assert rows["f2"]["title_zh"] == "中文标题" and rows["f2"]["authors"] == "'+Plus Sign"


@pytest.mark.parametrize(("qs", "message"), [
    ("format=endnote", "Unknown export format"), ("limit=0", "from 1 to 500"), ("limit=501", "from 1 to 500"),
    ("limit=x", "must be a whole number"), ("year=abc", "must be a whole number"), ("sort=random", "Unknown sort"),
])
def test_bad_export_parameters_are_400(client, qs, message):
    r = client.get(f"/api/export?{qs}")
    assert r.status_code == 400 and message in r.get_json()["error"]["message"]


# What Schemathesis sent with seed 107653299 (issue 58), answered 200 with an empty body (no paper matched): eleven
# area values, one of them empty (the document's maxItems counts it), and a record type there is none of.
ISSUE_58 = ("area=true&area=Pk%F1%BB%BF%8B4&area=%22&area=%C3%8E_%F2%97%A2%A4%C2%9C%F1%90%96%83%C2%A8%07%C2%B2L%C3%9524"
            "&area=8&area=&area=-8664&area=-1.1997249010035119e-252&area=-14785291551061"
            "&area=-9.015416490428117e-164&area=false&spell=true&subarea=&limit=&type=%3Ew")
ELEVEN_AREAS = ISSUE_58.split("&spell")[0]


@pytest.mark.parametrize(("qs", "message"), [
    (ISSUE_58, "Too many values for “area” (at most 10)"), (ELEVEN_AREAS, "Too many values for “area” (at most 10)"),
    ("type=%3Ew", "Unknown value “>w” for “type”; choose one of conference-paper, journal-article, preprint"),
    ("language=fr", "Unknown value “fr” for “language”; choose one of en, zh"),
])
@pytest.mark.parametrize("path", ["/api/export", "/api/search", "/feed", "/"])
def test_every_route_that_searches_refuses_what_the_document_refuses(client, path, qs, message):
    """One validation for the page, the API, the feed and the export: a 400 with its reason, before anything is
    searched or streamed."""
    r = client.get(f"{path}?{qs}")
    assert r.status_code == 400
    text = r.get_json()["error"]["message"] if path.startswith("/api") else r.get_data(as_text=True)
    assert message in text.replace("&gt;", ">")


def test_a_digit_that_is_no_number_is_400_under_the_rate_limit(cluster, tools_alias):
    """Schemathesis seed 1691421479: the limiter priced an export by reading limit=² (a Unicode digit) as a number."""
    client = create_app(cluster.settings(tools_alias), rate_limit="1000/minute").test_client()
    r = client.get("/api/export?limit=%C2%B2")
    assert r.status_code == 400 and "must be a whole number" in r.get_json()["error"]["message"]


def test_every_closed_value_is_taken(client):
    for qs in ("type=preprint&type=journal-article&type=conference-paper", "language=en&language=zh",
               "area=&" * 9 + "area=x"):
        assert client.get(f"/api/export?{qs}").status_code == 200
        assert client.get(f"/api/search?{qs}").status_code == 200


def test_sitemap_file_parameter_is_checked(client):
    r = client.get("/sitemap-papers.xml?after=" + "x" * 600)
    assert r.status_code == 400 and "<html" in r.get_data(as_text=True)


# --- the new routes keep the site's headers and limits, and are documented ---------------------------------------


NEW_ROUTES = ["/feed?q=tokamak", "/opensearch.xml", "/api/opensearch/suggest?q=tok", "/robots.txt", "/sitemap.xml",
              "/sitemap-papers.xml", "/api/export?q=tokamak&limit=3"]


def test_new_routes_keep_security_headers_and_the_rate_limit(cluster, tools_alias):
    plain = create_app(cluster.settings(tools_alias), rate_limit="off")
    budget = 0
    for path in NEW_ROUTES:  # each weighs what it costs (webapp/headers_and_limits.py WEIGHTS)
        with plain.test_request_context(path):
            budget += headers_and_limits.cost()
    client = create_app(cluster.settings(tools_alias), rate_limit=f"{budget}/minute").test_client()
    for path in NEW_ROUTES:
        r = client.get(path)
        r.close()  # a streamed body holds its request context until closed
        assert r.status_code == 200, path
        assert "default-src 'self'" in r.headers["Content-Security-Policy"], path
        assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["X-Frame-Options"] == "DENY", path
    for path in NEW_ROUTES:
        r = client.get(path)
        assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 60, path


def test_openapi_lists_the_new_routes_with_maxima(client):
    doc = client.get("/api/openapi.json").get_json()
    assert {"/api/export", "/api/opensearch/suggest", "/feed", "/opensearch.xml", "/robots.txt", "/sitemap.xml",
            "/sitemap-papers.xml"} <= set(doc["paths"])
    export = {p["name"]: p["schema"] for p in doc["paths"]["/api/export"]["get"]["parameters"]}
    assert export["limit"]["maximum"] == 500 and export["format"]["enum"] == ["bibtex", "ris", "csl-json", "csv"]
    assert "page" not in export and "size" not in export
    feed = {p["name"]: p["schema"] for p in doc["paths"]["/feed"]["get"]["parameters"]}
    assert feed["sort"]["default"] == "added" and "page" not in feed
    integers = [(path, p["name"], p["schema"]) for path in ("/api/export", "/feed", "/sitemap-papers.xml")
                for p in doc["paths"][path]["get"].get("parameters", [])
                if (p["schema"].get("items") or p["schema"]).get("type") == "integer"
                or "integer" in json.dumps(p["schema"])]
    assert integers and all("maximum" in json.dumps(s) for _, _, s in integers), integers


def test_absolute_urls_are_the_public_address_behind_a_proxy_or_not(cluster, tools_alias, client):
    """PAPERSEARCH_PUBLIC_URL alone (DECISIONS.md D-115): not the scheme a
    proxy forwards, trusted or not."""
    behind = create_app(cluster.settings(tools_alias, PAPERSEARCH_TRUSTED_PROXIES="1",
                                         PAPERSEARCH_PUBLIC_URL="https://papers.example.org"),
                        rate_limit="off").test_client()
    forwarded = {"X-Forwarded-Proto": "http", "X-Forwarded-For": "192.0.2.7"}
    assert "Sitemap: https://papers.example.org/" in behind.get("/robots.txt", headers=forwarded).get_data(as_text=True)
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.7"}
    assert "Sitemap: http://localhost/" in client.get("/robots.txt", headers=forwarded).get_data(as_text=True)
