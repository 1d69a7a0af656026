"""A list of papers as CSV (RFC 4180: CRLF, quoted where needed), one row per paper, for spreadsheets.

UTF-8 with a byte-order mark, so Excel opens Chinese text as such; a cell that a spreadsheet would run as
a formula (=, +, -, @ first) gets a leading apostrophe (DECISIONS.md D-072), and so does each value of a
multi-value cell (authors, subjects, keywords: DECISIONS.md D-187). TeX
formulas are readable Unicode; an untitled record's title cells are empty.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

from papersearch import added
from papersearch.text import normalize_text
from webapp.domain import Hit
from webapp.serializers.citation_fields import readable

MEDIA_TYPE = "text/csv; charset=utf-8"
EXTENSION = "csv"
BOM = "\ufeff"
COLUMNS = ("id", "title", "title_zh", "authors", "et_al", "year", "type", "venue", "topic", "subjects", "keywords",
           "abstract", "abstract_zh", "url", "pdf_url", "page", "added")
AUTHOR_SEPARATOR = "; "
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A formula after a list separator: a spreadsheet whose locale separates by ";" (many European Excels) or one
# that splits at "," opens "Alice;=1+1;Bob" as three cells, the second a formula (issue 45.9).
# Every cell is quoted besides (a quoted cell is read whole); a sign before a digit or space stays ("1, -1") unless
# what follows up to the next separator holds what only a formula has (`-2+3+cmd|' /C calc'!A0`: issue 53.5).
_FORMULA_AFTER_SEPARATOR = re.compile(r"([;,]\s*)(?=[=@]|[+\-](?:[^\d\s]|[^;,]*[|!(]))")


def _guarded(text: str) -> str:
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def _cell(value: object) -> str:
    text = normalize_text(str(value)) if value is not None else ""
    text = _FORMULA_AFTER_SEPARATOR.sub(r"\1'", text) if (";" in text or "," in text) else text
    return _guarded(text)


def _values(values: list[str]) -> str:
    """A multi-value cell: each value guarded as a cell of its own would be, then joined (issue 53.5)."""
    return AUTHOR_SEPARATOR.join(_guarded(normalize_text(v)) for v in values)


def _line(values: list[str]) -> str:
    out = io.StringIO()
    # Every cell quoted: a reader splitting at another separator still takes each quoted cell whole.
    csv.writer(out, quoting=csv.QUOTE_ALL).writerow(values)  # the excel dialect: RFC 4180 quoting, CRLF
    return out.getvalue()


def header() -> str:
    return BOM + _line(list(COLUMNS))


def row(paper: Hit, page_url: Callable[[str], str]) -> str:
    values = {
        "id": paper.id, "title": readable(paper.title), "title_zh": paper.title_zh,
        "authors": _values(paper.authors), "et_al": "yes" if paper.authors_et_al else "",
        "year": paper.year or "", "type": paper.record_type or "", "venue": paper.venue or "",
        "topic": paper.topic_path or "", "subjects": _values(paper.subjects),
        "keywords": _values(paper.keywords), "abstract": readable(paper.abstract),
        "abstract_zh": paper.abstract_zh, "url": paper.url or "",
        "pdf_url": paper.pdf_url or "", "page": page_url(paper.id),
        "added": added.stamp(paper.added) if paper.added else "",
    }
    return _line([_cell(values[c]) for c in COLUMNS])
