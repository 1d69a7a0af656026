"""Issue 53.3–53.6 against a real node, through the app's own routes: TeX spelt around a block list never reaches a
BibTeX export, TeX-asked sizes are clamped in the page's MathML, spreadsheet payloads inside multi-value cells are
disarmed, and filter values no paper has are not copied into a page's links."""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import quote, urlencode

import bibtexparser
import pytest
from support import loaded_alias, write_jsonl

from webapp import create_app

DDE = ["-2+3+cmd|' /C calc'!A0", "+1+cmd|' /C calc'!A0"]
SPELT = {"id": "spelt", "title": "Leak $\\inp^^ut{/etc/passwd}$ now", "year": 2024, "authors": ["Eve Mallory"],
         "abstract": "Run $\\wri^^te18{calc}$, $\\c^^atcode`\\{=12$, $\\pdffiledump offset0 length9{x}$, "
                     "$x^^5cinput{/etc/passwd}$ and $\\in\\1put{x}$ please.",
         "url": "https://e.example/^^5cinput", "keywords": ["graphs", *DDE]}
SIZES = {"id": "sizes", "title": "Fractions ${a \\above 9999em b}$ drawn thick", "year": 2024,
         "authors": ["Ada Lovelace"],
         "abstract": "A $\\genfrac(]{9999em}{0}{a}{b}$ and $\\raise 9999em x$ and $\\kern9999em y$ and "
                     "$\\rule{9999em}{9999em}$."}
_SPELLINGS = re.compile(r"\\(input|write|catcode|pdffiledump|csname)")
_HEX = re.compile(r"\^\^(?:([0-9a-f]{2})|([\x00-\x7f]))")
_LENGTH = re.compile(r'(\w+)="[+-]?(\d+(?:\.\d+)?)(em|ex|px|pt|mu|%)"')
BOUNDS = {"em": 10, "ex": 20, "px": 160, "pt": 120, "mu": 180, "%": 300}


@pytest.fixture(scope="module")
def hostile(cluster, tmp_path_factory):
    path = write_jsonl(tmp_path_factory.mktemp("hostile") / "papers.jsonl", [SPELT, SIZES])
    with loaded_alias(cluster, "paperstest_hostile", [path]) as (name, _):
        yield create_app(cluster.settings(name), rate_limit="off").test_client()


def tex_read(text: str) -> str:
    """The text as TeX reads it: ^^ notation decoded until nothing is left."""
    while True:
        decoded = _HEX.sub(lambda m: chr(int(m[1], 16)) if m[1] else chr(ord(m[2]) ^ 64), text)
        if decoded == text:
            return text
        text = decoded


def test_tex_spelt_around_a_block_list_reaches_no_bibtex_export(hostile):
    for url in ("/api/papers/spelt/citation?format=bibtex", "/api/export?format=bibtex&q=leak"):
        text = hostile.get(url).get_data(as_text=True)
        assert "spelt" in text or "mallory" in text, url
        assert "^^" not in text and not _SPELLINGS.search(tex_read(text)), (url, text)
        library = bibtexparser.parse_string(text)
        assert len(library.entries) == 1 and not library.failed_blocks, url


def test_sizes_the_tex_asks_for_are_clamped_in_the_pages_mathml(hostile):
    page = hostile.get("/paper/sizes").get_data(as_text=True)
    maths = re.findall(r"<math.*?</math>", page, re.DOTALL)
    assert len(maths) >= 5 and not [m for m in maths if "9999" in m]  # (the text of the page's metadata has it)
    found = _LENGTH.findall("".join(maths))
    assert ("linethickness", "10", "em") in found
    assert all(float(number) <= BOUNDS[unit] for _, number, unit in found), found


def test_payloads_inside_multi_value_cells_are_disarmed(hostile):
    exported = hostile.get("/api/export?format=csv&q=leak").data.decode("utf-8-sig")
    [row] = [r for r in csv.DictReader(io.StringIO(exported)) if r["id"] == "spelt"]
    assert row["keywords"] == "graphs; '-2+3+cmd|' /C calc'!A0; '+1+cmd|' /C calc'!A0"


def _junk(n: int = 9) -> list[tuple[str, str]]:
    """The probe's values (issue 53.6): nine venue and nine area values of 290 characters no paper has."""
    return [(name, (name[0] * 290)[:288] + f"{i:02d}") for name in ("venue", "area") for i in range(n)]


def test_filter_values_no_paper_has_are_not_copied_into_links(client):
    base = [("q", "learning"), ("size", "100")]
    real = client.get("/api/search?q=learning").get_json()
    venue = next(v["value"] for f in real["facets"] if f["name"] == "venue" for v in f["values"])
    plain = client.get("/?" + urlencode([*base, ("venue", venue)])).get_data(as_text=True)
    url = "/?" + urlencode([*base, ("venue", venue), *_junk()])
    junk = client.get(url)
    page = junk.get_data(as_text=True)
    assert junk.status_code == 200
    # Each value is named in its chip and, when the page is empty, in the line that says which filter emptied it
    # and offers to drop it (issue 57.7): a bounded few times, in no link's address (nor the language links').
    for _, value in _junk():
        assert page.count(value) <= 3, (value[:6], page.count(value))
        assert f"{value}&" not in page and not page.count(f"={value}"), value[:6]
    assert len(page) < len(plain) + 3 * len(url), (len(page), len(plain), len(url))  # each value a few times at most
    assert "not in the index" in page
    # The real venue stays in the links; a chip's link is the page without its value.
    assert f"venue={quote(venue, safe='')}" in page.replace("+", "%20") or f"venue={venue}" in page
    chips = re.findall(r'class="chip chip-removable chip-ignored" href="([^"]+)"', page)
    assert len(chips) == 18 and all("vvvv" not in c and "aaaa" not in c for c in chips)
