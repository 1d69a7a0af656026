"""The web application's HTML pages end to end: Flask's test client against a real alias on a real node.

The search page, its facets, paging and sorting, the two UI languages, the paper page with its citation
downloads, and autocomplete. The alias (tests/integration/conftest.py) holds the shipped sample papers plus a
few of our own (webapp_support.EXTRA: a Chinese paper, an abstract with a <script> tag, years and an "et al."
author list), loaded through the real indexer.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

from support import ROOT
from webapp_support import EXTRA, TOTAL, api, result_ids, text

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


def link(html: str, cls: str, text: str) -> str:
    """href of the first <a> with this class whose text contains `text`."""
    for a in parse(html).links:
        if (not cls or cls in a.get("class", "").split()) and text in a["text"]:
            return a["href"]
    raise AssertionError(f"no <a class={cls}> containing {text!r}")


def query(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


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
    # The Chinese paper among the first, not necessarily first: a Chinese query orders English papers on large
    # language models as the English words do (issue 42; DECISIONS.md D-142).
    assert "zh-llm-retrieval" in ids[:3]
    assert "<mark>" in html
    assert re.search(r"共 \d+ 条结果，用时 \d+ 毫秒", text(html))
    # Chinese "et al." and topic labels in the UI language.
    assert "张伟, 李娜 等" in text(html).replace(" ,", ",")  # each name a link to its page
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


def test_a_corrected_query_says_so_and_links_to_the_words_as_typed(client):
    html = client.get("/?q=diffsuion&lang=en").get_data(as_text=True)
    data = client.get("/api/search?q=diffsuion").get_json()
    if data["showing_for"]:  # the plugin profile: no paper has the word, the correction does
        assert 'id="showing-for"' in html and "Showing results for" in text(html) and data["hits"]
        href = re.search(r'class="as-spelled" href="([^"]+)"', html).group(1)
        assert query(href.replace("&amp;", "&")) == {"q": ["diffsuion"], "spell": ["0"], "lang": ["en"]}
        as_typed = client.get("/api/search?q=diffsuion&spell=0").get_json()
        assert as_typed["showing_for"] is None and as_typed["did_you_mean"] == data["showing_for"]
    else:  # core: the words as typed find papers (typo-tolerant); the correction is offered instead
        assert data["did_you_mean"] and 'id="showing-for"' not in html
    assert client.get("/api/search?q=x&spell=maybe").status_code == 400


def test_far_past_the_last_page_says_so_and_links_the_last_page(client):
    """Issue 44.6: page 9999 of a few pages is past the last page, not "only the first 10,000 can be paged"."""
    _, data = api(client, "/api/search?q=diffusion&page=9999")
    assert (data["past_last_page"], data["too_deep"], data["hits"]) == (True, False, [])
    for lang, says in (("en", "Page 9,999 is past the last page"), ("zh", "第 9,999 页已超出最后一页")):
        r = client.get(f"/?q=diffusion&page=9999&lang={lang}")
        html = r.get_data(as_text=True)
        assert r.status_code == 200 and says in text(html) and "10,000" not in text(html)
    last = next(a["href"] for a in parse(html).links if a.get("rel") == "last")
    assert query(last) == {"q": ["diffusion"], "lang": ["zh"]} | (
        {"page": [str(data["page_count"])]} if data["page_count"] > 1 else {})
    assert result_ids(client.get(last).get_data(as_text=True))


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


def test_titles_and_snippets_carry_the_language_they_are_written_in(client):
    """Issue 44.10: a Chinese title or snippet in the English UI is marked lang="zh", an English one in the Chinese UI
    lang="en" (screen readers switch voice, browsers pick fonts); result cards (also on author and topic pages),
    the paper page's heading and its similar papers."""
    english_ui = client.get("/?q=大语言模型&lang=en").get_data(as_text=True)
    card = english_ui.split('data-paper-id="zh-llm-retrieval"', 1)
    assert len(card) == 2, "the Chinese paper is among the results"
    title = card[0].rsplit('<h2 class="hit-title"', 1)[1]
    assert title.startswith(' lang="zh"')
    assert re.search(r'<p class="hit-snippet" lang="zh">[^<]*(<mark>)?[^<]*大', card[1])
    chinese_ui = client.get("/?q=graph+neural+networks&lang=zh").get_data(as_text=True)
    assert '<h2 class="hit-title" lang="en"><a href="/paper/gnn-molecules' in chinese_ui
    assert '<p class="hit-snippet" lang="en">' in chinese_ui
    paper = client.get("/paper/zh-llm-retrieval?lang=en").get_data(as_text=True)
    assert '<h1 id="paper-title" lang="zh">' in paper
    paper = client.get("/paper/gnn-molecules?lang=zh").get_data(as_text=True)
    assert '<h1 id="paper-title" lang="en">' in paper
    assert re.search(r'<ul class="similar-list">\s*<li>\s*<a href="/paper/[^"]+" lang="(en|zh)">', paper)


