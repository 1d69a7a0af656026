"""Issue 44 items 1 and 2 against a real node (tests/fixtures/author-papers.jsonl): `author:` means that author
(name keys, initials as initials, umlauts however transliterated; similar names only when no author has the name,
and then said), and one page per person (every spelling listed and counted, a surname's people, feed and export
links that carry the same papers)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from lxml import html
from support import loaded_alias

from webapp import create_app

AUTHOR_PAPERS = Path(__file__).resolve().parents[1] / "fixtures" / "author-papers.jsonl"


@pytest.fixture(scope="module")
def author_alias(cluster):
    with loaded_alias(cluster, "paperstest_authors", [AUTHOR_PAPERS]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def app(cluster, author_alias):  # the integration conftest's `client` serves this app
    return create_app(cluster.settings(author_alias), rate_limit="off")


def ids(client, q: str) -> set[str]:
    data = client.get("/api/search", query_string={"q": q, "size": 50}).get_json()
    return {h["id"] for h in data["hits"]}


def test_a_surname_finds_its_authors_and_no_look_alike(client):
    assert ids(client, "author:Hinton") == {"hinton-1", "hinton-2", "hinton-3", "hinton-george"}  # not Anton Hengel
    assert ids(client, "author:Bengio") == {"bengio-1", "bengio-2", "bengio-3"}


def test_a_full_name_is_that_person_with_initials_as_initials(client):
    # Lei Fang / Fei Wang are one edit from Wei Wang; Wen Wang is another person; "W. Wang" could be either.
    assert ids(client, 'author:"Wei Wang"') == {"wang-1", "wang-2"}
    # "G. Hinton" could be Geoffrey's or George's: not Geoffrey's alone.
    assert ids(client, 'author:"Geoffrey Hinton"') == {"hinton-1", "hinton-2"}
    assert ids(client, 'author:"G. Hinton"') == {"hinton-1", "hinton-2", "hinton-3", "hinton-george"}
    assert ids(client, 'author:"Bernhard Schoelkopf"') == ids(client, 'author:"bernhard schölkopf"') == {
        "sch-1", "sch-2", "sch-3"}
    data = client.get("/api/search", query_string={"q": 'author:"Wei Wang"'}).get_json()
    marked = " ".join(str(h.get("authors_html")) for h in data["hits"])
    assert "<mark>Lin</mark>" not in marked and "Fang" not in marked
    assert "similar_authors" not in data["fallbacks"]


@pytest.mark.parametrize("name", ["Hinton", "Bengio", "Wei Wang", "G. Hinton", "Bernhard Schoelkopf", "schölkopf",
                                  "Müller", "Hintn", "Wang"])
def test_a_name_is_looked_up_by_its_words_as_by_every_key(cluster, author_alias, name):
    """The quick look-up (author_key_words, anchored at the surname: DECISIONS.md D-176) finds the person and the
    surname's keys with their papers exactly as the scan of every key that an index built before it needs."""
    from webapp.services.es.access import EsAccess
    from webapp.services.query import author_names
    from webapp.services.search_settings import search_config

    access = EsAccess(cluster.client("web"), author_alias, search_config())
    by_words, by_keys = (author_names.look_up(access, name, w) for w in (True, False))
    assert by_words == by_keys
    assert by_words is not None and (by_words.surname or name == "Hintn")


def test_typos_in_a_name_only_when_no_author_has_it_and_then_said(client):
    data = client.get("/api/search", query_string={"q": "author:Hintn"}).get_json()
    assert "similar_authors" in data["fallbacks"] and data["similar_authors"] == ["Hintn"]
    assert {"hinton-1", "hinton-2"} <= {h["id"] for h in data["hits"]}
    doc = html.fromstring(client.get("/?q=author:Hintn&lang=en").get_data(as_text=True))
    assert "No author is named Hintn" in doc.xpath("string(//p[@id='similar-authors'])")


def test_excluding_an_author_excludes_the_person(client):
    assert ids(client, 'networks -author:"Wei Wang"') & {"wang-1", "wang-2"} == set()


