"""TeX math: spans, readable text (papersearch/tex.py), MathML with highlights (webapp/services/results/math_html.py),
BibTeX titles (webapp/serializers/bibtex.py), and the address check (webapp/encoding.py)."""

from __future__ import annotations

import pytest
from lxml import html

from papersearch import tex
from webapp.encoding import PATH, undecodable
from webapp.serializers import bibtex
from webapp.services.results.math_html import fragment_html, mathml, text_html


@pytest.mark.parametrize(("text", "formulas"), [
    (r"$\alpha$TC-VAE", [r"\alpha"]),
    (r"1024$\times$512 and $$\sum_i x_i$$ and \(x^2\)", [r"\times", r"\sum_i x_i", "x^2"]),
    ("costs $5 and $10", []),  # no formula: a space just inside a dollar
    (r"a \$ sign and $x$", ["x"]),  # an escaped dollar is a dollar
    ("$ $", []),
])
def test_spans(text, formulas):
    assert [s.tex for s in tex.spans(text)] == formulas


def test_readable_text():
    assert tex.to_text(r"$\alpha$TC-VAE on 1024$\times$512, 50% $\le \epsilon$") == "αTC-VAE on 1024×512, 50% ≤ϵ"
    assert tex.to_text("no math, 50% & more") == "no math, 50% & more"  # text outside formulas untouched
    assert tex.formulas_text(r"$\alpha$ and $\mathbb{R}^d$", "", r"\(\beta\)") == "α ℝ^d β"


def test_mathml_is_sanitised():
    assert mathml(r"\alpha") == ('<math display="inline" xmlns="http://www.w3.org/1998/Math/MathML">'
                                 "<mrow><mi>α</mi></mrow></math>")
    converted = mathml(r"x<y \text{<b>bold</b>}")  # math-mode < is an entity; the text's markup is dropped
    tree = html.fromstring(f"<div>{converted}</div>")
    assert not tree.xpath("//b") and tree.xpath("string(.)") == "x<ybold"
    assert mathml(r"\text{<img src=x onerror=alert(1)>}") is None  # not even parseable: the TeX is shown instead
    assert "&lt;img" in text_html(r"a $\text{<img src=x onerror=alert(1)>}$ b")


def test_a_highlight_around_or_inside_a_formula_marks_it_whole():
    source = r"We use $\alpha$-divergences for $\mathcal{O}(n)$ sorting."
    fragment = r"We use $\<mark>alpha</mark>$-divergences for $\mathcal{O}(n)$ sorting."
    out = html.fromstring(f"<div>{fragment_html(fragment, source)}</div>")
    assert [m.getparent().tag for m in out.xpath("//math")] == ["mark", "div"] and not out.xpath("//math//mark")
    assert out.xpath("string(.)") == "We use α-divergences for 𝒪(n) sorting."


def test_a_fragment_that_cuts_a_formula_is_completed_from_the_source():
    source = r"Long text before the formula $\mathcal{O}(n \log n)$ and <tags> & after it."
    cut = r"n \log n)$ and &lt;tags&gt; &amp; <mark>after</mark> it."
    out = fragment_html(cut, source)
    tree = html.fromstring(f"<div>{out}</div>")
    assert len(tree.xpath("//math")) == 1 and tree.xpath("//mark/text()") == ["after"]
    assert "&lt;tags&gt; &amp;" in out  # the text around stays escaped
    assert fragment_html("<mark>plain</mark> &amp; text", "plain & text") == "<mark>plain</mark> &amp; text"


@pytest.mark.parametrize(("title", "entry"), [
    (r"$\alpha$TC-VAE: On Disentanglement", r"{$\alpha$TC-VAE:} On Disentanglement"),
    ("Training GANs on ImageNet (VAE) in 3D", r"Training {GANs} on {ImageNet} {(VAE)} in {3D}"),
    (r"A $\mathcal{O}(n \log n)$ sort", r"A {$\mathcal{O}(n \log n)$} sort"),  # a formula with spaces is one word
    ("Q&A at 50%", r"{Q\&A} at 50\%"),
    # unbalanced: escaped as text
    (r"Broken $\frac{a$ brace", r"Broken {\$\textbackslash{}frac\textbraceleft{}a\$} brace"),
    ("基于大语言模型的检索", "基于大语言模型的检索"),
])
def test_bibtex_titles_keep_math_and_protect_case(title, entry):
    assert bibtex.title(title) == entry


@pytest.mark.parametrize(("query", "path", "bad"), [
    (b"q=%ff%fe", "/", "q"), (b"a=1&%ff=2", "/", "\ufffd"), (b"q=%e4%b8%ad+x&y&z=", "/", None),
    (b"", "/paper/\xff", PATH), (b"", "/paper/\xe4\xb8\xad", None), (b"q=%C3%28", "/", "q"),
])
def test_an_address_that_is_not_utf8_is_named(query, path, bad):
    assert undecodable(query, path) == bad