def test_the_year_range_button_is_not_a_topic_name():
    """Issue 44.10: in Chinese the range's button said 应用, the name of the Applications topic just above it."""
    from papersearch.taxonomy import Taxonomy

    taxonomy = Taxonomy.load()
    topics = set(taxonomy.areas.values()) | set(taxonomy.subareas.values())
    for lang in ("en", "zh"):
        catalogue = json.loads((ROOT / "webapp" / "translations" / f"{lang}.json").read_text(encoding="utf-8"))
        buttons = {catalogue["facet.range_apply"], catalogue["controls.apply"]}
        assert not buttons & (topics | set(taxonomy.areas) | {sub for _, sub in taxonomy.subareas}), lang


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
    assert r.headers["Content-Disposition"] == 'attachment; filename="zhang2024dayu.bib"'
    text = r.get_data(as_text=True)
    assert text.startswith("@article{zhang2024dayu,\n")  # a 学报 is a journal (config/record_types.json)
    assert "  author = {{张伟} and {李娜} and others},\n" in text
    assert "  title = {基于大语言模型的中文学术论文检索},\n" in text and "  journal = {中文信息学报},\n" in text
    r = client.get("/api/papers/xss-abstract/citation?format=ris")
    assert r.mimetype == "application/x-research-info-systems"
    assert r.headers["Content-Disposition"] == 'attachment; filename="example2023crosssite.ris"'
    lines = r.get_data(as_text=True).split("\r\n")
    # WebSec is in no rule: a generic record
    assert lines[:3] == ["TY  - GEN", "ID  - example2023crosssite", "TI  - Cross-site scripting in paper abstracts"]
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
    assert pre.startswith("@misc{example2023crosssite,")
    assert "&lt;script&gt;" in pre and "<script>alert" not in html  # escaped in the page
    assert 'data-copy="cite-bibtex"' in html and "<script>" not in html.split("</head>")[1].replace(
        '<script src="', "")  # no inline script: the copy button's code is in static/app.js


def test_suggest_json(client):
    r = client.get("/api/suggest?q=Haoy")
    assert r.status_code == 200 and r.mimetype == "application/json"
    suggestions = r.get_json()["suggestions"]
    author = next(s for s in suggestions if s["text"] == "Haoyun Jiang")
    assert author["kind"] == "author" and author["url"] == "/author/Haoyun%20Jiang"  # their page (issue 44)
    assert client.get("/api/suggest?q=").get_json() == {"suggestions": []}
    assert client.get("/suggest?q=Haoy").status_code == 404  # one suggest route: the API's
    # The page's autocomplete script asks the API route.
    assert 'data-suggest-url="/api/suggest"' in client.get("/").get_data(as_text=True)
    title = client.get("/api/suggest?q=Cross-site").get_json()["suggestions"][0]
    assert title["kind"] == "title" and title["url"] == "/paper/xss-abstract"
