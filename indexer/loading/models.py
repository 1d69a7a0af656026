"""The Paper model (validated input record) and its Elasticsearch document.

Paper fields (this is also the JSON Lines input schema, one object per line; unknown keys are ignored):

    id              string, optional. If absent: "p" + 16 hex digits of sha256 over the casefolded,
                    normalised title, title_zh, abstract, abstract_zh and authors, so loading the same
                    data twice updates instead of duplicating. At most 512 UTF-8 bytes.
    title           string, may be "" (≤ 1000 characters)
    title_zh        string, Chinese title, may be "" (≤ 1000)
    authors         list of strings (≤ 500 names, each ≤ 300 characters), or one string "A, B, C 等"
    authors_et_al   bool; also set when the author list ends in "等" / "et al." (which is removed)
    topic_area      string or null, e.g. "Deep Learning"
    topic_subarea   string or null, e.g. "Large Language Models" (needs topic_area)
    abstract        string, may be "" (≤ 20000 characters)
    abstract_zh     string, Chinese abstract, may be "" (≤ 20000)
    year            integer or null, 1800 ≤ year ≤ next year
    published       string or null: the publication date, "YYYY-MM-DD" (or a timestamp, whose date is kept);
                    arXiv's first version's date (readers/arxiv.py). Sorts the newest among papers added together.
    venue           string, may be ""
    url             http(s) URL or null
    pdf_url         http(s) URL or null
    keywords        list of strings (≤ 100, each ≤ 200), or one string "a; b, c"
    subjects        disciplines or subject headings, like keywords (a venue that is a discipline moves here)
    record_type     "conference-paper", "journal-article", "preprint", or null: then inferred from the
                    venue by config/record_types.json (papersearch/record_types.py)
    doi             string or null: a DOI ("10.1000/xyz"; a doi.org URL or "doi:" prefix is removed)
    arxiv_id        string or null: an arXiv identifier ("2101.00001", "math/0501001"; "arXiv:" removed)
    source          string: the input file name (filled in by the reader when absent)

At least one of title, title_zh, abstract, abstract_zh must be non-empty. All text is normalised
(NFC, control characters to spaces, whitespace collapsed, trimmed); values over a limit are rejected,
never silently truncated.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from indexer.loading.authors import split_author_names, split_et_al
from indexer.loading.rejects import Reject
from papersearch import text as t
from papersearch.record_types import RecordType

MIN_YEAR = 1800
TEXT_FIELDS = ("title", "title_zh", "abstract", "abstract_zh")
_KEYWORD_SPLIT = re.compile(r"\s*[,;，；、]\s*")


def _too_long(limit: int, what: str = "characters") -> PydanticCustomError:
    return PydanticCustomError("too_long", "longer than {limit} {what}", {"limit": limit, "what": what})


# --- field types ----------------------------------------------------------------------------------


def _none_to_empty(value: Any) -> Any:
    return "" if value is None else value


def _text(limit: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        value = t.normalize_text(value)
        if len(value) > limit:
            raise _too_long(limit)
        return value

    return check


def _optional_text(limit: int) -> Callable[[str | None], str | None]:
    inner = _text(limit)

    def check(value: str | None) -> str | None:
        return (inner(value) or None) if value is not None else None

    return check


# The common case of what urlsplit accepts below, without its cost: an ASCII http(s) URL whose host
# does not start with a path, query or fragment; no spaces. Brackets (IPv6 hosts) go to urlsplit.
_HTTP_URL = re.compile(r"(?i)https?://[^/?#\[\] ][^ \[\]]*")


def _check_url(value: str | None) -> str | None:
    value = t.normalize_text(value)
    if not value:
        return None
    if len(value) > t.MAX_URL:
        raise _too_long(t.MAX_URL)
    if value.isascii() and _HTTP_URL.fullmatch(value):
        return value
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or " " in value:
        raise PydanticCustomError("bad_url", "not an http(s) URL")
    return value


def _empty_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def _check_year(value: int | None) -> int | None:
    if value is None:
        return None
    last = dt.date.today().year + 1
    if not MIN_YEAR <= value <= last:
        raise PydanticCustomError("year_range", "outside {low}–{high}", {"low": MIN_YEAR, "high": last})
    return value


def _check_published(value: Any) -> str | None:
    """A publication date as "YYYY-MM-DD" (a date, or the date of a timestamp: "2007-04-02T19:18:42Z"), within
    the years a paper may have."""
    value = t.normalize_text(str(value)) if value is not None else ""
    if not value:
        return None
    try:
        day = dt.date.fromisoformat(value[:10])
    except ValueError:
        raise PydanticCustomError("bad_date", "not a date (YYYY-MM-DD)") from None
    _check_year(day.year)
    return day.isoformat()


# A DOI: "10." registrant "/" suffix (the DOI Handbook's syntax); written also as a doi.org URL or "doi:…".
DOI = re.compile(r"10\.\d{4,9}(?:\.\d+)*/\S+")
_DOI_PREFIX = re.compile(r"(?i)^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)")
# An arXiv identifier: new style YYMM.NNNN(N) or old style archive(.subject)/YYMMNNN, with an optional version.
ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
_ARXIV_PREFIX = re.compile(r"(?i)^arxiv:\s*")


def _identifier(pattern: re.Pattern[str], prefix: re.Pattern[str], code: str,
                what: str) -> Callable[[str | None], str | None]:
    def check(value: str | None) -> str | None:
        value = prefix.sub("", t.normalize_text(value or ""))
        if not value:
            return None
        if len(value) > t.MAX_SHORT:
            raise _too_long(t.MAX_SHORT)
        if not pattern.fullmatch(value):
            raise PydanticCustomError(code, "not {what}", {"what": what})
        return value

    return check


def _split_keywords(value: Any) -> Any:
    return _KEYWORD_SPLIT.split(value) if isinstance(value, str) else value


def _check_keywords(values: list[str]) -> list[str]:
    if not values:
        return values
    seen: set[str] = set()
    out: list[str] = []
    for raw in values:
        kw = t.normalize_text(raw)
        if len(kw) > t.MAX_KEYWORD:
            raise _too_long(t.MAX_KEYWORD, "characters in a keyword")
        if kw and kw.casefold() not in seen:
            seen.add(kw.casefold())
            out.append(kw)
    if len(out) > t.MAX_KEYWORDS:
        raise _too_long(t.MAX_KEYWORDS, "keywords")
    return out


def _split_author_line(value: Any) -> Any:
    """Authors may come as one line "A, B, C 等" (the et-al tail is handled with the whole record)."""
    return split_author_names(value) if isinstance(value, str) else value


def _check_authors(values: list[str]) -> list[str]:
    # One normalisation for the usual list of clean names: joined with spaces they stay unchanged
    # only if each is clean and non-empty (a stray space or an empty name would double a space).
    joined = " ".join(values)
    if joined and t.normalize_text(joined) == joined:
        names = values
    else:
        names = [n for n in (t.normalize_text(v) for v in values) if n]
    if max(map(len, names), default=0) > t.MAX_AUTHOR:
        raise _too_long(t.MAX_AUTHOR, "characters in an author name")
    if len(names) > t.MAX_AUTHORS:
        raise _too_long(t.MAX_AUTHORS, "authors")
    return names


def _check_id(value: str) -> str:
    value = t.normalize_text(value)
    if len(value.encode()) > t.MAX_ID_BYTES:
        raise _too_long(t.MAX_ID_BYTES, "bytes")
    return value


Title = Annotated[str, BeforeValidator(_none_to_empty), AfterValidator(_text(t.MAX_TITLE))]
Abstract = Annotated[str, BeforeValidator(_none_to_empty), AfterValidator(_text(t.MAX_ABSTRACT))]
Short = Annotated[str, BeforeValidator(_none_to_empty), AfterValidator(_text(t.MAX_SHORT))]
OptionalShort = Annotated[str | None, AfterValidator(_optional_text(t.MAX_SHORT))]
Url = Annotated[str | None, AfterValidator(_check_url)]
Year = Annotated[int | None, BeforeValidator(_empty_to_none), AfterValidator(_check_year)]
Keywords = Annotated[list[str], BeforeValidator(_split_keywords), AfterValidator(_check_keywords)]
Authors = Annotated[list[str], BeforeValidator(_split_author_line), AfterValidator(_check_authors)]
Id = Annotated[str, BeforeValidator(_none_to_empty), AfterValidator(_check_id)]
Published = Annotated[str | None, BeforeValidator(_check_published)]
Doi = Annotated[str | None, AfterValidator(_identifier(DOI, _DOI_PREFIX, "bad_doi", "a DOI (10.NNNN/suffix)"))]
ArxivId = Annotated[str | None, AfterValidator(_identifier(ARXIV_ID, _ARXIV_PREFIX, "bad_arxiv_id",
                                                           "an arXiv identifier (2101.00001, math/0501001)"))]


class Paper(BaseModel):
    """One validated paper; see the module docstring for the field rules."""

    model_config = ConfigDict(extra="ignore", validate_assignment=False)

    id: Id = ""
    title: Title = ""
    title_zh: Title = ""
    authors: Authors = []
    authors_et_al: bool = False
    topic_area: OptionalShort = None
    topic_subarea: OptionalShort = None
    abstract: Abstract = ""
    abstract_zh: Abstract = ""
    year: Year = None
    published: Published = None
    venue: Short = ""
    url: Url = None
    pdf_url: Url = None
    keywords: Keywords = []
    subjects: Keywords = []
    record_type: Annotated[RecordType | None, BeforeValidator(_empty_to_none)] = None
    doi: Doi = None
    arxiv_id: ArxivId = None
    source: Short = Field(default="", validate_default=True)

    @field_validator("source")
    @classmethod
    def _reader_source(cls, value: str, info: ValidationInfo) -> str:
        """A record without a source gets the name of the file it was read from (the context)."""
        if value or not info.context:
            return value
        return t.normalize_text(info.context["source"])

    @model_validator(mode="after")
    def _whole_record(self) -> Paper:
        # A trailing 等 / et al. on the author list becomes the authors_et_al flag.
        if self.authors:
            last, et_al = split_et_al(self.authors[-1])
            if et_al:
                self.authors = [*self.authors[:-1], last] if last else self.authors[:-1]
                self.authors_et_al = True
        if not (self.title or self.title_zh or self.abstract or self.abstract_zh):
            raise PydanticCustomError("missing_text", "needs a title or an abstract (English or Chinese)")
        if self.topic_subarea and not self.topic_area:
            raise PydanticCustomError("subarea_without_area", "topic_subarea given without topic_area")
        if not self.id:
            self.id = content_id(self)
        return self


def content_id(paper: Paper) -> str:
    """Deterministic id from the normalised, casefolded content (same paper → same id)."""
    key = t.fold_key(*(getattr(paper, f) for f in TEXT_FIELDS), "\x1e".join(paper.authors))
    return "p" + hashlib.sha256(key.encode()).hexdigest()[:16]


# Record-level errors have no location; say which field a reader should blame.
_FIELD_FOR_ERROR = {"missing_text": "abstract", "subarea_without_area": "topic_subarea"}


def paper_from_json(data: bytes | str, *, source: str) -> Paper:
    """One JSON object validated by pydantic's JSON parser (no json.loads + dict step); raises
    ValidationError for anything it refuses, including broken JSON."""
    return Paper.model_validate_json(data, context={"source": source})


def paper_or_reject(data: Any, *, source: str, line: int | None, raw: str = "") -> Paper | Reject:
    """Validate one input record; a failure becomes a Reject naming the first bad field."""
    if not isinstance(data, dict):
        return Reject.make(source, line, "", "record is not a JSON object", raw=raw)
    try:
        return Paper.model_validate(data, context={"source": source})
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        loc = first["loc"]
        field = str(loc[0]) if loc else _FIELD_FOR_ERROR.get(first["type"], "")
        detail = f"+{len(errors) - 1} more errors" if len(errors) > 1 else ""
        return Reject.make(source, line, field, first["msg"], detail=detail, raw=raw)
