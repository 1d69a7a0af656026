"""Issue 34 against a real node, on one shared alias (tests/fixtures/profile-papers.jsonl, conftest
`profile_alias`): the papers-per-year chart of a results page (its counts from the facets request, following the
other filters, sampled on a large index), author pages (names grouped by folded form, Chinese as written, a
name that covers several people said to), topic pages in both languages with their feed, and the sitemap."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest
from consumers import valid_atom, xsd
from lxml import etree, html
from webapp_support import page

from papersearch.taxonomy import Taxonomy
from webapp import create_app
from webapp.domain import SearchParams
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

LLM = "/topic/deep-learning/large-language-models"


@pytest.fixture(scope="module")
def app(cluster, profile_alias):  # the integration conftest's `client` serves this app
    return create_app(cluster.settings(profile_alias), rate_limit="off")


def bars(doc) -> dict[str, tuple[str, dict]]:
    """The chart's bars: their text (years and count) → what choosing one asks for (the language aside)."""
    return {a.text_content().split(".")[0].split("。")[0].strip():
            {k: v for k, v in parse_qs(urlsplit(a.get("href")).query).items() if k != "lang"}
            for a in doc.xpath("//ol[@class='chart-bars']//a")}


# --- results over time ---------------------------------------------------------------------------------------


def test_the_chart_counts_papers_per_year_and_follows_the_other_filters(client):
    doc = page(client, "/?area=Deep+Learning&lang=en")
    assert bars(doc)["2022: 3 papers"] == {"area": ["Deep Learning"], "year_from": ["2022"], "year_to": ["2022"]}
    assert bars(doc)["2016: 0 papers"]  # a gap is a bar of its own
    api = client.get("/api/search?area=Deep+Learning").get_json()
    year = next(f for f in api["facets"] if f["name"] == "year")
    counted = {int(v["value"]): v["count"] for v in year["values"]}
    assert {b["low"]: b["count"] for b in year["bars"] if b["count"]} == counted  # the same request's numbers
    assert [b["low"] for b in year["bars"]] == list(range(min(counted), max(counted) + 1))
    # Another filter narrows the bars; the year range does not (choosing more years stays possible), and the
    # bars inside it are marked.
    ranged = client.get("/api/search?area=Deep+Learning&venue=ICLR&year_from=2020").get_json()
    chosen = next(f for f in ranged["facets"] if f["name"] == "year")["bars"]
    assert {b["low"]: (b["count"], b["selected"]) for b in chosen if b["count"]} == {
        2019: (1, False), 2023: (1, True), 2024: (1, True)}
    assert ranged["total"] == 2


def test_choosing_a_bar_then_another_sets_a_span_and_clears_checked_years(client):
    doc = page(client, "/?q=language&year=2021&lang=en")
    assert bars(doc)["2021: 2 papers"] == {"q": ["language"], "year_from": ["2021"], "year_to": ["2021"]}  # no year=
    then = bars(page(client, "/?q=language&year_from=2021&year_to=2021&lang=en"))
    assert then["2024: 2 papers"] == {"q": ["language"], "year_from": ["2021"], "year_to": ["2024"]}
    assert then["2021: 2 papers (chosen)"] == {"q": ["language"]}  # the whole range: choosing it again clears it
    zh = page(client, "/?q=language&lang=zh")
    assert "2024：2 篇论文。只看 2024" in [a.text_content().strip() for a in zh.xpath("//ol[@class='chart-bars']//a")]


def test_on_a_large_index_the_chart_is_counted_on_the_sample_and_says_so(cluster, profile_alias):
    config = search_config()
    # 16 papers: more than can be paged through (a window of 5); sampled at 0.5
    config = config.model_copy(update={"max_result_window": 5, "large_index": config.large_index.model_copy(
        update={"above": 10, "sample": 8})})
    large = SearchService(cluster.client("web"), profile_alias, config=config)
    result = large.search(SearchParams())
    assert result.facets_are_estimates and not result.total_is_exact
    year = next(f for f in result.facets if f.name == "year")
    assert year.bars and 4 <= sum(b.count for b in year.bars) <= 32  # scaled estimates of 16 papers
    assert {v.value: v.count for v in year.values} == {str(b.low): b.count for b in year.bars if b.count}
    client = create_app(cluster.settings(profile_alias), service=large, rate_limit="off").test_client()
    doc = page(client, "/?lang=en")
    assert "(estimated)" in doc.xpath("string(//figcaption)")
    assert "about" in doc.xpath("string(//ol[@class='chart-bars']//a)")
    # A topic page by the same rule: its 11 papers are more than can be paged through, so its facets are sampled.
    topic = page(client, "/topic/deep-learning?lang=en")
    assert "(estimated)" in topic.xpath("string(//figcaption)") and "11 papers" in topic.xpath(
        "string(//p[@class='profile-facts'])")


