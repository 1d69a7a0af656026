"""Issue 44.3 and 45.9 against a real node: markup and spaced math shown as meant on the paper page, readable in
JSON-LD, RIS and CSV, kept as TeX in BibTeX; a hostile url and TeX primitives cannot reach a user's LaTeX run;
CSV cells after list separators are disarmed."""

from __future__ import annotations

import csv
import io
import json

import bibtexparser
import pytest
import rispy
from lxml import html
from support import loaded_alias, write_jsonl

from webapp import create_app

MARKUP = {"id": "markup", "title": "Regret bounds at $ T $ rounds", "year": 2024, "venue": "ICLR",
          "authors": ["Ada Lovelace"],
          "abstract": "We prove $ \\tilde{O} (\\sqrt{d} \\epsilon^{-1})$ regret with \\emph{sparse} codes and "
                      "**fast** updates, code at \\url{https://example.org/code}."}
HOSTILE = {"id": "hostile", "title": "Leak $\\input{/etc/passwd}$ now", "year": 2024,
           "url": "https://e.example/}}@misc{injected_url,title={x},note={x",
           "authors": ["Alice;=1+1;Bob"], "abstract": "Run $\\immediate\\write18{calc}$ please."}


@pytest.fixture(scope="module")
def app(cluster, tmp_path_factory):
    path = write_jsonl(tmp_path_factory.mktemp("markup") / "papers.jsonl", [MARKUP, HOSTILE])
    with loaded_alias(cluster, "paperstest_markup", [path]) as (name, _):
        yield create_app(cluster.settings(name), rate_limit="off")


def test_the_paper_page_renders_markup_and_spaced_math(client):
    body = client.get("/paper/markup").get_data(as_text=True)
    page = html.fromstring(body)
    abstract = page.xpath("//section[@class='abstract']")[0]
    assert abstract.xpath("string(.//em)") == "sparse" and abstract.xpath("string(.//strong)") == "fast"
    assert abstract.xpath(".//a/@href") == ["https://example.org/code"] and len(abstract.xpath(".//math")) == 1
    assert "\\emph" not in abstract.text_content() and "**" not in abstract.text_content()
    assert page.xpath("//h1//math") and "$" not in page.xpath("string(//h1)")
    script = body.split('<script type="application/ld+json">')[1].split("</script>")[0]
    ld = json.loads(script)
    assert ld["headline" if "headline" in ld else "name"] == "Regret bounds at T rounds"
    assert "sparse codes and fast updates" in json.dumps(ld, ensure_ascii=False)


def test_ris_is_readable_and_bibtex_keeps_tex(client):
    [record] = rispy.loads(client.get("/api/papers/markup/citation?format=ris").get_data(as_text=True))
    assert record["title"] == "Regret bounds at T rounds"
    assert record["abstract"].startswith("We prove Õ (√(d) ϵ^(-1)) regret with sparse codes and fast updates")
    entry = client.get("/api/papers/markup/citation?format=bibtex").get_data(as_text=True)
    assert "\\textbackslash" not in entry and "\\emph{sparse}" in entry and "\\textbf{fast}" in entry
    assert "$ \\tilde{O} (\\sqrt{d} \\epsilon^{-1})$" in entry


def test_a_hostile_record_cannot_inject_an_entry_or_run_tex(client):
    text = client.get("/api/papers/hostile/citation?format=bibtex").get_data(as_text=True)
    library = bibtexparser.parse_string(text)
    assert len(library.entries) == 1 and not library.failed_blocks
    assert "\\input" not in text and "\\write" not in text and "\\immediate" not in text
    exported = client.get("/api/export?format=csv&q=leak").data.decode("utf-8-sig")
    [row] = [r for r in csv.DictReader(io.StringIO(exported)) if r["id"] == "hostile"]
    assert row["authors"] == "Alice;'=1+1;Bob"
    assert '"Alice;\'=1+1;Bob"' in exported  # quoted: a ';' reader keeps it one cell
