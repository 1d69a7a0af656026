"""A paper as a BibTeX entry: @inproceedings when it has a venue, else @misc.

Values keep their UTF-8 text (Chinese included); the characters LaTeX treats as commands are escaped, so
a title like "Q&A at 50% cost_{fast}" prints as written. See DECISIONS.md "Citation export".
"""

from __future__ import annotations

import re

from papersearch.text import has_cjk, normalize_text
from webapp.domain import Hit
from webapp.serializers.citation import citation_key, cited_abstract, cited_title

MEDIA_TYPE = "application/x-bibtex; charset=utf-8"
EXTENSION = "bib"

_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))


def escape(text: str) -> str:
    """LaTeX's special characters as literal text; everything else (accents, Chinese) unchanged."""
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], normalize_text(text))


def _name(name: str) -> str:
    # Braces keep a Chinese name, or one with a comma or a lone "and", from being split by BibTeX.
    text = escape(name)
    return f"{{{text}}}" if has_cjk(text) or "," in text or " and " in f" {text.casefold()} " else text


def authors(paper: Hit) -> str:
    names = [_name(a) for a in paper.authors if a.strip()]
    if paper.authors_et_al and names:
        names.append("others")
    return " and ".join(names)


def to_bibtex(paper: Hit, key: str | None = None) -> str:
    """One entry; `key` instead of the paper's own citation key (a list's distinct keys: citation.distinct_key)."""
    fields = [
        ("author", authors(paper)),
        ("title", escape(cited_title(paper))),
        ("booktitle", escape(paper.venue or "")),
        ("year", str(paper.year or "")),
        ("url", paper.url or ""),
        ("keywords", ", ".join(escape(k) for k in paper.keywords if k.strip())),
        ("abstract", escape(cited_abstract(paper))),
    ]
    kind = "inproceedings" if paper.venue else "misc"
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@{kind}{{{key or citation_key(paper)},\n{body}\n}}\n"
