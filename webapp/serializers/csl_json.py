"""Papers as CSL-JSON, the input of citation processors (citeproc-js in Zotero and Mendeley, pandoc, citeproc-py):
an array of items with the variables of the citation-style-language schema (csl-data.json). paper-conference
for a conference paper, article-journal for a journal article, article (CSL's preprint) for a preprint, else
document; names as family and given parts; the year as date-parts; formulas as readable Unicode. Only what the
record holds is written: the schema allows no other keys, and a style prints what it is given.
"""

from __future__ import annotations

from typing import Any

import orjson

from papersearch.text import has_cjk, normalize_text
from webapp.domain import Hit
from webapp.serializers.citation_fields import citation_key, cited_abstract, cited_title, readable, subject_terms

MEDIA_TYPE = "application/vnd.citationstyles.csl+json; charset=utf-8"
EXTENSION = "json"
TYPES = {"conference-paper": "paper-conference", "journal-article": "article-journal", "preprint": "article"}
GENERIC = "document"
KEYWORD_SEPARATOR = ", "  # CSL's `keyword` is one string
ET_AL = "authors-et-al"  # the `custom` key saying the author list is incomplete (DECISIONS.md D-206)
_TEXT = {"type": "string"}
# What the API document says of a CSL-JSON answer (webapp/openapi.py): the schema's items, with the variables
# written here.
SCHEMA: dict[str, Any] = {"type": "array", "items": {
    "type": "object", "required": ["id", "type"], "properties": {
        "id": _TEXT, "type": {"type": "string", "enum": sorted({*TYPES.values(), GENERIC})},
        "author": {"type": "array", "items": {"type": "object", "properties": {
            "family": _TEXT, "given": _TEXT, "literal": _TEXT}}},
        "issued": {"type": "object", "properties": {"date-parts": {
            "type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}},
        **{k: _TEXT for k in ("title", "translated-title", "container-title", "abstract", "keyword", "language",
                              "DOI", "number", "URL")},
        "custom": {"type": "object", "properties": {ET_AL: {"type": "boolean"}}}}}}


def name(written: str) -> dict[str, str]:
    """{"family", "given"}: a Chinese name's first character is its family name ("张三" → 张, 三), a Western
    name's last word ("Søren Hauberg"), "Family, Given" as split; a one-word name is a literal."""
    written = normalize_text(written)
    if "," in written:
        family, _, given = written.partition(",")
        return {"family": family.strip(), "given": given.strip()}
    if has_cjk(written) and " " not in written and len(written) > 1:
        return {"family": written[0], "given": written[1:]}
    if " " not in written:
        return {"literal": written}
    given, family = written.rsplit(" ", 1)
    return {"family": family, "given": given}


def item(paper: Hit, key: str | None = None) -> dict[str, Any]:
    """One item; `key` as its id instead of the paper's citation key (a list's distinct keys)."""
    out: dict[str, Any] = {"id": key or citation_key(paper), "type": TYPES.get(paper.record_type or "", GENERIC)}
    if title := readable(cited_title(paper)):
        out["title"] = title
    if paper.title and paper.title_zh:
        out["translated-title"] = paper.title_zh
    if authors := [name(a) for a in paper.authors if a.strip()]:
        out["author"] = authors
    if paper.authors_et_al:  # CSL names have no "et al." marker; `custom` holds what has no variable (D-206)
        out["custom"] = {ET_AL: True}
    if paper.published:  # the day, where the source has it (issue 57.13)
        out["issued"] = {"date-parts": [[paper.published.year, paper.published.month, paper.published.day]]}
    elif paper.year:
        out["issued"] = {"date-parts": [[paper.year]]}
    if paper.venue:
        out["container-title"] = paper.venue
    if abstract := readable(cited_abstract(paper)):
        out["abstract"] = abstract
    if terms := subject_terms(paper):
        out["keyword"] = KEYWORD_SEPARATOR.join(terms)
    if len(paper.languages) == 1:
        out["language"] = paper.languages[0]
    if paper.doi:
        out["DOI"] = paper.doi
    if paper.arxiv_id and out["type"] in (TYPES["preprint"], GENERIC):
        out["number"] = f"arXiv:{paper.arxiv_id}"  # how Zotero writes a preprint's archive id
    if paper.url:
        out["URL"] = paper.url
    return out


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def to_csl_json(paper: Hit, key: str | None = None) -> str:
    """One paper as a CSL-JSON document (an array of one item, as citation processors read a file)."""
    return dumps([item(paper, key)]) + "\n"
