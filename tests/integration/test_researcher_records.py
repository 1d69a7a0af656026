"""What researchers meet beyond plain records (issue 32), against a real alias and read back by parsers we did
not write: TeX math (MathML on pages, highlights outside it, "α" finds `$\\alpha$`, math kept in BibTeX and
readable in RIS and CSV), record types in every format and as a facet, with the languages (issue 44.7), untitled
records, CSL-JSON, DOIs and arXiv ids (issue 44.9), author completion by any part of a name, the page past the
last one, conditional GET for feeds, addresses that are not UTF-8, the paper page's description, canonical link,
link previews, language alternates and way back, and sitemaps with lastmod."""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import parse_qs

import bibtexparser
import extruct
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from consumers import csl_items, valid_atom, xsd
from lxml import etree, html
from support import write_jsonl

from indexer import operations
from indexer.loading.rejects import RejectsWriter
from webapp import create_app
from webapp.services.search_settings import search_config

CONFIG = search_config()

ALPHA_TITLE = r"$\alpha$TC-VAE: On the relationship between Disentanglement and Diversity"
ALPHA = {"id": "alpha", "title": ALPHA_TITLE, "venue": "ICLR", "year": 2024,
         "abstract": r"We train on 1024$\times$512 images in $\mathcal{O}(n \log n)$ time, 50% faster & better.",
         "authors": ["Cristian Meo", "Thomas Müller"], "url": "https://example.org/alpha",
         "pdf_url": "https://example.org/alpha.pdf"}
RECORDS = [
    ALPHA,
    {"id": "yoshua", "title": "Deep learning of representations", "authors": ["Yoshua Bengio"], "year": 2013,
     "venue": "NeurIPS"},
    {"id": "samy", "title": "Scheduled sampling for sequence prediction", "authors": ["Samy Bengio"], "year": 2015},
    {"id": "discipline", "title_zh": "一种中药复方的质量控制方法", "abstract_zh": "本文研究中药复方的质量控制。",
     "venue": "中医学/中药学", "keywords": ["质量控制"]},
    {"id": "journal", "title_zh": "中文学术论文检索", "abstract_zh": "本文研究检索。", "venue": "中文信息学报",
     "year": 2024},
    {"id": "preprint", "title": "A preprint about sparse coding", "venue": "arXiv", "year": 2025,
     "authors": ["Ada Lovelace"]},
    {"id": "untitled", "abstract": "We study records without titles. The heading is the abstract's start.",
     "authors": ["Grace Hopper"], "year": 2023},
    {"id": "script", "title": r"Injected $\text{<img src=x onerror=alert(1)>}$ formula", "abstract": "Harmless."},
    {"id": "attention", "title": "Attention Is All You Need", "authors": ["Ashish Vaswani", "Noam Shazeer"],
     "year": 2017, "venue": "arXiv", "abstract": "The dominant sequence transduction models.",
     "doi": "https://doi.org/10.48550/arXiv.1706.03762", "arxiv_id": "arXiv:1706.03762"},
    *({"id": f"stell-{i:02d}", "title": f"Stellarator coil study {i}", "year": 2020} for i in range(25)),
]
KIND = {"alpha": "conference-paper", "yoshua": "conference-paper", "discipline": "journal-article",
        "journal": "journal-article", "preprint": "preprint", "samy": None}


@pytest.fixture(scope="module")
def records_alias(cluster, tmp_path_factory):
    from support import loaded_alias

    path = write_jsonl(tmp_path_factory.mktemp("records") / "papers.jsonl", RECORDS)
    with loaded_alias(cluster, "paperstest_records", [path]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def app(cluster, records_alias):
    return create_app(cluster.settings(records_alias), rate_limit="off")


def _maths(fragment: str) -> list:
    return html.fromstring(f"<div>{fragment}</div>").xpath("//math")


def bibtex_entry(client, paper_id: str, decode: bool = False):
    text = client.get(f"/api/papers/{paper_id}/citation?format=bibtex").get_data(as_text=True)
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()] if decode else None)
    assert not library.failed_blocks, text
    [entry] = library.entries
    return entry


def csv_rows(client, query: str = "") -> dict[str, dict]:
    text = client.get(f"/api/export?format=csv{query}").data.decode("utf-8-sig")
    return {row["id"]: row for row in csv.DictReader(io.StringIO(text))}


