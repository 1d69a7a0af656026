"""The arXiv metadata snapshot (Kaggle "arxiv-metadata-oai-snapshot.json"): one object per line.

Used keys: id, title, authors ("A, B and C") or authors_parsed ([[last, first, suffix], …]), abstract,
categories ("cs.LG stat.ML"), versions ([{"created": "Mon, 2 Apr 2007 …"}]), update_date, journal-ref, doi.
Mapping: id → "arxiv-<id>" ("/" of old-style ids becomes "_"), year from the id (YYMM…), else the first
version, else update_date; published: the first version's date (when arXiv first made it available);
url/pdf_url on arxiv.org; venue = journal-ref or "arXiv"; topic from the first category the taxonomy maps;
arxiv_id the id, doi the first well-formed DOI of `doi` (it may list several).
The category list is not part of Paper and is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from typing import IO, Any

from indexer.loading.authors import split_et_al
from indexer.loading.models import ARXIV_ID, DOI, paper_or_reject
from indexer.loading.readers import Located, Source
from indexer.loading.readers.jsonl import iter_values
from indexer.loading.rejects import Reject
from papersearch.taxonomy import Taxonomy
from papersearch.text import normalize_text

_NEW_ID = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}(v\d+)?$")  # 0704.0001, 2101.00001
_OLD_ID = re.compile(r"^[a-z-]+(\.[A-Za-z-]+)?/(\d{2})(\d{2})\d{3}(v\d+)?$")  # math/0501001
_YEAR = re.compile(r"\b(1[89]\d{2}|20\d{2})\b")
_AND = re.compile(r"\s+and\s+|^and\s+")
_PARENS = re.compile(r"\([^()]*\)")


def is_arxiv_record(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and "id" in obj
        and "categories" in obj
        and (isinstance(obj.get("authors"), str) or "authors_parsed" in obj)
    )


def read_arxiv(f: IO[bytes], source: Source, taxonomy: Taxonomy) -> Iterator[Located]:
    name = source.name
    for item in iter_values(f, name, source.path, source.container):
        if isinstance(item, Reject):
            yield item.line, item
            continue
        line, obj, raw = item
        if not is_arxiv_record(obj):
            yield line, Reject.make(name, line, "", "not an arXiv record", raw=raw)
            continue
        yield line, paper_or_reject(to_paper_record(obj, taxonomy), source=name, line=line, raw=raw)


def to_paper_record(obj: dict[str, Any], taxonomy: Taxonomy) -> dict[str, Any]:
    arxiv_id = normalize_text(str(obj["id"]))
    topic = taxonomy.arxiv_topic(str(obj.get("categories") or ""))
    authors, et_al = _authors(obj)
    journal_ref = normalize_text(obj.get("journal-ref") or "")
    return {
        "id": "arxiv-" + arxiv_id.replace("/", "_"),
        "title": obj.get("title"),
        "abstract": obj.get("abstract"),
        "authors": authors,
        "authors_et_al": et_al,
        "year": year_of(arxiv_id, obj),
        "published": published_of(obj),
        "venue": journal_ref or "arXiv",
        # without a journal reference an arXiv paper is a preprint; with one, config/record_types.json decides
        "record_type": None if journal_ref else "preprint",
        "url": f"https://arxiv.org/abs/{arxiv_id}",
        "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}",
        "topic_area": topic.area if topic else None,
        "topic_subarea": topic.subarea if topic else None,
        # only well-formed identifiers: a stray value in the snapshot must not cost the paper (models.py rejects it)
        "arxiv_id": arxiv_id if ARXIV_ID.fullmatch(arxiv_id) else None,
        "doi": next((d for d in normalize_text(str(obj.get("doi") or "")).split() if DOI.fullmatch(d)), None),
    }


def _authors(obj: dict[str, Any]) -> tuple[list[str], bool]:
    parsed = obj.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = []
        for parts in parsed:
            if isinstance(parts, list) and parts:  # [last, first, suffix]
                last, first, *rest = [normalize_text(str(p)) for p in parts] + [""]
                names.append(" ".join(p for p in (first, last, *rest) if p))
        et_al = bool(names) and names[-1].casefold() in ("et al", "et al.", "al")
        return (names[:-1] if et_al else names), et_al
    return split_author_string(str(obj.get("authors") or ""))


def split_author_string(text: str) -> tuple[list[str], bool]:
    """ "A, B and C" → [A, B, C]; a final "and others" / "et al." sets the et-al flag.

    Parenthesised affiliations ("A (MIT)") are dropped first, so their commas do not split names.
    """
    text = _PARENS.sub(" ", _PARENS.sub(" ", text))  # twice: one level of nesting
    text, et_al = split_et_al(normalize_text(text))
    names = [n for n in (normalize_text(x) for part in text.split(",") for x in _AND.split(part)) if n]
    if names and names[-1].casefold() == "others":  # arXiv's "A, B and others"
        return names[:-1], True
    return names, et_al


def year_of(arxiv_id: str, obj: dict[str, Any]) -> int | None:
    match = _NEW_ID.match(arxiv_id)
    if match:
        return 2000 + int(match.group(1))
    match = _OLD_ID.match(arxiv_id)
    if match:
        yy = int(match.group(2))
        return (1900 if yy >= 91 else 2000) + yy
    versions = obj.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        found = _YEAR.search(str(versions[0].get("created", "")))
        if found:
            return int(found.group(1))
    found = _YEAR.search(str(obj.get("update_date") or ""))
    return int(found.group(1)) if found else None


def published_of(obj: dict[str, Any]) -> str | None:
    """The first version's date ("Mon, 2 Apr 2007 19:18:42 GMT" → "2007-04-02"): when arXiv first made the paper
    available. None when it does not read as a date (update_date is a later version's, not a publication date)."""
    versions = obj.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        try:
            return parsedate_to_datetime(str(versions[0].get("created", ""))).date().isoformat()
        except (TypeError, ValueError, IndexError):
            return None
    return None
