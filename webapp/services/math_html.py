"""TeX math as MathML in the HTML the pages show (titles, snippets, abstracts), highlights kept whole.

latex2mathml turns each formula into MathML on the server (no script, no CDN). Its output is not trusted as
is (it copies `\\text{<b>}` through verbatim): it is parsed, and only MathML elements and attributes of an
allow-list are written back, every text escaped; a formula that does not convert or parse stays as its
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

from papersearch import tex

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_ELEMENTS = frozenset((
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup", "mfrac", "msqrt",
    "mroot", "mover", "munder", "munderover", "mstyle", "mtable", "mtr", "mtd", "menclose", "mpadded",
    "mphantom", "merror", "semantics", "annotation", "mmultiscripts", "mprescripts", "none",
))
_ATTRIBUTES = frozenset((
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "accent", "accentunder",
    "width", "height", "depth", "columnalign", "columnspacing", "rowspacing", "columnlines", "rowlines",
    "frame", "framespacing", "notation", "displaystyle", "scriptlevel", "linethickness", "minsize", "maxsize",
    "movablelimits", "symmetric", "largeop", "form", "encoding",
))
_LONE_AMPERSAND = re.compile(r"&(?!#x?[0-9a-fA-F]+;|[a-zA-Z]+;)")
_MARK = re.compile(r"(</?mark>)")
_CACHE = 4096  # distinct formulas kept per process


def _clean(element: ET.Element) -> ET.Element | None:
    name = element.tag.rsplit("}", 1)[-1]
    if name not in _ELEMENTS:
        return None
    out = ET.Element(name, {k: v for k, v in element.attrib.items() if k in _ATTRIBUTES})
    out.text = element.text
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
    """The formula as inline MathML (safe to embed in HTML), or None when it cannot be converted."""
    try:  # math-mode < and > come out as entities; \text{…} verbatim, so markup there is parsed and dropped
        root = _clean(ET.fromstring(_LONE_AMPERSAND.sub("&amp;", convert(formula))))
    except Exception:  # the converter raises assorted errors on TeX it cannot read
        return None
    if root is None or root.tag != "math":
        return None
    root.set("xmlns", MATHML_NS)
    root.set("display", "inline")
    return ET.tostring(root, encoding="unicode", short_empty_elements=False)


def _formula_html(span: tex.Span, written: str) -> str:
    return mathml(span.tex) or str(escape(written))


def text_html(text: str) -> str:
    """Plain text as escaped HTML, its formulas as MathML."""
    if not tex.may_have_math(text):
        return str(escape(text))
    return "".join(_formula_html(span, piece) if span else str(escape(piece)) for piece, span in tex.segments(text))


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
    for span in tex.spans(source):
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


def fragment_html(fragment: str, source: str) -> str:
    """A highlight fragment of `source` with its formulas as MathML, each marked whole when any of it matched."""
    if not tex.may_have_math(source):
        return fragment
    text, marks = _complete(*_unmark(fragment), source)
    out: list[str] = []
    at = 0
    for piece, span in tex.segments(text):
        if span is None:
            out.append(_marked_html(piece, marks, at))
        else:
            formula = _formula_html(span, piece)
            out.append(f"<mark>{formula}</mark>" if any(marks[at:at + len(piece)]) else formula)
        at += len(piece)
    return "".join(out)
