"""Issue 44.3: math and markup as the authors meant them (papersearch/markup.py and its renderers)."""

from __future__ import annotations

import bibtexparser

from papersearch import markup, tex
from webapp.domain import Hit
from webapp.serializers import bibtex, ris
from webapp.serializers.citation_fields import readable
from webapp.services.results import math_html

ABSTRACT = ("We prove $ \\tilde{O} (\\sqrt{d} \\epsilon^{-1})$ regret at $ T $ rounds with \\emph{sparse} codes, "
            "\\textbf{fast} **bold** and *italic* words, see \\url{https://example.org/code} \\cite{smith20}.")


def test_spaced_dollars_are_math_but_prices_are_not():
    assert [s.tex.strip() for s in tex.spans(ABSTRACT)] == ["\\tilde{O} (\\sqrt{d} \\epsilon^{-1})", "T"]
    assert tex.spans("it costs $5 and $10 a month") == []
    assert tex.spans("pay $5 or $x_1$") and tex.spans("pay $5 or $x_1$")[0].tex == "x_1"


def test_flattened_formulas_stay_unambiguous():
    assert tex.formula_text("\\ell_{1,\\infty}") == "ℓ_(1,∞)"
    assert tex.formula_text("O(\\log\\frac{1}{\\epsilon})") == "O(log(1/ϵ))"
    assert tex.formula_text("\\frac{a+b}{2}") == "((a+b)/2)"
    assert tex.formula_text("x^{2}") == "x^2"  # one symbol needs no parentheses


def test_readable_text_has_the_words_not_the_markup():
    text = markup.to_text(ABSTRACT)
    assert text == ("We prove Õ (√(d) ϵ^(-1)) regret at T rounds with sparse codes, fast bold and italic words, "
                    "see https://example.org/code [smith20].")
    assert markup.to_text("A* search and B* trees, 2*3*4") == "A* search and B* trees, 2*3*4"  # no emphasis


def test_pages_render_markup_as_html_and_math_as_mathml():
    page = math_html.text_html(ABSTRACT + " <script>x</script> \\url{javascript:alert(1)}")
    assert "<em>sparse</em>" in page and "<strong>fast</strong>" in page and "<strong>bold</strong>" in page
    assert "<em>italic</em>" in page and page.count("<math") == 2
    assert '<a href="https://example.org/code" rel="nofollow ugc noopener">' in page and "[smith20]" in page
    assert "<script>" not in page and 'href="javascript' not in page and "\\emph" not in page
    marked = math_html.fragment_html("codes with \\emph{<mark>sparse</mark>} codes", ABSTRACT)
    assert "<em><mark>sparse</mark></em>" in marked


def test_bibtex_keeps_tex_and_turns_markdown_into_tex():
    paper = Hit(id="m", title="Regret of $ T $ rounds", heading="Regret of $ T $ rounds", heading_html="",
                abstract=ABSTRACT, authors=["Ada Lovelace"], year=2024)
    entry = bibtex.to_bibtex(paper)
    assert "\\textbackslash" not in entry and "\\$" not in entry
    assert "$ \\tilde{O} (\\sqrt{d} \\epsilon^{-1})$" in entry and "\\emph{sparse}" in entry
    assert "\\textbf{bold}" in entry and "\\emph{italic}" in entry and "\\url{https://example.org/code}" in entry
    assert len(bibtexparser.parse_string(entry).entries) == 1
    assert "AB  - We prove Õ (√(d) ϵ^(-1)) regret" in ris.to_ris(paper)
    assert readable(paper.title) == "Regret of T rounds"
