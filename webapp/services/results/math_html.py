"""TeX math as MathML in the HTML the pages show (titles, snippets, abstracts), highlights kept whole.

latex2mathml turns each formula into MathML on the server (no script, no CDN). Its output is not trusted as
is (it copies `\\text{<b>}` through verbatim): it is parsed, and only MathML elements and attributes of an
allow-list are written back, every text escaped, every attribute's value read by its kind and lengths clamped
(mathml_attributes.py); a formula that does not convert or parse stays as its
escaped TeX. A highlight fragment (escaped text with our <mark> tags) is turned back into text and marks,
cut formulas are completed from the field's text, and a formula with a marked character is marked whole,
so a <mark> never lands inside MathML. See DECISIONS.md D-106.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from xml.etree import ElementTree as ET

from latex2mathml.converter import convert
from markupsafe import escape

from papersearch import markup, tex
from webapp.services.results import math_letters, mathml_attributes

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_ELEMENTS = frozenset((
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac", "msqrt",
    "mroot", "mover", "munder", "munderover", "mstyle", "mtable", "mtr", "mtd", "menclose", "mpadded",
    "mphantom", "merror", "semantics", "annotation", "mmultiscripts", "mprescripts", "none",
))
_TOKENS = frozenset(("mi", "mn", "mtext"))  # elements whose text a mathvariant styles
_LONE_AMPERSAND = re.compile(r"&(?!#x?[0-9a-fA-F]+;|[a-zA-Z]+;)")
_MARK = re.compile(r"(</?mark>)")
_CACHE = 4096  # distinct formulas kept per process
_TEXT_CACHE = 512  # whole fields kept per process: a hostile paper's page costs its rendering once
# Bounds on hostile TeX (issue 45.10): a formula deeper, with more cells or rows, or longer than these stays its
# escaped TeX; a field's MathML stops growing at MAX_FIELD_MATHML characters (the rest of its formulas as TeX).
MAX_DEPTH = 16  # nested braces
MAX_CELLS = 64  # & and \\ in one formula (matrices)
MAX_FORMULA = 300  # characters of TeX converted
MAX_FIELD_MATHML = 60_000


def _bounded(formula: str) -> bool:
    """Whether a formula is small enough to convert: length, brace depth, matrix cells."""
    if len(formula) > MAX_FORMULA or formula.count("&") + formula.count("\\\\") > MAX_CELLS:
        return False
    depth = 0
    for c in formula:
        depth += 1 if c == "{" else -1 if c == "}" else 0
        if depth > MAX_DEPTH:
            return False
    return True


def _clean(element: ET.Element) -> ET.Element | None:
    name = element.tag.rsplit("}", 1)[-1]
    if name not in _ELEMENTS:
        return None
    attributes = mathml_attributes.kept(element.attrib)
    out = ET.Element(name, attributes)
    out.text = element.text
    variant = attributes.get("mathvariant")
    if variant and name in _TOKENS and not len(element) and (letters := math_letters.styled(element.text or "",
                                                                                              variant)):
        out.text = letters  # the styled letters themselves: Chromium ignores the attribute (math_letters.py)
        del out.attrib["mathvariant"]
    for child in element:
        kept = _clean(child)
        if kept is not None:
            kept.tail = child.tail
            out.append(kept)
            continue
        text = "".join(child.itertext()) + (child.tail or "")  # markup that is not MathML: only its text stays
        if len(out):
            out[-1].tail = (out[-1].tail or "") + text
        else:
            out.text = (out.text or "") + text
    return out


@lru_cache(maxsize=_CACHE)
def mathml(formula: str) -> str | None:
    """The formula as inline MathML (safe to embed in HTML), or None when it cannot be converted or is beyond
    the bounds on hostile TeX (_bounded)."""
    if not _bounded(formula):
        return None
    try:  # math-mode < and > come out as entities; \text{…} verbatim, so markup there is parsed and dropped
        root = _clean(ET.fromstring(_LONE_AMPERSAND.sub("&amp;", convert(formula))))
    except Exception:  # the converter raises assorted errors on TeX it cannot read
        return None
    if root is None or root.tag != "math":
        return None
    root.set("xmlns", MATHML_NS)
    root.set("display", "inline")
    return ET.tostring(root, encoding="unicode", short_empty_elements=False)


class _Budget:
    """What is left of one field's MathML (MAX_FIELD_MATHML characters): past it, formulas stay TeX."""

    def __init__(self) -> None:
        self.left = MAX_FIELD_MATHML

    def formula_html(self, span: tex.Span, written: str) -> str:
        converted = mathml(span.tex) if self.left > 0 else None
        if converted is None:
            return str(escape(written))
        self.left -= len(converted)
        return converted