def ris_record(client, paper_id: str) -> dict:
    [record] = rispy.loads(client.get(f"/api/papers/{paper_id}/citation?format=ris").get_data(as_text=True))
    return record


# --- math -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("q", ["alpha", "α", "α TC-VAE", "𝒪 images"])
def test_alpha_and_its_letter_find_the_tex(client, q):
    ids = [h["id"] for h in client.get("/api/search", query_string={"q": q}).get_json()["hits"]]
    assert ids[:1] == ["alpha"], ids


def test_math_is_mathml_and_a_highlight_never_lands_inside_it(client):
    [hit] = [h for h in client.get("/api/search?q=alpha+1024").get_json()["hits"] if h["id"] == "alpha"]
    [alpha] = _maths(hit["heading_html"])
    assert alpha.xpath("string(.)") == "α" and alpha.getparent().tag == "mark"  # the formula marked whole
    maths = _maths(hit["snippet_html"])
    assert [m.xpath("string(.)") for m in maths] == ["×", "𝒪(nlogn)"]
    for fragment in (hit["heading_html"], hit["snippet_html"]):
        assert not html.fromstring(f"<div>{fragment}</div>").xpath("//math//mark")
    page = html.fromstring(client.get("/paper/alpha").get_data(as_text=True))
    assert [m.xpath("string(.)") for m in page.xpath("//h1//math")] == ["α"]
    assert len(page.xpath("//section[@class='abstract']//math")) == 2
    assert page.findtext(".//title").startswith("αTC-VAE: On the relationship")  # readable, not TeX


def test_markup_inside_a_formula_stays_text(client):
    for body in (client.get("/?q=injected").get_data(as_text=True), client.get("/paper/script").get_data(as_text=True)):
        page = html.fromstring(body)
        assert not page.xpath("//img | //@onerror")
        [heading] = page.xpath("//h1[@id='paper-title'] | //h2[@class='hit-title']/a")
        assert "<img src=x onerror=alert(1)>" in heading.xpath("string(.)")  # shown, as text


def test_bibtex_keeps_math_escapes_the_rest_and_protects_the_title(client):
    entry = bibtex_entry(client, "alpha")
    assert entry.entry_type == "inproceedings" and entry.fields_dict["booktitle"].value == "ICLR"
    title = entry.fields_dict["title"].value
    assert title == r"{$\alpha$TC-VAE:} On the relationship between Disentanglement and Diversity"
    assert "textbackslash" not in title
    abstract = entry.fields_dict["abstract"].value
    assert r"1024$\times$512" in abstract and r"50\% faster \& better" in abstract
    decoded = bibtex_entry(client, "alpha", decode=True)  # what a reference manager stores
    assert decoded.fields_dict["title"].value == r"$\alpha$TC-VAE: On the relationship between Disentanglement and " \
                                                 "Diversity"
    assert "50% faster & better" in decoded.fields_dict["abstract"].value


def test_ris_and_csv_carry_readable_text(client):
    record = ris_record(client, "alpha")
    assert record["title"] == "αTC-VAE: On the relationship between Disentanglement and Diversity"
    assert record["abstract"] == "We train on 1024×512 images in 𝒪(n logn) time, 50% faster & better."
    rows = csv_rows(client, "&q=alpha")
    assert rows["alpha"]["title"] == record["title"] and "1024×512" in rows["alpha"]["abstract"]
    assert "$" not in rows["alpha"]["title"] + rows["alpha"]["abstract"]


