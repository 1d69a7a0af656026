"""A paper as a BibTeX entry: @inproceedings for a conference paper, @article for a journal article, else
@misc (a preprint's or an untyped record's venue as howpublished; any record without a venue, whose required
journal or booktitle it could not fill).

Values keep their UTF-8 text (Chinese included); the characters LaTeX treats as commands are escaped (braces as
\\textbraceleft{}/\\textbraceright{}, so the only braces in a field are groups BibTeX counts as TeX does), so a
title like "Q&A at 50% cost_{fast}" prints as written, while TeX formulas (`$\\alpha$`) pass through as math,
through an allow-list of harmless TeX (bibtex_tex.py: no TeX that reads, writes or runs anything reaches a
user's LaTeX run; DECISIONS.md D-185). In the title, words a style must not lowercase (acronyms, mixed case,
formulas: "VAE", "ImageNet", "$\\alpha$TC-VAE") are brace-protected. An untitled record has no title field. A DOI
and an arXiv id (eprint, archiveprefix: biblatex's and natbib's fields) are written where the record has them. See
DECISIONS.md D-051, D-106.
"""

from __future__ import annotations

import re

from papersearch import markup, tex
from papersearch.text import has_cjk, normalize_text
from webapp.domain import Hit
from webapp.serializers.bibtex_tex import safe_formula
from webapp.serializers.citation_fields import citation_key, cited_abstract, cited_title, subject_terms

MEDIA_TYPE = "application/x-bibtex; charset=utf-8"
EXTENSION = "bib"

_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}", "&": r"\&", "%": r"\%",
    "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))
_LATER_CAPITAL = re.compile(r".\S*?[A-Z]")  # an upper-case letter after a word's first character
_FORMULA_MARK = re.compile("\x00(\\d+)\x00")  # a formula's place in a title while it is cut into words
# entry kind and the field its venue goes in, by record type (papersearch/record_types.py)
_KINDS = {"conference-paper": ("inproceedings", "booktitle"), "journal-article": ("article", "journal")}
_OTHER = ("misc", "howpublished")


def _literal(text: str) -> str:
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], text)


def escape(text: str) -> str:
    """LaTeX's special characters as literal text, formulas as math, markup as TeX (\\emph{…}, \\textbf{…} for
    Markdown's **…**, \\url{…}, \\cite{…}: papersearch/markup.py); everything else (accents, Chinese) unchanged.
    A formula whose groups do not balance is escaped as text (it would break the entry)."""
    text = normalize_text(text)
    if not markup.may_have_markup(text):
        return _literal(text)
    return "".join(_piece(p) for p in markup.pieces(text))


_CITE_KEYS = re.compile(r"[\w:.,/+ -]+")


def _piece(piece: markup.Piece) -> str:
    if piece.kind == "text":
        return _literal(piece.written)
    if piece.span is not None:
        return _formula(piece.written, piece.span.tex)
    if piece.kind == "url":
        return f"\\url{{{url(piece.inner)}}}"
    if piece.kind == "cite":
        return f"{piece.command}{{{piece.inner}}}" if _CITE_KEYS.fullmatch(piece.inner) else _literal(piece.written)
    return f"{piece.command}{{{_literal(piece.inner)}}}"


def _formula(written: str, formula: str) -> str:
    """A formula as math, its delimiters as written and its TeX through the allow-list (bibtex_tex.py); as text when
    its groups do not balance."""
    kept = safe_formula(formula)
    if kept is None:
        return _literal(written)
    at = written.index(formula)
    return written[:at] + kept + written[at + len(formula):]


_URL_UNSAFE = re.compile(r"[{}\\\s\"^]")


def url(value: str) -> str:
    """A URL as a field value: braces, backslashes, spaces, quotes and carets percent-encoded, so a URL cannot close
    its field or the entry (`…}}@misc{injected,…` stays one entry) nor spell TeX in `^^` notation; % stays (a URL's
    own escapes)."""
    return _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), normalize_text(value))


def title(text: str) -> str:
    """The title escaped, each word that must keep its case in braces (a formula belongs to its word even
    when it holds spaces)."""
    text = normalize_text(text)
    found = tex.spans(text)
    masked, at = "", 0
    for i, span in enumerate(found):
        masked += f"{text[at:span.start]}\x00{i}\x00"
        at = span.end
    masked += text[at:]
    out = []
    for word in masked.split(" "):
        written = _FORMULA_MARK.sub(lambda m: text[found[int(m[1])].start:found[int(m[1])].end], word)
        protect = "\x00" in word or _LATER_CAPITAL.match(written)
        out.append(f"{{{escape(written)}}}" if protect else escape(written))
    return " ".join(w for w in out if w)


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
    """One entry; `key` instead of the paper's own citation key (a list's distinct keys: distinct_key)."""
    # @article needs its journal and @inproceedings its booktitle: without a venue the entry is @misc (issue 57.11)
    kind, venue_field = _KINDS.get(paper.record_type or "", _OTHER) if paper.venue else _OTHER
    fields = [
        ("author", authors(paper)),
        ("title", title(cited_title(paper))),
        (venue_field, escape(paper.venue or "")),
        ("year", str(paper.year or "")),
        ("url", url(paper.url or "")),
        ("doi", url(paper.doi or "")),
        ("eprint", url(paper.arxiv_id or "")),
        ("archiveprefix", "arXiv" if paper.arxiv_id else ""),
        ("keywords", ", ".join(escape(k) for k in subject_terms(paper))),
        ("abstract", escape(cited_abstract(paper))),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@{kind}{{{key or citation_key(paper)},\n{body}\n}}\n"