# --- author pages ------------------------------------------------------------------------------------------------


def test_an_authors_spellings_share_one_page_newest_first(client):
    pages = [page(client, f"/author/{quote(n)}?lang=en") for n in ("Thomas Muller", "Thomas Müller", "thomas muller")]
    listed = [[a.get("data-paper-id") for a in d.xpath("//h2[@class='hit-title']/a")] for d in pages]
    assert listed[0] == listed[1] == listed[2] == ["mu-2023", "mu-2022", "mu-2021", "mu-2019"]
    doc = pages[0]
    assert doc.xpath("string(//h1)") == "Thomas Müller"  # as most of the papers write it
    assert doc.xpath("//link[@rel='canonical']/@href") == [f"http://localhost/author/{quote('Thomas Müller')}"]
    assert "Thomas Müller (3), Thomas Muller (1)" in " ".join(doc.xpath("string(//p[@class='profile-facts'])").split())
    coauthors = {a.text.strip(): a.get("href") for a in doc.xpath("//section[@class='coauthors']//a")}
    assert coauthors == {"Anna Schmidt": "/author/Anna%20Schmidt?lang=en", "Lars Berg": "/author/Lars%20Berg?lang=en"}
    assert not doc.xpath("//*[@id='several-heading']")
    data = client.get("/api/authors/Thomas%20Muller").get_json()
    assert (data["papers"], data["key"], data["several_people"]) == (4, "thomas muller", False)
    assert [(c["name"], c["count"]) for c in data["coauthors"]] == [("Anna Schmidt", 3), ("Lars Berg", 2)]
    year = next(f for f in data["result"]["facets"] if f["name"] == "year")
    assert {b["low"]: b["count"] for b in year["bars"]} == {2019: 1, 2020: 0, 2021: 1, 2022: 1, 2023: 1}


def test_with_words_the_authors_papers_come_by_relevance_and_filters_narrow_them(client):
    data = client.get("/api/authors/Thomas%20Muller?q=language+models").get_json()
    assert data["result"]["params"]["sort"] == "relevance"
    assert client.get("/api/authors/Thomas%20Muller").get_json()["result"]["params"]["sort"] == "year"
    hits = [h["id"] for h in data["result"]["hits"]]
    assert set(hits) == {"mu-2021", "mu-2022", "mu-2019"} and hits[0] != "mu-2023"
    assert "<mark>" in data["result"]["hits"][0]["heading_html"] + data["result"]["hits"][0]["snippet_html"]
    assert data["papers"] == 4  # the profile is the name's, whatever the words
    narrowed = client.get("/api/authors/Thomas%20Muller?venue=ICLR").get_json()
    assert [h["id"] for h in narrowed["result"]["hits"]] == ["mu-2023", "mu-2019"]
    venue = next(f for f in narrowed["result"]["facets"] if f["name"] == "venue")
    assert {v["value"] for v in venue["values"]} == {"ICLR", "NeurIPS", "ACL"}  # disjunctive, as on results
    doc = page(client, "/author/Thomas%20Muller?q=retrieval&lang=en")
    assert "most relevant first" in doc.xpath("string(//p[@id='results-summary'])")
    assert doc.xpath("//form[@class='profile-search']/@action") == ["/author/Thomas%20Muller"]
    assert page(client, "/author/Thomas%20Muller?area=Deep+Learning&lang=en").xpath(
        "//ol[@class='chart-bars']//a/@href")[0].startswith("/author/Thomas%20Muller?area=Deep+Learning&year_from=")


