"""TeX into BibTeX through an allow-list (issue 53.3, webapp/serializers/bibtex_tex.py): the issue's spellings, and
an adversarial generator (hypothesis, derandomized) whose strings are built from the pieces TeX tricks are made of.
The check reads a whole entry as TeX would: `^^` notation decoded again and again (`^^XY` hex, `^^c` ±64), then
every control sequence must be one of the allow-list's, every environment one of its environments, and every field
a balanced BibTeX value."""

from __future__ import annotations

import re

import bibtexparser
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp.domain import Hit
from webapp.serializers import bibtex
from webapp.serializers.bibtex_tex import COMMANDS, CONTROL_SYMBOLS, ENVIRONMENTS, safe_formula

# What bibtex.py itself writes around the formulas: text escapes, markup, formula delimiters.
OWN_WORDS = frozenset(("textbackslash", "textbraceleft", "textbraceright", "textasciitilde", "textasciicircum",
                       "emph", "textbf", "textit", "textsl", "texttt", "textsc", "textrm", "textsf", "textup",
                       "textnormal", "underline", "url", "cite", "citep", "citet", "citealp", "citeauthor",
                       "citeyear"))
OWN_SYMBOLS = frozenset("()")
# Primitives and macros that read or write files, run commands or change how TeX reads (never allowed).
DANGEROUS = ("input", "include", "openin", "openout", "write", "read", "readline", "immediate", "special", "catcode",
             "csname", "endcsname", "def", "edef", "gdef", "xdef", "let", "futurelet", "global", "expandafter",
             "noexpand", "string", "uppercase", "lowercase", "scantokens", "detokenize", "endinput", "jobname",
             "pdffiledump", "pdfobj", "pdfliteral", "directlua", "latelua", "ShellEscape", "newwrite", "usepackage",
             "newcommand", "renewcommand", "makeatletter", "verbatiminput", "lstinputlisting", "IfFileExists",
             "InputIfFileExists", "mathcode", "lccode", "uccode", "sfcode", "endlinechar", "escapechar", "relax",
             "the", "char", "shipout", "openany", "primitive", "pdfprimitive", "everyeof", "everypar", "output")
PIECES = ["\\", "\\", "^^", "^", "^^^^", "5c", "7b", "7d", "69", "75", "5e", "i", "n", "p", "u", "t", "e", "c", "a",
          "input", "write", "18", "catcode", "openout", "pdffiledump", "immediate", "csname", "endcsname", "def", "let",
          "expandafter", "@", "{", "}", "%", "#", "$", "$$", "\\(", "\\)", " ", "\\alpha", "\\in", "\\c", "\\begin",
          "\\end", "{filecontents}", "{matrix}", "~", "&", "_", "`", "=", "12", "\x0b", "\x0b\x0b", "é", "\\{", "\\}",
          "\\\\", "\\url{", "\\emph{", "\\cite{", "**", "http://x/"]
_HEX = re.compile(r"\^\^(?:\^\^([0-9a-f]{4})|([0-9a-f]{2})|([\x00-\x7f]))")
_CONTROL = re.compile(r"\\((?:[^\W\d_]|@)+|.)", re.DOTALL)


def tex_decoded(text: str) -> str:
    """`^^` notation decoded as TeX does, until nothing is left to decode (a decoded ^ may start another)."""
    for _ in range(50):
        def one(m: re.Match) -> str:
            if m[1] or m[2]:
                return chr(int(m[1] or m[2], 16))
            code = ord(m[3])
            return chr(code + 64 if code < 64 else code - 64)
        decoded = _HEX.sub(one, text)
        if decoded == text:
            return text
        text = decoded
    raise AssertionError("^^ decoding does not end")


def foreign_tex(entry: str) -> list[str]:
    """The control sequences and environments of an entry, as TeX reads it, that the allow-list does not have."""
    text = tex_decoded(entry)
    bad = []
    for m in _CONTROL.finditer(text):
        name = m[1]
        if len(name) == 1 and not (name.isalpha() or name == "@"):
            if name not in CONTROL_SYMBOLS | OWN_SYMBOLS:
                bad.append("\\" + name)
        elif name not in COMMANDS | OWN_WORDS:
            bad.append("\\" + name)
        elif name in ("begin", "end"):
            env = re.match(r"\{([^}]*)\}", text[m.end():])
            if not env or env[1] not in ENVIRONMENTS:
                bad.append(f"\\{name}{text[m.end():m.end() + 20]}")
    return bad


def entry_of(text: str) -> str:
    hit = Hit(id="t", heading="h", heading_html="", title=text, abstract=f"${text}$ and {text} and \\({text}\\)",
              authors=[text, "Ada Lovelace"], keywords=[text], venue=text, url=f"https://e.example/{text}",
              doi=text, year=2024)
    return bibtex.to_bibtex(hit)


def assert_harmless(entry: str) -> None:
    assert "^^" not in entry and "\x0b" not in entry, entry
    assert not re.search(r"\\[{}]", entry), entry  # a brace after a backslash: parsers differ on counting it
    assert not foreign_tex(entry), (foreign_tex(entry), entry)
    library = bibtexparser.parse_string(entry)
    assert len(library.entries) == 1 and not library.failed_blocks, entry
    for field in library.entries[0].fields:  # BibTeX counts every brace, escaped or not
        value = str(field.value)
        assert value.count("{") == value.count("}"), (field.key, value)


@pytest.mark.parametrize("formula", [
    "\\inp^^ut{/etc/passwd}", "\\wri^^te18{calc}", "\\c^^atcode`\\{=12", "\\pdffiledump offset0 length9{x}",
    "x^^5cinput{/etc/passwd}", "\\^^69nput{x}", "^^^^005cinput", "\\in\\1put{x}", "a^\\x^5cinput",
    "\\csname input\\endcsname{x}", "\\begin{filecontents}{x.tex}", "\\makeat@letter", "\x0b\x0b5cinput",
])
def test_the_issues_spellings_reach_no_latex_run(formula):
    entry = entry_of(formula)
    assert_harmless(entry)
    assert not re.search(r"\\(input|write|catcode|pdffiledump|csname)", tex_decoded(entry))


def test_ordinary_math_stays_math():
    assert safe_formula("\\mathcal{O}(n \\log n)") == "\\mathcal{O}(n \\log n)"
    assert safe_formula("\\alpha_{i}^{2} \\leq \\frac{1}{\\epsilon}") == "\\alpha_{i}^{2} \\leq \\frac{1}{\\epsilon}"
    assert safe_formula("\\{x \\mid x > 0\\}") == "\\lbrace x \\mid x > 0\\rbrace"  # balanced for BibTeX too
    assert safe_formula("\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}") == \
        "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}"
    assert safe_formula("\\frac{a}{b") is None  # bibtex.py writes it as text


def test_no_dangerous_name_is_allowed_whatever_its_case():
    # BibTeX styles lowercase titles (change.case$), so an allowed name's lowercase must not be dangerous either.
    for name in DANGEROUS:
        assert name not in COMMANDS and name not in {c.lower() for c in COMMANDS}, name


@settings(derandomize=True, max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=24).map("".join))
def test_generated_tex_never_reaches_a_latex_run(text):
    assert_harmless(entry_of(text))
    kept = safe_formula(text)
    if kept is not None:
        assert "^^" not in kept and not foreign_tex(f"${kept}$")