_TAGS = {"em": "em", "strong": "strong", "code": "code"}
_LINKABLE = re.compile(r"https?://", re.IGNORECASE)


def _piece_html(piece: markup.Piece, inner: str) -> str:
    """A marked-up piece around its (already escaped, perhaps marked) inner text: emphasis as <em>/<strong>/
    <code>, a web address as a link (http and https only; any other stays text), a citation as [keys]."""
    if piece.kind in _TAGS:
        return f"<{_TAGS[piece.kind]}>{inner}</{_TAGS[piece.kind]}>"
    if piece.kind == "url" and _LINKABLE.match(piece.inner):
        return f'<a href="{escape(piece.inner)}" rel="nofollow ugc noopener">{inner}</a>'
    if piece.kind == "cite":
        return f"[{inner}]"
    return inner


@lru_cache(maxsize=_TEXT_CACHE)
def text_html(text: str) -> str:
    """Plain text as escaped HTML, its formulas as MathML, its markup (papersearch/markup.py) as HTML."""
    if not markup.may_have_markup(text):
        return str(escape(text))
    budget = _Budget()
    out: list[str] = []
    for piece in markup.pieces(text):
        if piece.kind == "text":
            out.append(str(escape(piece.written)))
        elif piece.span is not None:
            out.append(budget.formula_html(piece.span, piece.written))
        else:
            out.append(_piece_html(piece, str(escape(piece.inner))))
    return "".join(out)


def _unmark(fragment: str) -> tuple[str, list[bool]]:
    """A highlight fragment as its text and, per character, whether it was marked."""
    chars: list[str] = []
    marks: list[bool] = []
    marked = False
    for part in _MARK.split(fragment):
        if part in ("<mark>", "</mark>"):
            marked = part == "<mark>"
            continue
        text = html.unescape(part)
        chars.append(text)
        marks += [marked] * len(text)
    return "".join(chars), marks


def _complete(text: str, marks: list[bool], source: str) -> tuple[str, list[bool]]:
    """A fragment whose first or last formula was cut, completed from the field's text (when found there)."""
    at = source.find(text)
    if at < 0:
        return text, marks
    start, end = at, at + len(text)
    for span in markup.pieces(source):
        if span.kind == "text":
            continue
        if span.start < start < span.end:
            start = span.start
        if span.start < end < span.end:
            end = span.end
    return source[start:end], [False] * (at - start) + marks + [False] * (end - at - len(text))


def _marked_html(text: str, marks: list[bool], offset: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and marks[offset + j] == marks[offset + i]:
            j += 1
        piece = str(escape(text[i:j]))
        out.append(f"<mark>{piece}</mark>" if marks[offset + i] else piece)
        i = j
    return "".join(out)


@lru_cache(maxsize=_TEXT_CACHE)
def fragment_html(fragment: str, source: str) -> str:
    """A highlight fragment of `source` with its formulas as MathML, each marked whole when any of it matched,
    and its markup as HTML with the marks of its words kept."""
    if not markup.may_have_markup(source):
        return fragment
    text, marks = _complete(*_unmark(fragment), source)
    budget = _Budget()
    out: list[str] = []
    for piece in markup.pieces(text):
        at = piece.start
        if piece.kind == "text":
            out.append(_marked_html(piece.written, marks, at))
        elif piece.span is not None:
            formula = budget.formula_html(piece.span, piece.written)
            out.append(f"<mark>{formula}</mark>" if any(marks[at:at + len(piece.written)]) else formula)
        else:
            inner = _marked_html(piece.inner, marks, at + piece.inner_at)
            out.append(_piece_html(piece, inner))
    return "".join(out)
