"""What researchers met on pages and exports (issue 57.9–13), against a real alias and read back by parsers we did
not write: "et al." apart from the last author, keywords on the paper page, citation keys without TeX's command
names, an incomplete author list said in RIS and CSL-JSON, @misc for a record without its journal (57.11); TeX's
styled letters, braces and coloured links on pages (57.10); publication dates kept, shown and ordering papers
added together, in feeds too (57.13); a name of one first name that is several people, every spelling of a person
on their page and in completion (57.9)."""

from __future__ import annotations

import json
from urllib.parse import quote

import bibtexparser
import pytest
import rispy
from consumers import csl_items, valid_atom
from support import loaded_alias, write_jsonl
from webapp_support import page

from webapp import create_app

ETAL = {"id": "etal", "title": "Speculative decoding at scale", "authors": ["Lianmin Zheng", "Dacheng Li"],
        "authors_et_al": True, "year": 2024, "keywords": ["speculative decoding", "inference"],
        "record_type": "journal-article", "abstract": "We decode speculatively."}
SCRIPT_N = {"id": "nwl", "title": r"$\mathscr{N}$-WL: A New Hierarchy of Expressivity for Graph Neural Networks",
            "authors": ["Hao Wang"], "year": 2023, "venue": "ICLR"}
TEX = {"id": "tex", "title": r"Embeddings in $\mathbb R^d$ with bounded distortion",
       "abstract": r"The bound is $O(\max\{d_x,d_y,2\})$ over $\mathbb R$. Code: {\color{blue} https://github.com/ex/am}.",
       "year": 2022}
# Papers loaded together (one "added" time): the newest published leads; scores would order them the other way.
DATED = [
    {"id": "dated-old", "title": "Quokka sampling quokka quokka", "published": "2020-01-02", "year": 2020},
    {"id": "dated-new", "title": "Quokka sampling", "abstract": "One quokka.", "published": "2024-05-06",
     "year": 2024},
    {"id": "dated-none", "title": "Quokka sampling quokka quokka quokka quokka", "year": 2021},
]
ARXIV = {"id": "0704.0001", "title": "Calculation of prompt diphoton production cross sections",
         "authors": "C. Balázs, E. L. Berger", "abstract": "A fully differential calculation.",
         "categories": "hep-ph", "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
         "update_date": "2008-11-13"}
# "Wei Wang": two circles of co-authors that never meet, in one topic area; "Bernhard Schölkopf" in three spellings,
# one of them on a single paper among many co-authors; Hinton with and without his middle initial.
CIRCLE = [("Alice Zhang", "Bob Li"), ("Carlos Ruiz", "Dana Ito")]
WANG = [{"id": f"wang-{c}-{i}", "title": f"Circle {c} study {i} of wombats", "authors": ["Wei Wang", *CIRCLE[c]],
         "year": 2015 + i, "topic_area": "Deep Learning"} for c in range(2) for i in range(4)]
# "Jing Li": eight papers, each with other co-authors (no circle at all); "Yu Zhang": four such, too few to say
SCATTERED = [{"id": f"{key}-{i}", "title": f"Scattered note {i} on {key}", "authors": [name, f"Solo Partner{key}{i}"],
              "year": 2020} for name, key, n in (("Jing Li", "jl", 8), ("Yu Zhang", "yz", 4)) for i in range(n)]
HELPERS = [f"Zoe Helper{i:02d}" for i in range(22)]
SCHOLKOPF = [
    *({"id": f"bs-{i}", "title": f"Kernel study {i}", "authors": [written, *HELPERS], "year": 2010 + i}
      for i, written in enumerate(["Bernhard Schölkopf", "Bernhard Schölkopf", "Bernhard Schoelkopf",
                                   "Bernhard Schoelkopf"])),
    {"id": "bs-plain", "title": "Kernel study in ASCII", "authors": ["Bernhard Scholkopf"], "year": 2009},
]
HINTON = [{"id": "hinton-1", "title": "Distilling knowledge", "authors": ["Geoffrey Hinton"], "year": 2015},
          {"id": "hinton-2", "title": "Dropout nets", "authors": ["Geoffrey E Hinton"], "year": 2014}]