def test_one_person_one_page_with_every_spelling_counted(client):
    for name in ("Bernhard Schölkopf", "Bernhard Schoelkopf", "B. Schölkopf"):
        data = client.get(f"/api/authors/{quote(name)}").get_json()
        assert data["papers"] == 3, name
    data = client.get(f"/api/authors/{quote('Bernhard Schoelkopf')}").get_json()
    assert sorted((s["name"], s["count"]) for s in data["spellings"]) == [
        ("B. Schölkopf", 1), ("Bernhard Schoelkopf", 1), ("Bernhard Schölkopf", 1)]
    assert not data["several_people"]
    assert client.get("/api/authors/Zico%20Kolter").get_json()["papers"] == 3  # J. Zico Kolter, J Kolter too
    assert client.get(f"/api/authors/{quote('Klaus-robert Mueller')}").get_json()["papers"] == 2
    # The page and the search agree: /author/Wei Wang is what author:"Wei Wang" finds.
    assert client.get("/api/authors/Wei%20Wang").get_json()["papers"] == 2


def test_initials_that_cover_several_first_names_are_said_to_with_groups_covering_every_paper(client):
    data = client.get("/api/authors/G.%20Hinton").get_json()
    assert data["several_people"] and data["papers"] == 4
    assert sorted((g["name"], g["papers"]) for g in data["groups"]) == [("g", 1), ("geoffrey", 2), ("george", 1)]
    assert data["grouped_papers"] == 4


def test_a_surname_page_offers_the_people_who_carry_it(client):
    r = client.get("/author/Bengio?lang=en")
    assert r.status_code == 200
    doc = html.fromstring(r.get_data(as_text=True))
    people = {a.text.strip(): a.get("href") for a in doc.xpath("//ul[contains(@class,'people')]//a")}
    assert set(people) == {"Yoshua Bengio", "Samy Bengio", "Emmanuel Bengio"}
    assert client.get(people["Yoshua Bengio"]).status_code == 200
    missing = client.get("/author/Nobody%20Bengio?lang=en")
    assert missing.status_code == 404 and "Samy Bengio" in missing.get_data(as_text=True)
    assert client.get("/author/Zzyzx").status_code == 404


def test_an_author_page_has_a_feed_and_exports_of_its_papers(client):
    doc = html.fromstring(client.get("/author/Zico%20Kolter?lang=en").get_data(as_text=True))
    feed = doc.xpath("//a[@class='follow']/@href")[0]
    assert parse_qs(urlsplit(feed).query)["q"] == ['author:"Zico Kolter"']  # the page's own name
    export = doc.xpath("//span[@class='export']/a/@href")[0]
    body = client.get(export).get_data(as_text=True)
    assert all(i in body for i in ("Provable defenses", "Deep equilibrium", "Learning stable dynamics"))


def test_author_suggestions_lead_to_the_author_page(client):
    data = client.get("/api/suggest", query_string={"q": "Zico"}).get_json()
    authors = [s for s in data.get("suggestions", data) if isinstance(s, dict) and s.get("kind") == "author"]
    assert authors and all(s["url"].startswith("/author/") for s in authors)


def test_a_surnames_people_are_shown_as_their_papers_write_them(client):
    doc = html.fromstring(client.get(f"/author/{quote('Schölkopf')}?lang=en").get_data(as_text=True))
    assert doc.xpath("string(//h1)") == "Bernhard Schölkopf"  # one person: their page, diacritics kept
    doc = html.fromstring(client.get("/author/Wang?lang=en").get_data(as_text=True))
    names = [a.text.strip() for a in doc.xpath("//ul[contains(@class,'people')]//a")]
    assert {"Wei Wang", "Wen Wang", "Fei Wang"} <= set(names) and "wei wang" not in names


def test_a_full_name_no_paper_has_is_not_another_persons_page(client):
    assert client.get("/api/authors/Jonas%20Schoelkopf").status_code == 404  # Bernhard is the only Schölkopf
