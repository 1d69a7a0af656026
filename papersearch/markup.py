"""Markup in titles and abstracts, read once for every format (issue 44.3): TeX math (tex.py's spans), and outside
math the TeX text commands authors write (\\emph, \\textit, \\textbf, \\texttt, \\textsc …, \\url, \\cite), the
declarations of a group ({\\bf …}, {\\em …}, {\\color{blue} …}; \\textcolor{blue}{…}: colour is dropped, an address in
it stays a link) and Markdown **bold** / *italic*.

`pieces` cuts a field into what it says; the webapp renders them (pages: webapp/services/results/math_html.py, sanitised
as its MathML is; BibTeX: kept as TeX, webapp/serializers/bibtex.py) and `to_text` gives the readable text that
JSON-LD, RIS, CSV, feeds and page metadata carry ("\\emph{sparse} $\\ell_1$" → "sparse ℓ_1").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from papersearch import tex

Kind = Literal["text", "math", "em", "strong", "code", "plain", "url", "cite"]
MAX_ARGUMENT = 500  # characters inside one command: a longer brace is no markup
# What each TeX text command is on a page (plain: its text, no style the page has to show).
_COMMANDS: dict[str, Kind] = {
    "emph": "em", "textit": "em", "textsl": "em", "textbf": "strong", "texttt": "code",
    "textsc": "plain", "textrm": "plain", "textsf": "plain", "textup": "plain", "textnormal": "plain",
    "underline": "plain",
}
# TeX's declarations inside a group (`{\\bf fast}`, `{\\color{blue} https://…}`) and \\textcolor{…}{…}: what their text
# is on a page (issue 57.10: a coloured link showed as raw TeX).
_SWITCHES: dict[str, Kind] = {
    "bf": "strong", "bfseries": "strong", "it": "em", "em": "em", "sl": "em", "itshape": "em", "tt": "code",
    "ttfamily": "code", "sc": "plain", "rm": "plain", "sf": "plain", "scshape": "plain", "color": "plain",
}
_COLOR = r"\{[A-Za-z]{1,30}\}"
# The TeX a Markdown mark or a declaration is in BibTeX ("" for a plain group: braces only).
MARKDOWN_TEX = {"strong": "\\textbf", "em": "\\emph", "code": "\\texttt", "plain": ""}
_URL = re.compile(r"https?://[^\s{}]{1,2000}")
_MARKUP = re.compile(
    rf"\\(?P<cmd>{'|'.join(_COMMANDS)})\{{(?P<arg>[^{{}}$]{{1,{MAX_ARGUMENT}}})\}}"
    r"|\\url\{(?P<url>[^{}\s]{1,2000})\}"
    rf"|\{{\\(?P<switch>{'|'.join(_SWITCHES)})(?:(?<=color){_COLOR})?(?![A-Za-z])\s*"
    rf"(?P<grouped>[^{{}}$\\\s](?:[^{{}}$\\]{{0,{MAX_ARGUMENT}}}?[^{{}}$\\\s])?)\s*\}}"
    rf"|\\textcolor{_COLOR}\{{(?P<colored>[^{{}}$\\]{{1,{MAX_ARGUMENT}}})\}}"
    r"|\\(?:cite|citep|citet|citealp|citeauthor|citeyear)\{(?P<cite>[^{}]{1,300})\}"
    rf"|\*\*(?P<bold>[^\s*](?:[^*]{{0,{MAX_ARGUMENT}}}?[^\s*])?)\*\*"
    rf"|(?<![\w*\\])\*(?P<italic>[^\s*](?:[^*]{{0,{MAX_ARGUMENT}}}?[^\s*])?)\*(?![\w*])"
)


@dataclass(frozen=True)
class Piece:
    kind: Kind
    start: int  # in the field, the whole piece as written
    end: int
    written: str
    inner: str = ""  # what it says: a command's argument, a formula's TeX, a URL, citation keys
    inner_at: int = 0  # where `inner` starts within `written`
    command: str = ""  # the TeX command as written (\\emph …), or for Markdown the one BibTeX gets
    span: tex.Span | None = None


def may_have_markup(text: str) -> bool:
    """A cheap test before `pieces`: most texts have no backslash, dollar or asterisk at all."""
    return "\\" in text or "$" in text or "*" in text


def _outside_math(text: str, at: int) -> list[Piece]:
    out: list[Piece] = []
    last = 0
    for m in _MARKUP.finditer(text):
        if m.start() > last:
            out.append(Piece("text", at + last, at + m.start(), text[last:m.start()]))
        name = next(g for g in ("arg", "url", "cite", "bold", "italic", "grouped", "colored") if m.group(g) is not None)
        kind: Kind = {"arg": _COMMANDS.get(m.group("cmd") or "", "plain"), "url": "url", "cite": "cite",
                      "bold": "strong", "italic": "em", "grouped": _SWITCHES.get(m.group("switch") or "", "plain"),
                      "colored": "plain"}[name]  # type: ignore[assignment]
        if name in ("grouped", "colored") and _URL.fullmatch(m.group(name)):
            kind = "url"  # a coloured or styled address is still a link
        markdown = name in ("bold", "italic", "grouped", "colored")
        command = MARKDOWN_TEX.get(kind, "") if markdown else m.group()[:m.group().index("{")]
        out.append(Piece(kind, at + m.start(), at + m.end(), m.group(), m.group(name), m.start(name) - m.start(),
                         command))
        last = m.end()
    if last < len(text):
        out.append(Piece("text", at + last, at + len(text), text[last:]))
    return out


def pieces(text: str) -> list[Piece]:
    """The field cut into plain text, formulas and marked-up pieces, in order."""
    if not may_have_markup(text):
        return [Piece("text", 0, len(text), text)] if text else []
    out: list[Piece] = []
    at = 0
    for written, span in tex.segments(text):
        if span is not None:
            out.append(Piece("math", at, at + len(written), written, span.tex, span=span))
        elif "\\" in written or "*" in written:
            out += _outside_math(written, at)
        else:
            out.append(Piece("text", at, at + len(written), written))
        at += len(written)
    return out


def piece_text(piece: Piece) -> str:
    """What one piece reads as in plain text."""
    if piece.kind == "math":
        return tex.formula_text(piece.inner)
    if piece.kind == "cite":
        return f"[{piece.inner}]"
    return piece.written if piece.kind == "text" else piece.inner


def to_text(text: str) -> str:
    """The field as readable text: formulas as Unicode, markup as its words ("**fast** \\emph{sparse}" → "fast
    sparse", "\\url{https://x.org}" → the URL, "\\cite{smith20}" → "[smith20]")."""
    if not may_have_markup(text):
        return text
    return "".join(piece_text(p) for p in pieces(text))