RECORDS = [ETAL, SCRIPT_N, TEX, *DATED, *WANG, *SCATTERED, *SCHOLKOPF, *HINTON]


@pytest.fixture(scope="module")
def pages_alias(cluster, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    arxiv = folder / "arxiv-metadata.json"
    arxiv.write_text(json.dumps(ARXIV) + "\n", encoding="utf-8")
    with loaded_alias(cluster, "paperstest_pages", [write_jsonl(folder / "papers.jsonl", RECORDS), arxiv]) as (
            name, _):
        yield name


@pytest.fixture(scope="module")
def app(cluster, pages_alias):  # the integration conftest's `client` serves this app
    return create_app(cluster.settings(pages_alias), rate_limit="off")


def citation(client, paper_id: str, fmt: str) -> str:
    r = client.get(f"/api/papers/{paper_id}/citation?format={fmt}")
    assert r.status_code == 200, r.status_code
    return r.get_data(as_text=True)


def words(element) -> str:
    return " ".join(element.text_content().split())


# --- 57.11 people, keywords and citations ------------------------------------------------------------------------


def test_et_al_stands_apart_from_the_last_author(client):
    for path, cls in (("/?q=speculative+decoding&lang=en", "hit-authors"), ("/paper/etal?lang=en", "paper-authors")):
        authors = page(client, path).xpath(f"//p[@class='{cls}']")[0]  # the first card (meaning may add others)
        assert words(authors) == "Lianmin Zheng, Dacheng Li et al.", path


def test_the_paper_page_shows_its_keywords(client):
    doc = page(client, "/paper/etal?lang=en")
    assert [k.text for k in doc.xpath("//dd[@class='keywords']/span[@class='keyword']")] == [
        "speculative decoding", "inference"]


def test_a_citation_key_is_made_of_words_not_tex_commands(client):
    [entry] = bibtexparser.parse_string(citation(client, "nwl", "bibtex")).entries
    assert entry.key == "wang2023nwl"
    assert json.loads(citation(client, "nwl", "csl-json"))[0]["id"] == "wang2023nwl"


def test_an_incomplete_author_list_is_said_in_every_format(client):
    [entry] = bibtexparser.parse_string(citation(client, "etal", "bibtex")).entries
    assert entry["author"].endswith(" and others")
    [record] = rispy.loads(citation(client, "etal", "ris"))
    assert record["authors"] == ["Zheng, Lianmin", "Li, Dacheng"]  # no person named "others"
    assert any("et al." in note for note in record["notes"])
    [item] = csl_items(citation(client, "etal", "csl-json"))
    assert [a["family"] for a in item["author"]] == ["Zheng", "Li"] and item["custom"] == {"authors-et-al": True}
    [complete] = csl_items(citation(client, "nwl", "csl-json"))
    assert "custom" not in complete


def test_a_record_without_its_journal_is_misc(client):
    [entry] = bibtexparser.parse_string(citation(client, "etal", "bibtex")).entries
    assert entry.entry_type == "misc" and "journal" not in entry.fields_dict
    [conference] = bibtexparser.parse_string(citation(client, "nwl", "bibtex")).entries
    assert conference.entry_type == "inproceedings" and conference["booktitle"] == "ICLR"


# --- 57.10 TeX ------------------------------------------------------------------------------------------------


def test_tex_letters_braces_and_coloured_links_on_the_paper_page(client):
    doc = page(client, "/paper/tex?lang=en")
    title_math = doc.xpath("//h1//*[local-name()='math']")
    abstract = doc.xpath("//section[@class='abstract']")[0]
    maths = abstract.xpath(".//*[local-name()='math']")
    # \mathbb R is the letter ℝ itself (Chromium ignores mathvariant), in the title and the abstract
    assert "ℝ" in title_math[0].xpath("string(.)") and maths[1].xpath("string(.)") == "ℝ"
    assert not doc.xpath("//*[local-name()='math']//*[@mathvariant]")
    assert "{" in maths[0].xpath("string(.)") and "}" in maths[0].xpath("string(.)")  # \max\{…\} keeps its braces
    [link] = abstract.xpath(".//a")
    assert link.get("href") == "https://github.com/ex/am" and "\\color" not in words(abstract)
    assert "color" not in doc.xpath("string(//meta[@name='description']/@content)")
    [record] = rispy.loads(citation(client, "tex", "ris"))
    assert "max{d_x,d_y,2}" in record["abstract"] and "{\\color" not in record["abstract"]
    assert "https://github.com/ex/am" in record["abstract"]


# --- 57.13 publication dates ---------------------------------------------------------------------------------


def test_papers_added_together_come_newest_published_first(client):
    api = client.get("/api/search?q=quokka&sort=added").get_json()
    assert [h["id"] for h in api["hits"]] == ["dated-new", "dated-old", "dated-none"]
    feed = valid_atom(client.get("/feed?q=quokka").data)
    assert [e.link.rsplit("/", 1)[-1].split("?")[0] for e in feed.entries] == ["dated-new", "dated-old", "dated-none"]
    assert feed.entries[0].published.startswith("2024-05-06T00:00:00")
    assert feed.entries[0].updated != feed.entries[0].published  # updated: when it was added here


def test_a_publication_date_is_kept_and_shown(client):
    doc = page(client, "/paper/dated-new?lang=en")
    assert doc.xpath("string(//time[@class='published']/@datetime)") == "2024-05-06"
    assert client.get("/api/papers/dated-new").get_json()["paper"]["published"] == "2024-05-06"
    [item] = csl_items(citation(client, "dated-new", "csl-json"))
    assert item["issued"] == {"date-parts": [[2024, 5, 6]]}
    arxiv = page(client, "/paper/arxiv-0704.0001?lang=en")  # arXiv's first version's date
    assert arxiv.xpath("string(//time[@class='published']/@datetime)") == "2007-04-02"


# --- 57.9 people ----------------------------------------------------------------------------------------------


def test_a_name_whose_co_authors_never_meet_is_several_people(client):
    data = client.get(f"/api/authors/{quote('Wei Wang')}").get_json()
    assert data["papers"] == 8 and data["several_people"]
    assert sorted(sorted(g["coauthors"]) for g in data["groups"]) == [["Alice Zhang", "Bob Li"],
                                                                       ["Carlos Ruiz", "Dana Ito"]]
    one = client.get(f"/api/authors/{quote('Bernhard Schölkopf')}").get_json()
    assert not one["several_people"]  # one circle and a paper alone
    scattered = client.get(f"/api/authors/{quote('Jing Li')}").get_json()
    assert scattered["several_people"] and [g["papers"] for g in scattered["groups"]] == [1] * 8
    assert not client.get(f"/api/authors/{quote('Yu Zhang')}").get_json()["several_people"]


def test_every_spelling_of_a_person_is_on_their_page(client):
    data = client.get(f"/api/authors/{quote('Bernhard Schölkopf')}").get_json()
    assert data["papers"] == 5
    assert {s["name"]: s["count"] for s in data["spellings"]} == {
        "Bernhard Schölkopf": 2, "Bernhard Schoelkopf": 2, "Bernhard Scholkopf": 1}


@pytest.mark.parametrize("prefix", ["Bernhard", "Geoffrey"])
def test_completion_offers_a_person_once(client, prefix):
    found = client.get("/api/suggest", query_string={"q": prefix}).get_json()["suggestions"]
    assert len([s for s in found if s["kind"] == "author"]) == 1, found


# --- 57.12 what topics cover --------------------------------------------------------------------------------


def test_the_topic_facet_and_topic_pages_say_how_many_papers_carry_a_topic(client):
    # "study": 8 papers of Wei Wang in Deep Learning, 5 kernel studies under no topic
    [facet] = [f for f in client.get("/api/search?q=study").get_json()["facets"] if f["name"] == "topic"]
    assert (facet["covered"], facet["of"]) == (8, 13)
    doc = page(client, "/?q=study&lang=en")
    assert words(doc.xpath("//p[contains(@class, 'facet-coverage')]")[0]).startswith("8 of 13 papers carry a topic")
    topic = page(client, "/topic/deep-learning?lang=en")
    [note] = topic.xpath("//p[contains(@class, 'topic-coverage')]")
    assert words(note).startswith(f"Topics cover 8 of the {len(RECORDS) + 1} papers")