# --- record types ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("paper_id", list(KIND))
def test_record_type_in_every_format(client, paper_id):
    kind = KIND[paper_id]
    record = next(r for r in RECORDS if r["id"] == paper_id)
    venue = "" if paper_id == "discipline" else record.get("venue", "")
    entry = bibtex_entry(client, paper_id)
    # no venue: @misc, since @article needs its journal (issue 57.11)
    bib_kind, bib_field = {"conference-paper": ("inproceedings", "booktitle"), "journal-article": ("article", "journal")
                           }.get(kind if venue else "", ("misc", "howpublished"))
    assert entry.entry_type == bib_kind
    assert (entry.fields_dict[bib_field].value if bib_field in entry.fields_dict else "") == venue
    ris = ris_record(client, paper_id)
    assert ris["type_of_reference"] == {"conference-paper": "CPAPER", "journal-article": "JOUR",
                                        "preprint": "UNPB"}.get(kind, "GEN")
    assert ris.get("secondary_title", "") == venue
    page = client.get(f"/paper/{paper_id}").get_data(as_text=True)
    meta = {m.get("name"): m.get("content") for m in html.fromstring(page).iterfind(".//head/meta")}
    assert meta.get("citation_conference_title") == (venue if kind == "conference-paper" else None)
    assert meta.get("citation_journal_title") == (venue or None if kind == "journal-article" else None)
    [article] = extruct.extract(page, syntaxes=["json-ld"])["json-ld"]
    if venue:
        assert article["isPartOf"] == {"@type": "Periodical" if kind == "journal-article" else "CreativeWork",
                                       "name": venue}
    assert article.get("creativeWorkStatus") == ("Preprint" if kind == "preprint" else None)
    title = record.get("title") or record.get("title_zh")
    results = html.fromstring(client.get("/", query_string={"q": title}).get_data(as_text=True))
    coins = [parse_qs(s.get("title")) for s in results.xpath("//span[@class='Z3988']")]
    readable = title.replace(r"$\alpha$", "α")  # COinS carries text, formulas as Unicode
    [mine] = [c for c in coins if c.get("rft.atitle") == [readable]]
    assert mine["rft.genre"] == [{"conference-paper": "proceeding", "journal-article": "article",
                                  "preprint": "preprint"}.get(kind, "unknown")]
    rows = csv_rows(client)
    assert rows[paper_id]["type"] == (kind or "")


def test_a_discipline_is_a_subject_not_a_venue(client):
    data = client.get("/api/search?lang=en").get_json()
    [venues] = [f["values"] for f in data["facets"] if f["name"] == "venue"]
    assert "中医学/中药学" not in [v["value"] for v in venues] and "中文信息学报" in [v["value"] for v in venues]
    paper = client.get("/api/papers/discipline").get_json()["paper"]
    assert (paper["venue"], paper["subjects"], paper["record_type"]) == (None, ["中医学/中药学"], "journal-article")
    assert ris_record(client, "discipline")["keywords"] == ["质量控制", "中医学/中药学"]
    page = html.fromstring(client.get("/paper/discipline?lang=en").get_data(as_text=True))
    facts = dict(zip(page.xpath("//dl[@class='paper-facts']/dt/text()"),
                     [d.xpath("string(.)") for d in page.xpath("//dl[@class='paper-facts']/dd")], strict=True))
    assert facts == {"Type": "Journal article", "Keywords": "质量控制", "Subjects": "中医学/中药学"}


def test_record_type_and_language_are_facets_that_reach_papers_without_year_venue_or_topic(client):
    facets = {f["name"]: f for f in client.get("/api/search").get_json()["facets"]}
    kinds = {v["value"]: (v["label"], v["label_zh"], v["count"]) for v in facets["type"]["values"]}
    assert kinds["journal-article"] == ("Journal article", "期刊论文", 2)
    assert kinds["preprint"][:2] == ("Preprint", "预印本") and kinds["conference-paper"][0] == "Conference paper"
    languages = {v["value"]: (v["label"], v["label_zh"], v["count"]) for v in facets["language"]["values"]}
    assert languages["zh"] == ("Chinese", "中文", 2) and languages["en"][:2] == ("English", "英文")
    assert set(result_ids(client, "type=journal-article")) == {"discipline", "journal"}
    assert set(result_ids(client, "language=zh")) == {"discipline", "journal"}
    assert result_ids(client, "language=zh&type=preprint") == []
    page = html.fromstring(client.get("/?type=journal-article&lang=zh").get_data(as_text=True))
    [chosen] = page.xpath("//section[@aria-labelledby='facet-type']//a[@aria-checked='true']")
    assert chosen.xpath("string(.//span[@class='facet-label'])") == "期刊论文"
    assert page.xpath("string(//h3[@id='facet-language'])") == "语言"


def result_ids(client, query: str) -> list[str]:
    return [h["id"] for h in client.get(f"/api/search?{query}&size=50").get_json()["hits"]]