# --- hostile TeX (issue 45.10) ------------------------------------------------------------------------------------


def test_huge_spaces_do_not_survive_the_mathml_allow_list():
    from webapp.services.results import math_html

    out = math_html.mathml("\\hspace{100000em} x \\kern 9999pt \\, y \\hspace{1em}")
    assert out and "100000em" not in out and "9999pt" not in out
    assert 'width="1em"' in out  # a modest space stays


def test_bombs_stay_tex_and_a_fields_mathml_is_bounded():
    import time

    from webapp.services.results import math_html

    brace_bomb = "$" + "{" * 40 + "x" + "}" * 40 + "$"
    assert "<math" not in math_html.text_html(brace_bomb)
    matrix = "$\\begin{matrix}" + "a&" * 100 + "b\\end{matrix}$"
    assert "<math" not in math_html.text_html(matrix)
    many = " ".join(f"$\\mathbb{{{'ABCDEFGHIJKLMNOPQRSTUVWXYZ' * 3}}}_{i}$" for i in range(300))  # ~20 KB of TeX
    started = time.perf_counter()
    page = math_html.text_html(many)
    assert len(page) < math_html.MAX_FIELD_MATHML + 2 * len(many)  # beyond the budget the TeX stays text
    assert "\\mathbb" in page  # the formulas past the budget, escaped
    again = time.perf_counter()
    assert math_html.text_html(many) == page and time.perf_counter() - again < (again - started) / 10 + 0.001


# --- every MathML attribute by one rule (issue 53.4) ----------------------------------------------------------------

# MathML Core's attributes (global and per element) and MathML 3's table and enclose attributes latex2mathml writes.
MATHML_ATTRIBUTES = (
    "dir", "displaystyle", "mathbackground", "mathcolor", "mathsize", "mathvariant", "scriptlevel", "autofocus",
    "class", "id", "style", "tabindex", "nonce", "onclick", "href", "display", "linethickness", "form", "fence",
    "separator", "lspace", "rspace", "stretchy", "symmetric", "maxsize", "minsize", "largeop", "movablelimits",
    "accent", "accentunder", "width", "height", "depth", "voffset", "columnspan", "rowspan", "encoding",
    "columnalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "framespacing", "notation",
    "rowalign", "equalrows", "equalcolumns", "side", "minlabelspacing", "xlink:href", "definitionURL", "src",
)
HOSTILE_VALUES = ("9999em", "+9999em", "-9999em", "1e9px", "99999999999999999999pt", "0.5em 9999em", "9999",
                  "9999%", "thick", "true", "99", "javascript:alert(1)", "expression(alert(1))", "url(x)",
                  "left " * 50, "x" * 5000, "")


def test_every_mathml_attribute_is_kept_only_by_its_kind_and_lengths_are_bounded():
    from webapp.services.results import mathml_attributes as ma

    for name in MATHML_ATTRIBUTES:
        for value in HOSTILE_VALUES:
            kept = ma.kept({name: value})
            assert set(kept) <= set(ma.RULES), (name, value)
            for written in kept.values():
                assert len(written) <= 200 and "(" not in written and ":" not in written, (name, value)
                for part in written.split():
                    found = ma._LENGTH.fullmatch(part)
                    if found:
                        assert float(found[2]) <= ma.MAX_LENGTH[found[3] or ""], (name, value, written)
    assert ma.kept({"linethickness": "9999em"}) == {"linethickness": "10em"}
    assert ma.kept({"columnspacing": "0em 9999em", "rowspacing": "3pt", "framespacing": "9999pt 1ex"}) == \
        {"columnspacing": "0em 10em", "rowspacing": "3pt", "framespacing": "120pt 1ex"}
    assert ma.kept({"scriptlevel": "+99", "mathvariant": "bold", "style": "x"}) == {"scriptlevel": "+3",
                                                                                   "mathvariant": "bold"}


@pytest.mark.parametrize("formula", ["{a \\above 9999em b}", "\\genfrac(]{9999em}{0}{a}{b}", "\\raise 9999em x",
                                     "\\rule{9999em}{9999em}", "\\kern9999em x", "\\mskip 99999mu x"])
def test_hostile_sizes_in_tex_are_clamped_in_mathml(formula):
    out = mathml(formula)
    assert out and "9999" not in out, out
    for name, number, unit in __import__("re").findall(r'(\w+)="[+-]?(\d+(?:\.\d+)?)(em|ex|px|pt|mu|%)"', out):
        assert float(number) <= {"em": 10, "ex": 20, "px": 160, "pt": 120, "mu": 180, "%": 300}[unit], (name, out)