def test_a_chinese_name_is_kept_as_written_and_two_people_under_it_are_said_to_be(client):
    doc = page(client, f"/author/{quote('张伟')}?lang=zh")
    assert doc.xpath("string(//h1)") == "张伟" and doc.xpath("//h1/@lang") == ["zh"]
    assert doc.xpath("string(//h2[@id='several-heading'])") == "这个名字可能属于不止一位作者"
    groups = [" ".join(li.text_content().split()) for li in doc.xpath("//ul[@class='groups']/li")]
    assert groups == ["2 篇论文 · 深度学习 · 合作者 李娜", "2 篇论文 · 优化 · 合作者 王芳"]
    assert len(doc.xpath("//ol[@class='hits']/li")) == 4  # every paper listed, none guessed away
    data = client.get(f"/api/authors/{quote('张伟')}").get_json()
    assert data["several_people"] and [g["coauthors"] for g in data["groups"]] == [["李娜"], ["王芳"]]
    traditional = client.get(f"/api/authors/{quote('張偉')}").get_json()
    assert (traditional["papers"], [h["id"] for h in traditional["result"]["hits"]]) == (1, ["zw-trad"])


def test_every_author_name_on_results_and_paper_pages_links_to_their_page(client):
    results = page(client, "/?q=molecules")
    links = results.xpath("//p[@class='hit-authors']/a/@href")
    assert links == ["/author/Ada%20Lovelace", "/author/Network/Systems%20Group"]
    assert page(client, links[1] + "?lang=en").xpath("string(//h1)") == "Network/Systems Group"
    paper = page(client, "/paper/llm-2024")
    authors = {a.text: a.get("href") for a in paper.xpath("//p[@class='paper-authors']/a")}
    assert authors == {"Alan Turing": "/author/Alan%20Turing", "Eve <b>Bold</b>": "/author/Eve%20%3Cb%3EBold%3C/b%3E"}
    eve = client.get("/author/Eve%20%3Cb%3EBold%3C/b%3E").get_data(as_text=True)
    assert "Eve &lt;b&gt;Bold&lt;/b&gt;" in eve and "<b>Bold" not in eve


def test_an_unknown_name_is_a_404_and_the_json_is_in_the_api_document(client):
    assert client.get("/author/Nobody%20Here").status_code == 404
    missing = client.get("/api/authors/%E2%80%A6")  # "…": nothing to fold
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "not_found"
    assert client.get("/api/authors/Thomas%20Muller?page=0").status_code == 400
    doc = client.get("/api/openapi.json").get_json()
    operation = doc["paths"]["/api/authors/{name}"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"name", "q", "area", "venue", "year_from", "page"}
    assert "sort" not in {p["name"] for p in operation["parameters"]}
    # a person's page, or the people of a surname many carry (DECISIONS.md D-181)
    one_of = operation["responses"]["200"]["content"]["application/json"]["schema"]["oneOf"]
    assert [s["$ref"].rsplit("/", 1)[1] for s in one_of] == ["AuthorProfile", "AuthorPeople"]
    assert {"AuthorProfile", "AuthorPeople"} <= set(doc["components"]["schemas"])


# --- topic pages ---------------------------------------------------------------------------------------------


def test_a_topic_page_in_both_languages(client):
    en = page(client, f"{LLM}?lang=en")
    assert en.xpath("string(//h1)") == "Large Language Models" and en.xpath("string(//p[@lang='zh'])") == "大语言模型"
    assert bars(en)["2022: 2 papers"] == {"subarea": ["Deep Learning > Large Language Models"],
                                          "year_from": ["2022"], "year_to": ["2022"]}
    venues = [a.text for a in en.xpath("//section[@aria-labelledby='venues-heading']//a")]
    assert venues[0] == "中文信息学报" and set(venues) == {"中文信息学报", "ACL", "ICLR", "NeurIPS"}
    authors = [a.text for a in en.xpath("//section[@aria-labelledby='authors-heading']//a")]
    assert authors[:2] == ["Anna Schmidt", "Thomas Müller"] and "張偉" in authors  # Müller 2 + Muller 1
    newest = [a.get("data-paper-id") for a in en.xpath("//h2[@class='hit-title']/a")]
    assert newest[:2] == ["zw-2024", "llm-2024"] or newest[:2] == ["llm-2024", "zw-2024"]
    zh = page(client, f"{LLM}?lang=zh")
    assert zh.xpath("string(//h1)") == "大语言模型" and zh.xpath("string(//p[@lang='en'])") == "Large Language Models"
    assert zh.xpath("string(//p[@class='back']/a)") == "深度学习"