def test_a_card_shows_what_its_record_has(client):
    """A Chinese journal paper has no year, venue or topic: its card says its kind, its discipline and keywords."""
    page = html.fromstring(client.get("/?q=中药复方&lang=en").get_data(as_text=True))
    [card] = [h for h in page.xpath("//li[@class='hit']") if h.xpath(".//a[@data-paper-id='discipline']")]
    assert card.xpath("string(.//p[@class='hit-pub'])") == "Journal article · 中医学/中药学"
    assert card.xpath(".//p[@class='hit-pub']/span[@class='subject']/@lang") == ["zh"]
    assert card.xpath("string(.//p[@class='hit-keywords']/span[@class='keyword'])") == "质量控制"
    [alpha] = [h for h in html.fromstring(client.get("/?q=alpha&lang=en").get_data(as_text=True))
               .xpath("//li[@class='hit']") if h.xpath(".//a[@data-paper-id='alpha']")]
    assert alpha.xpath("string(.//p[@class='hit-pub'])") == "2024 · ICLR"  # a venue: as before


# --- CSL-JSON, DOI and arXiv id (issue 44.9) ------------------------------------------------------------------


def test_csl_json_for_one_paper_and_an_export(client):
    r = client.get("/api/papers/alpha/citation?format=csl-json")
    assert r.status_code == 200 and r.mimetype == "application/vnd.citationstyles.csl+json"
    assert r.headers["Content-Disposition"] == 'attachment; filename="meo2024alphatcvae.json"'
    [alpha] = csl_items(r.get_data(as_text=True))
    assert (alpha["type"], alpha["title"], alpha["container-title"], alpha["issued"]) == (
        "paper-conference", "αTC-VAE: On the relationship between Disentanglement and Diversity", "ICLR",
        {"date-parts": [[2024]]})
    assert alpha["author"] == [{"family": "Meo", "given": "Cristian"}, {"family": "Müller", "given": "Thomas"}]
    r = client.get("/api/export?format=csl-json")
    assert r.status_code == 200 and r.headers["Content-Disposition"] == 'attachment; filename="papers.json"'
    items = {i["id"]: i for i in csl_items(r.get_data(as_text=True))}
    assert len(items) == len(RECORDS)  # every paper, each key distinct
    discipline = next(i for i in items.values() if i.get("title") == "一种中药复方的质量控制方法")
    assert discipline["type"] == "article-journal" and discipline["keyword"] == "质量控制, 中医学/中药学"
    assert discipline["id"] == "zhongyao" and "author" not in discipline  # 一种…: the key names the paper
    assert discipline["language"] == "zh"


def test_doi_and_arxiv_id_in_every_format_where_the_record_has_them(client):
    doi, arxiv_id = "10.48550/arXiv.1706.03762", "1706.03762"
    paper = client.get("/api/papers/attention").get_json()["paper"]
    assert (paper["doi"], paper["arxiv_id"]) == (doi, arxiv_id)
    fields = {k: f.value for k, f in bibtex_entry(client, "attention").fields_dict.items()}
    assert (fields["doi"], fields["eprint"], fields["archiveprefix"]) == (doi, arxiv_id, "arXiv")
    assert ris_record(client, "attention")["doi"] == doi
    [item] = csl_items(client.get("/api/papers/attention/citation?format=csl-json").get_data(as_text=True))
    assert (item["type"], item["DOI"], item["number"]) == ("article", doi, f"arXiv:{arxiv_id}")
    page_text = client.get("/paper/attention?lang=en").get_data(as_text=True)
    page = html.fromstring(page_text)
    assert page.xpath("//head/meta[@name='citation_doi']/@content") == [doi]
    assert page.xpath("//head/meta[@name='citation_arxiv_id']/@content") == [arxiv_id]
    assert page.xpath("//dl[@class='paper-facts']//a[@class='doi']/@href") == [f"https://doi.org/{doi}"]
    assert page.xpath("//dl[@class='paper-facts']//a[@class='arxiv']/@href") == [f"https://arxiv.org/abs/{arxiv_id}"]
    [article] = extruct.extract(page_text, syntaxes=["json-ld"])["json-ld"]
    assert [(i["propertyID"], i["value"]) for i in article["identifier"]] == [("DOI", doi), ("arXiv", arxiv_id)]
    # a record without them has none of them anywhere
    assert not {"doi", "eprint"} & set(bibtex_entry(client, "alpha").fields_dict)
    assert "doi" not in ris_record(client, "alpha")
    alpha_text = client.get("/paper/alpha").get_data(as_text=True)
    assert "citation_doi" not in alpha_text and "identifier" not in extruct.extract(
        alpha_text, syntaxes=["json-ld"])["json-ld"][0]


# --- untitled records -----------------------------------------------------------------------------------------


