"""TeX math in titles and abstracts (`$\\alpha$TC-VAE`, `1024$\\times$512`, `\\(x^2\\)`): where it is, and
its readable Unicode text (α, ×) for the formats and fields that carry plain text.

The one definition of a math span, shared by the indexer (the `math` search field: "α" finds `$\\alpha$`)
and the webapp (MathML on pages, readable text in RIS, CSV, feeds and page metadata, math kept as math in
BibTeX, where webapp/serializers/bibtex_tex.py lets only harmless TeX through). Unicode text comes from pylatexenc
(DECISIONS.md D-106).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

MAX_SPAN = 400  # characters of TeX in one span: two far-apart dollar signs are not one formula
# $$…$$, $…$ (no space just inside, so "$5 and $10" is no formula), \(…\); a backslashed \$ is a dollar.
# With a space just inside (`$ T $`, `$ \tilde{O} (…)$`: issue 44.3) only when it plainly is math: a TeX
# command, ^, _ or a brace in it, or a single letter.
_SPAN = re.compile(
    rf"(?<!\\)\$\$(?P<display>[^$]{{1,{MAX_SPAN}}}?)(?<!\\)\$\$"
    rf"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$]{{0,{MAX_SPAN}}}?[^\s\\$])?)\$(?!\$)"
    rf"|(?<![\\$])\$(?P<spaced>\s*(?:[A-Za-z]|[^$]{{0,{MAX_SPAN}}}?[\\^_{{}}][^$]{{0,{MAX_SPAN}}}?)\s*)(?<!\\)\$(?!\$)"
    rf"|\\\((?P<paren>.{{1,{MAX_SPAN}}}?)\\\)"
)
_TEXT_CACHE = 4096  # distinct formulas kept (a page shows a few dozen)
_converter = LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


@dataclass(frozen=True)
class Span:
    start: int  # of the whole span, delimiters included
    end: int
    tex: str  # the formula between the delimiters


def spans(text: str) -> list[Span]:
    """The math spans of a text, in order, never overlapping."""
    out = []
    for m in _SPAN.finditer(text):
        tex = m.group("display") or m.group("inline") or m.group("spaced") or m.group("paren") or ""
        if tex.strip():
            out.append(Span(m.start(), m.end(), tex))
    return out


def may_have_math(text: str) -> bool:
    """A cheap test before `spans`: most texts have no delimiter at all."""
    return "$" in text or "\\(" in text


def _group(tex: str, at: int) -> tuple[str, int]:
    """The argument at `at` (spaces skipped): a braced group's inside, a command, or one character; and where it
    ends."""
    while at < len(tex) and tex[at] == " ":
        at += 1
    if at >= len(tex):
        return "", at
    if tex[at] == "{":
        depth = 0
        for i in range(at, len(tex)):
            depth += {"{": 1, "}": -1}.get(tex[i], 0)
            if depth == 0:
                return tex[at + 1:i], i + 1
        return tex[at + 1:], len(tex)
    command = _COMMAND.match(tex, at)
    end = command.end() if command else at + 1
    return tex[at:end], end


_COMMAND = re.compile(r"\\(?:[A-Za-z]+|.)")
_FRAC = re.compile(r"\\[dt]?frac(?![A-Za-z])")
_ONE = re.compile(r"\s*(?:\\[A-Za-z]+|[^\s\\])\s*")  # one symbol: no parentheses needed around it


def _part(tex: str) -> str:
    flat = _flatten(tex)
    return flat if _ONE.fullmatch(tex) else f"({flat})"


def _flatten(tex: str) -> str:
    """TeX whose structure plain text would lose, made explicit before pylatexenc reads it: a fraction as
    "(a/b)" with parentheses around longer parts, a longer sub- or superscript in parentheses: `\\ell_{1,\\infty}`
    → "ℓ_(1,∞)", `O(\\log\\frac{1}{\\epsilon})` → "O(log(1/ϵ))" (issue 44.3)."""
    if "frac" not in tex and "_{" not in tex and "^{" not in tex:
        return tex
    out: list[str] = []
    at = 0
    while at < len(tex):
        fraction = _FRAC.match(tex, at)
        if fraction:
            top, at = _group(tex, fraction.end())
            bottom, at = _group(tex, at)
            out.append(f"({_part(top)}/{_part(bottom)})")
        elif tex[at] in "_^" and tex[at + 1:at + 2] == "{":
            inside, end = _group(tex, at + 1)
            out.append(tex[at] + _part(inside))
            at = end
        else:
            out.append(tex[at])
            at += 1
    return "".join(out)


@lru_cache(maxsize=_TEXT_CACHE)
def formula_text(tex: str) -> str:
    """One formula as readable Unicode ("\\alpha" → "α", "1024\\times512" → "1024×512"), its structure kept
    where text would lose it (_flatten); its TeX when pylatexenc cannot read it."""
    try:
        text = _converter.latex_to_text(_flatten(tex))
    except Exception:  # pylatexenc raises assorted errors on broken TeX; the source is then the best text
        return tex
    return " ".join(text.split()) or tex


def segments(text: str) -> Iterator[tuple[str, Span | None]]:
    """The text cut into plain pieces (span None) and math spans (the piece is the span as written)."""
    at = 0
    for span in spans(text):
        if span.start > at:
            yield text[at:span.start], None
        yield text[span.start:span.end], span
        at = span.end
    if at < len(text):
        yield text[at:], None


def to_text(text: str) -> str:
    """The text with every formula as readable Unicode and the rest as it is: "$\\alpha$TC-VAE" → "αTC-VAE"."""
    if not may_have_math(text):
        return text
    return "".join(formula_text(span.tex) if span else piece for piece, span in segments(text))


def formulas_text(*texts: str) -> str:
    """The readable text of every formula in the texts, space-separated ("" when there is none): what the
    index's `math` field holds, so a search for "α" or "×" finds the papers that write them in TeX."""
    return " ".join(formula_text(s.tex) for text in texts if text and may_have_math(text) for s in spans(text))