def test_the_concepts_that_reach_a_topic_find_its_papers_in_both_languages(client):
    doc = page(client, f"{LLM}?lang=en")
    concepts = {a.text_content(): a.get("href") for a in doc.xpath("//section[@aria-labelledby='concepts-heading']//a")}
    assert "Large Language Models · 大语言模型" in concepts
    found = client.get("/api/search?" + urlsplit(concepts["Large Language Models · 大语言模型"]).query).get_json()
    languages = {lang for h in found["hits"] for lang in h["languages"]}
    assert languages == {"en", "zh"} and all(h["topic_subarea"] == "Large Language Models" for h in found["hits"])


def test_a_topic_has_an_atom_feed_of_its_papers(client):
    doc = page(client, f"{LLM}?lang=en")
    feed = doc.xpath("//link[@rel='alternate'][@type='application/atom+xml']/@href")[0]
    parsed = valid_atom(client.get(feed).data)
    assert parsed.entries and {e.category for e in parsed.entries} == {"Deep Learning > Large Language Models"}


def test_a_topic_address_is_its_slugs_and_unknown_topics_are_404(client):
    moved = client.get("/topic/Deep%20Learning/Large%20Language%20Models?lang=zh")
    assert moved.status_code == 308 and moved.headers["Location"] == f"http://localhost{LLM}?lang=zh"
    assert page(client, "/topic/reinforcement-learning/batch-offline?lang=en").xpath("string(//h1)") == "Batch/Offline"
    assert page(client, "/topic/optimization?lang=en").xpath(
        "//section[@aria-labelledby='subareas-heading']//a/@href") == ["/topic/optimization/convex?lang=en",
                                                                      "/topic/optimization/stochastic?lang=en"]
    for missing in ("/topic/knitting", "/topic/deep-learning/knitting", "/topic/theory"):  # theory: no papers
        assert client.get(missing).status_code == 404, missing


def test_a_topic_is_found_by_its_chinese_name_any_slug_form_and_a_trailing_slash(client):
    """Issue 44.6: every other form of a topic's address redirects (308) to its slugs, the language kept."""
    area = "/topic/deep-learning"
    others = {"/topic/深度学习": area, "/topic/deep_learning": area, "/topic/Deep-Learning": area,
              "/topic/deep-learning/": area, "/topic/深度学习/大语言模型": LLM,
              "/topic/deep_learning/large_language_models/": LLM, f"{LLM}/": LLM}
    for other, canonical in others.items():
        moved = client.get(quote(other) + "?lang=zh")
        assert (moved.status_code, moved.headers.get("Location")) == (308, f"http://localhost{canonical}?lang=zh")
    missing = client.get("/topic/knitting?lang=en")
    assert missing.status_code == 404
    doc = html.fromstring(missing.get_data(as_text=True))
    assert "No topic is called “knitting”" in doc.xpath("string(//div[@class='error-page'])")
    assert doc.xpath("//nav[@class='browse-topics']//a/@href") == [
        "/topic/deep-learning?lang=en", "/topic/optimization?lang=en", "/topic/reinforcement-learning?lang=en"]
    empty = html.fromstring(client.get("/topic/theory?lang=zh").get_data(as_text=True))  # known, no papers
    assert "“理论”主题下暂无论文" in empty.xpath("string(//div[@class='error-page'])")
    assert len(empty.xpath("//nav[@class='browse-topics']//a")) == 3


def topic_pages(doc) -> dict[str, str]:
    """The links of a page to topic pages: their text for screen readers → their address (the language aside)."""
    return {" ".join("".join(a.xpath(".//text()[not(ancestor::*[@aria-hidden])]")).split()): a.get("href").split("?")[0]
            for a in doc.xpath("//a[starts-with(@href, '/topic/')]")}


def test_topics_are_named_in_chinese_in_the_api_and_on_topic_pages(client):
    # The service names a topic by itself; the view layer puts in the taxonomy's Chinese names on the way out
    # (webapp/views/facet_labels.py, DECISIONS.md D-215), for the API as for the pages.
    taxonomy = Taxonomy.load()
    [topic] = [f for f in client.get("/api/search").get_json()["facets"] if f["name"] == "topic"]
    named = [(v["label_zh"], [c["label_zh"] for c in v["children"]]) for v in topic["values"]]
    assert named and named == [(taxonomy.label_zh(v["value"]) or v["value"],
                                [taxonomy.label_zh(v["value"], c["label"]) or c["label"] for c in v["children"]])
                               for v in topic["values"]]
    assert any(area == "深度学习" and "大语言模型" in subareas for area, subareas in named)
    subareas = page(client, "/topic/optimization?lang=zh").xpath("//section[@aria-labelledby='subareas-heading']//a")
    assert [a.text for a in subareas] == [taxonomy.label_zh("Optimization", s) for s in ("Convex", "Stochastic")]