def test_an_untitled_record_gets_no_invented_title(client):
    page_text = client.get("/paper/untitled?lang=en").get_data(as_text=True)
    page = html.fromstring(page_text)
    names = [m.get("name") for m in page.iterfind(".//head/meta")]
    assert "citation_title" not in names and "citation_author" in names
    [article] = extruct.extract(page_text, syntaxes=["json-ld"])["json-ld"]
    assert "headline" not in article and "name" not in article
    assert page.findtext(".//title").startswith("Untitled: We study records without titles.")
    assert page.findtext(".//h1") == "We study records without titles."
    assert page.xpath("//p[contains(@class,'untitled')]")  # marked as the abstract's start
    assert "title" not in bibtex_entry(client, "untitled").fields_dict
    assert "title" not in ris_record(client, "untitled") and "primary_title" not in ris_record(client, "untitled")
    rows = csv_rows(client)
    assert rows["untitled"]["title"] == "" and rows["untitled"]["abstract"].startswith("We study")
    feed = valid_atom(client.get("/feed?q=hopper&lang=en").data)
    assert [e.title for e in feed.entries] == ["Untitled: We study records without titles."]
    results = html.fromstring(client.get("/?q=hopper").get_data(as_text=True))
    [coins] = [parse_qs(s.get("title")) for s in results.xpath("//span[@class='Z3988']")]
    assert "rft.atitle" not in coins and coins["rft.au"] == ["Grace Hopper"]


# --- completion -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("prefix", "names"), [
    ("Bengio", {"Yoshua Bengio", "Samy Bengio"}), ("beng", {"Yoshua Bengio", "Samy Bengio"}),
    ("Yoshua", {"Yoshua Bengio"}), ("Müller", {"Thomas Müller"}), ("Muller", {"Thomas Müller"}),
    ("mul", {"Thomas Müller"}), ("Meo", {"Cristian Meo"}),
])
def test_authors_complete_by_any_part_of_the_name_folded(client, prefix, names):
    found = client.get("/api/suggest", query_string={"q": prefix}).get_json()["suggestions"]
    assert {s["text"] for s in found if s["kind"] == "author"} == names
    assert all(s["url"].startswith('/author/') for s in found if s["kind"] == "author")  # their page


def test_an_untitled_record_is_marked_on_its_result_card_as_on_its_page(client):
    """Issue 44.6: the card's heading is the abstract's start; it says so, in the reader's language."""
    for lang, mark in (("en", "Untitled:"), ("zh", "无标题：")):
        results = html.fromstring(client.get(f"/?q=hopper&lang={lang}").get_data(as_text=True))
        [heading] = results.xpath("//h2[@class='hit-title']/a")
        assert heading.xpath("string(span[@class='untitled'])") == mark
        assert heading.text_content() == f"{mark} We study records without titles."
    titled = html.fromstring(client.get("/?q=stellarator").get_data(as_text=True))
    assert titled.xpath("//h2[@class='hit-title']") and not titled.xpath("//*[@class='untitled']")


# --- past the last page ---------------------------------------------------------------------------------------


def test_past_the_last_page_says_so_and_links_the_last_one(client):
    data = client.get("/api/search?q=stellarator&page=7").get_json()
    assert (data["total"], data["page_count"], data["hits"], data["past_last_page"]) == (25, 3, [], True)
    r = client.get("/api/search?q=stellarator&page=7")
    last = re.fullmatch(r'<(.+)>; rel="last"', r.headers["Link"]).group(1)
    assert last == "/api/search?q=stellarator&page=3"
    there = client.get(last).get_json()
    assert len(there["hits"]) == 5 and there["past_last_page"] is False and "Link" not in client.get(last).headers
    page = html.fromstring(client.get("/?q=stellarator&page=7&lang=en").get_data(as_text=True))
    [notice] = page.xpath("//div[@class='notice']")
    assert "Page 7 is past the last page (3)." in notice.xpath("string(.)")
    [link] = notice.xpath(".//a[@rel='last']")
    assert link.get("href") == "/?q=stellarator&page=3&lang=en"
    assert len(html.fromstring(client.get(link.get("href")).get_data(as_text=True)).xpath("//li[@class='hit']")) == 5


# --- conditional GET for feeds --------------------------------------------------------------------------------


