"""Listing pages: plain text copied from the paper-listing site, one screen per file.

A page is a sequence of lines (blank lines between them or not, which does not matter):

    论文检索                                            page chrome, dropped
    输入标题、作者或关键词，从 13,033 篇学术成果中精准定位      page chrome (any number), dropped
    Deep Learning · Large Language Models               topic: "Area · Subarea" or just "Area"
    Haoyun Jiang, Haolin li, …, Dacheng Li 等           authors (optional; 等 = et al.)
    Large language models (LLMs) have …                 the abstract: one line, one paper

Topic and author lines belong to the next abstract. A topic line is recognised by a known area name
(and the " · " separator), an author line by looking like a list of short names. An abstract without a
topic line before it (the first line of a page that continues the previous screen, or two abstracts
in a row) is a paper with no topic. A topic or author line with no abstract after it (cut off at the
end of the page) becomes a Reject. Papers get no title here; the document derives a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import IO

from indexer.loading.authors import parse_author_line
from indexer.loading.models import paper_or_reject
from indexer.loading.readers import Located, Source, iter_lines
from indexer.loading.rejects import Reject
from papersearch.taxonomy import Taxonomy, Topic
from papersearch.text import has_cjk, normalize_text

_CHROME = (
    re.compile(r"论文检索"),
    re.compile(r"输入标题.{0,20}从\s*[\d,，.]+\s*篇学术成果中精准定位"),
)
MAX_TOPIC_LINE = 300
MAX_NAME_WORDS = 6
MAX_NAME_CHARS = 80
MAX_CJK_NAME_CHARS = 12
# Characters that do not occur in person names but do in prose (digits, brackets, maths, sentence marks).
_NOT_IN_NAMES = re.compile(r"[0-9()\[\]{}:=$%@#/\\<>|!?。：；！？\"“”]")


def is_chrome(line: str) -> bool:
    return any(p.fullmatch(line) for p in _CHROME)


def looks_like_authors(line: str) -> bool:
    """A comma-separated list of short names (optionally ending in 等 / et al.), not a sentence."""
    names, _ = parse_author_line(line)
    if not names:
        return False
    last_word = line.rstrip().rsplit(" ", 1)[-1]
    if line.endswith(".") and len(last_word) > 3:  # "… results." ends a sentence; "Jr." does not
        return False
    for name in names:
        if _NOT_IN_NAMES.search(name) or len(name) > MAX_NAME_CHARS:
            return False
        if len(name.split()) > MAX_NAME_WORDS:
            return False
        if has_cjk(name) and len(name) > MAX_CJK_NAME_CHARS:
            return False
    return True


def looks_like_listing(text: str, taxonomy: Taxonomy, max_lines: int = 200) -> bool:
    """For sniffing files without a .txt extension: page chrome or a topic line near the top."""
    for line in text.splitlines()[:max_lines]:
        line = normalize_text(line)
        if is_chrome(line) or (len(line) <= MAX_TOPIC_LINE and taxonomy.parse_topic_line(line)):
            return True
    return False


def read_listing(f: IO[bytes], source: Source, taxonomy: Taxonomy) -> Iterator[Located]:
    return parse_listing(iter_lines(f, source.name, source.path), source.name, taxonomy)


def parse_listing(
    lines: Iterable[tuple[int, str | Reject]], source: str, taxonomy: Taxonomy
) -> Iterator[Located]:
    """(line, Paper or Reject) from numbered lines (the state machine; separate from I/O for testing)."""
    topic: Topic | None = None
    authors: tuple[list[str], bool] | None = None
    start: int | None = None  # first line of the current paper's block
    pending_raw = ""

    def dangling() -> Iterator[Located]:
        if authors is not None:
            yield start, Reject.make(source, start, "abstract", "author line without an abstract", raw=pending_raw)
        elif topic is not None:
            yield start, Reject.make(source, start, "abstract", "topic line without an abstract", raw=pending_raw)

    for number, text in lines:
        if isinstance(text, Reject):
            yield number, text
            continue
        line = normalize_text(text)
        if not line or is_chrome(line):
            continue
        parsed = taxonomy.parse_topic_line(line) if len(line) <= MAX_TOPIC_LINE else None
        if parsed is not None:
            yield from dangling()
            topic, authors, start, pending_raw = parsed, None, number, text
            continue
        if authors is None and looks_like_authors(line):
            authors = parse_author_line(line)
            start = start if topic is not None else number
            pending_raw = f"{pending_raw}\n{text}" if pending_raw else text
            continue
        names, et_al = authors or ([], False)
        record = {
            "abstract": line,
            "authors": names,
            "authors_et_al": et_al,
            "topic_area": topic.area if topic else None,
            "topic_subarea": topic.subarea if topic else None,
        }
        raw = f"{pending_raw}\n{text}" if pending_raw else text
        yield start or number, paper_or_reject(record, source=source, line=start or number, raw=raw)
        topic, authors, start, pending_raw = None, None, None, ""
    yield from dangling()
