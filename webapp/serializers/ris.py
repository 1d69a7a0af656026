"""A paper as an RIS record (the format reference managers import): CPAPER for a conference paper, JOUR for
a journal article, UNPB for a preprint, else GEN.

One "TAG  - value" line per value, CRLF line ends as the format specifies; a value never spans lines. RIS
has no math: formulas are written as readable Unicode. An untitled record has no TI.
"""

from __future__ import annotations

from papersearch.text import normalize_text
from webapp.domain import Hit
from webapp.serializers.citation_fields import (
    citation_key,
    cited_abstract,
    cited_title,
    family_first,
    readable,
    subject_terms,
)

MEDIA_TYPE = "application/x-research-info-systems; charset=utf-8"
EXTENSION = "ris"
EOL = "\r\n"
TYPES = {"conference-paper": "CPAPER", "journal-article": "JOUR", "preprint": "UNPB"}  # by record type
GENERIC = "GEN"
# An incomplete author list (BibTeX's "and others"): RIS has no tag for it, so a note says it (DECISIONS.md D-206).
ET_AL_NOTE = "The author list is incomplete (et al.)."


def to_ris(paper: Hit, key: str | None = None) -> str:
    """One record; `key` instead of the paper's own citation key as its ID (citation_fields.distinct_key)."""
    kind = TYPES.get(paper.record_type or "", GENERIC)
    tags: list[tuple[str, str]] = [("TY", kind), ("ID", key or citation_key(paper)),
                                   ("TI", readable(cited_title(paper)))]
    if paper.title and paper.title_zh:
        tags.append(("TT", paper.title_zh))  # translated title
    tags += [("AU", family_first(a)) for a in paper.authors if a.strip()]
    if paper.authors_et_al:  # no RIS tag says "et al."; an author named "others" would be imported as a person
        tags.append(("N1", ET_AL_NOTE))
    tags += [("T2", paper.venue or "")]
    if kind == "JOUR":
        tags.append(("JO", paper.venue or ""))
    tags += [("PY", str(paper.year or ""))]
    if paper.published:
        tags.append(("DA", paper.published.strftime("%Y/%m/%d/")))  # RIS's date form
    tags += [("AB", readable(cited_abstract(paper)))]
    tags += [("KW", k) for k in subject_terms(paper)]
    tags += [("UR", paper.url or ""), ("L1", paper.pdf_url or ""), ("DO", paper.doi or "")]
    lines = [f"{tag}  - {normalize_text(value)}" for tag, value in tags if value and value.strip()]
    return EOL.join([*lines, "ER  - ", ""])