def test_feeds_answer_304_until_they_change(cluster, alias, tmp_path):
    papers = [{"id": f"coil-{i}", "title": f"Coil winding {i}"} for i in range(3)]
    operations_client = cluster.client("indexer")
    from support import build_alias

    build_alias(cluster, alias, [write_jsonl(tmp_path / "a.jsonl", papers)])
    client = create_app(cluster.settings(alias), rate_limit="off").test_client()
    first = client.get("/feed?q=coil")
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    assert first.status_code == 200 and first.headers["Cache-Control"] == "public, max-age=600"
    assert client.get("/feed?q=coil", headers={"If-None-Match": etag}).status_code == 304
    same = client.get("/feed?q=coil", headers={"If-Modified-Since": modified})
    assert same.status_code == 304 and same.data == b""
    assert client.get("/feed?q=coil", headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}).status_code == 200
    assert client.get("/feed?q=winding").headers["ETag"] != etag  # another search
    assert client.get("/feed?q=coil&lang=zh").headers["ETag"] != etag  # another language
    with RejectsWriter(None) as rejects:
        operations.add(operations_client, cluster.settings(alias),
                       [write_jsonl(tmp_path / "b.jsonl", [{"id": "coil-new", "title": "Coil winding anew"}])],
                       rejects, progress=False)
    changed = client.get("/feed?q=coil", headers={"If-None-Match": etag, "If-Modified-Since": modified})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert valid_atom(changed.data).entries[0].link.endswith("/paper/coil-new")


@pytest.mark.parametrize(("qs", "status"), [
    ("area=false", 200), ("year=2020&year_from=2019", 200), ("year=abc", 400), ("year_from=0", 400),
    ("sort=random", 400), ("xl=maybe", 400), ("subarea=nope", 400), ("venue=" + "x" * 301, 400),
    ("q=" + "x" * (CONFIG.max_query_length + 1), 400), ("area=a&area=b&" + "&".join(["venue=v"] * 51), 400),
])
def test_feed_validates_its_parameters_like_the_api(client, qs, status):
    """The same validation (RequestArgs.search): an unknown topic is a valid filter that matches nothing."""
    assert client.get(f"/feed?{qs}").status_code == client.get(f"/api/search?{qs}").status_code == status


# --- addresses that are not UTF-8 -----------------------------------------------------------------------------


def test_not_utf8_is_400_on_every_route(client):
    document = client.get("/api/openapi.json").get_json()
    for path, operations_of in document["paths"].items():
        for method, operation in operations_of.items():
            assert "400" in operation["responses"], (path, method)
            url = path.replace("{id}", "alpha")
            r = client.open(f"{url}?q=%ff%fe", method=method.upper())
            assert r.status_code == 400, (path, r.status_code)
            if path.startswith(("/api/", "/healthz", "/readyz", "/metrics")):
                assert r.get_json()["error"]["message"] == 'Parameter “q” is not valid UTF-8: percent-encode ' \
                                                           "its text as UTF-8."
    for path in ("/paper/\xff", "/api/papers/\xff\xfe"):  # the path's raw bytes, as a WSGI server passes them
        r = client.get("/", environ_overrides={"PATH_INFO": path})
        assert r.status_code == 400, path
    assert client.get("/api/search?q=%E4%B8%AD%E6%96%87").status_code == 200  # UTF-8 is fine


# --- the paper page -------------------------------------------------------------------------------------------


def test_paper_page_describes_itself_and_leads_back_to_the_results(client):
    page = html.fromstring(client.get("/paper/alpha?lang=zh",
                                      headers={"Referer": "http://localhost/?q=alpha&page=1"}).get_data(as_text=True))
    [description] = page.xpath("//head/meta[@name='description']/@content")
    assert description.startswith("We train on 1024×512 images")
    assert page.xpath("//head/link[@rel='canonical']/@href") == ["http://localhost/paper/alpha"]
    assert page.xpath("//p[@class='back']/a/@href") == ["/?q=alpha&page=1"]
    links = page.xpath("//p[@class='paper-links']/a/@href")
    assert links == ["https://example.org/alpha", "https://example.org/alpha.pdf"]
    assert page.xpath("//head/meta[@name='citation_pdf_url']/@content") == ["https://example.org/alpha.pdf"]
    for referer in ("https://elsewhere.example/?q=alpha", "http://localhost/paper/samy", None):
        other = html.fromstring(client.get("/paper/alpha", headers={"Referer": referer} if referer else {})
                                .get_data(as_text=True))
        assert other.xpath("//p[@class='back']/a/@href") == ["/"], referer  # "New search"