def test_home_results_paper_and_author_pages_link_to_topic_pages(client):
    """Issue 44.6: topics are browsable from the home page (with counts), and each topic chip of a result card
    or a paper page keeps filtering, a link beside it opening the topic's page."""
    home = page(client, "/?lang=en")
    browse = {" ".join(a.text_content().split()): a.get("href")
              for a in home.xpath("//nav[@class='browse-topics']//a")}
    assert browse == {"Deep Learning 11 (11 papers)": "/topic/deep-learning?lang=en",
                      "Optimization 4 (4 papers)": "/topic/optimization?lang=en",
                      "Reinforcement Learning 1 (1 paper)": "/topic/reinforcement-learning?lang=en"}
    results = page(client, "/?q=molecules&lang=en")
    assert topic_pages(results) == {"Topic page: Deep Learning": "/topic/deep-learning",
                                    "Topic page: Graph Neural Networks": "/topic/deep-learning/graph-neural-networks"}
    chips = {a.text: a.get("href") for a in results.xpath("//a[contains(@class, 'chip')]")}
    assert parse_qs(urlsplit(chips["Deep Learning"]).query)["area"] == ["Deep Learning"]  # the chip still filters
    paper = page(client, "/paper/llm-2024?lang=zh")
    assert topic_pages(paper) == {"主题页：深度学习": "/topic/deep-learning", "主题页：大语言模型": LLM}
    author = page(client, "/author/Thomas%20Muller?lang=en")
    assert set(topic_pages(author).values()) == {"/topic/deep-learning", LLM,
                                                 "/topic/deep-learning/generative-models-and-autoencoders"}


def test_an_author_page_far_past_its_end_says_so_and_links_its_last_page(client):
    doc = page(client, "/author/Thomas%20Muller?page=500&lang=en")
    assert "None of these papers match" not in doc.text_content() and "4 papers" in doc.text_content()
    [notice] = doc.xpath("//div[@class='notice']")
    assert "Page 500 is past the last page (1)." in notice.text_content()
    [last] = notice.xpath(".//a[@rel='last']")
    assert last.get("href") == "/author/Thomas%20Muller?lang=en"
    data = client.get("/api/authors/Thomas%20Muller?page=500").get_json()["result"]
    assert (data["past_last_page"], data["too_deep"], data["page_count"]) == (True, False, 1)


def test_the_sitemap_lists_topic_pages_with_their_newest_day(app, client):
    doc = etree.fromstring(client.get("/sitemap.xml").data)
    assert xsd("sitemap.xsd").validate(doc), xsd("sitemap.xsd").error_log
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    urls = {unquote(u.findtext("s:loc", namespaces=ns)): u.findtext("s:lastmod", namespaces=ns)
            for u in doc.iterfind("s:url", ns)}
    topics = {u.split("/topic/", 1)[1] for u in urls if "/topic/" in u}
    assert topics == {"deep-learning", "deep-learning/large-language-models", "deep-learning/graph-neural-networks",
                      "deep-learning/generative-models-and-autoencoders", "optimization", "optimization/convex",
                      "optimization/stochastic", "reinforcement-learning", "reinforcement-learning/batch-offline"}
    assert len(urls) == 16 + len(topics) and all(re.fullmatch(r"\d{4}-\d\d-\d\d", d) for d in urls.values())
    app.config["SITEMAP_MAX_URLS"] = 16  # every paper fits into one file, the topics do not: an index
    try:
        index = etree.fromstring(client.get("/sitemap.xml").data)
        assert xsd("siteindex.xsd").validate(index)
        files = [loc.text for loc in index.iter("{*}loc")]
        assert files[-1] == "http://localhost/sitemap-topics.xml" and len(files) == 2
        listed = etree.fromstring(client.get("/sitemap-topics.xml").data)
        assert xsd("sitemap.xsd").validate(listed) and len(list(listed.iter("{*}url"))) == len(topics)
    finally:
        app.config["SITEMAP_MAX_URLS"] = 50_000