def test_pages_offer_link_previews_and_their_other_language(client):
    page = html.fromstring(client.get("/paper/alpha?lang=zh").get_data(as_text=True))
    og = {m.get("property"): m.get("content") for m in page.xpath("//head/meta[@property]")}
    assert og == {"og:site_name": page.findtext(".//title").rsplit(" · ", 1)[1], "og:type": "article",
                  "og:title": "αTC-VAE: On the relationship between Disentanglement and Diversity",
                  "og:description": page.xpath("//head/meta[@name='description']/@content")[0],
                  "og:locale": "zh_CN", "og:url": "http://localhost/paper/alpha"}
    alternates = {a.get("hreflang"): a.get("href") for a in page.xpath("//head/link[@rel='alternate'][@hreflang]")}
    assert alternates == {"en": "http://localhost/paper/alpha?lang=en", "zh": "http://localhost/paper/alpha?lang=zh",
                          "x-default": "http://localhost/paper/alpha"}
    search = html.fromstring(client.get("/?q=alpha&type=preprint").get_data(as_text=True))
    og = {m.get("property"): m.get("content") for m in search.xpath("//head/meta[@property]")}
    assert og["og:type"] == "website" and og["og:title"] and "og:url" not in og
    alternates = {a.get("hreflang"): a.get("href") for a in search.xpath("//head/link[@rel='alternate'][@hreflang]")}
    assert alternates == {"en": "http://localhost/?q=alpha&type=preprint&lang=en",
                          "zh": "http://localhost/?q=alpha&type=preprint&lang=zh",
                          "x-default": "http://localhost/?q=alpha&type=preprint"}
    missing = html.fromstring(client.get("/no/such/page").get_data(as_text=True))
    assert not missing.xpath("//head/link[@hreflang]")  # an error page is no page in two languages


def test_sitemap_has_each_papers_added_day(client):
    body = client.get("/sitemap.xml").data
    doc = etree.fromstring(body)
    schema = xsd("sitemap.xsd")
    assert schema.validate(doc), schema.error_log
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    days = {u.findtext("s:loc", namespaces=ns).rsplit("/", 1)[1]: u.findtext("s:lastmod", namespaces=ns)
            for u in doc.iterfind("s:url", ns) if "/paper/" in u.findtext("s:loc", namespaces=ns)}
    assert len(days) == len(RECORDS)
    added = client.get("/api/papers/alpha").get_json()["paper"]["added"]
    assert days["alpha"] == added[:10] and all(re.fullmatch(r"\d{4}-\d\d-\d\d", d) for d in days.values())


# --- a live version of the previous schema --------------------------------------------------------------------


def test_add_brings_an_older_versions_mapping_up_to_date(cluster, alias, tmp_path):
    """A version built before record types (schema 1: no record_type, subjects, math, author keys; no
    schema_version) takes `add` of a record that needs them, and says which schema it now has and which it was
    built with."""
    from indexer import versions
    from papersearch import index_definition

    admin = cluster.client("admin")
    body = index_definition.index_body("core")
    for field in ("record_type", "subjects", "math", "author_keys", "author_key_words", "published", "introduces",
                  "meaning_vector"):
        del body["mappings"]["properties"][field]
    del body["mappings"]["properties"]["authors"]["fields"]["as_written"]
    body["mappings"]["_meta"] = {"analysis_profile": "core", "complete": True}
    old = f"{alias}-20260101t000000000000"
    admin.indices.create(index=old, **body)
    admin.indices.put_alias(index=old, name=alias)
    assert versions.schema_of(admin, old) == 1
    with RejectsWriter(None) as rejects:
        report = operations.add(cluster.client("indexer"), cluster.settings(alias),
                                [write_jsonl(tmp_path / "new.jsonl", [RECORDS[3]])], rejects, progress=False)
    assert report.stats.created == 1 and report.stats.failed == 0
    # 6: published, introduces, meaning_vector
    assert versions.schema_of(admin, old) == index_definition.schema_version() == 6
    mapping = admin.indices.get_mapping(index=old)[old]["mappings"]
    assert index_definition.built_schema(mapping["_meta"]) == 1  # its older papers lack the new fields
    assert {"record_type", "subjects", "math", "author_keys", "published", "introduces",
            "meaning_vector"} <= set(mapping["properties"])
    assert "as_written" in mapping["properties"]["authors"]["fields"]
    source = admin.get(index=old, id="discipline")["_source"]
    assert (source["record_type"], source["subjects"], source["venue"]) == ("journal-article", ["中医学/中药学"], "")
