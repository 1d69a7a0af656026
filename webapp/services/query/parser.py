"""Parse the user's search box text into a small structure; no Elasticsearch syntax ever leaks through.

Supported: plain words, "quoted phrases" (also “Chinese quotes”), -word and -"phrase" to exclude (also with a
full-width minus, －word),
word OR word (either of two or more plain words: our own bool should, never Elasticsearch's syntax),
and field clauses author:…, title:…, abstract:…, topic:… (each with a word or a quoted phrase; also
作者/标题/摘要/主题, and a full-width colon); venue:… and year:… are the page's facet filters
(`take_filters`, called by the controller before parsing; a year as a span, year:2019-2021, or a bound,
year:>2022, year:<=2020: `year_span`). Anything else, including an unbalanced quote or an
unknown "field:", is plain text. A long query (a pasted sentence or abstract) is searched cut to its first
max_searched_length characters and query_cost.max_clauses clauses (`ParsedQuery.cut` says so). Words are split
at script boundaries ("Transformer模型" is two terms), because English and Chinese text are matched by different fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from papersearch.text import CJK_CHARS, to_simplified
from webapp.services.search_settings import search_config

# Each clause expands to several field queries: a query is searched up to its first query_cost.max_clauses clauses
# and max_searched_length characters (the search settings, read when a query is parsed: nothing is read from
# config/index.json at import); the rest is not searched.
OR = "OR"  # between plain words: either of them (in capitals, as search engines have it; "or" is a stop word)

FIELD_NAMES = {
    "author": "author", "authors": "author", "作者": "author",
    "title": "title", "标题": "title", "题目": "title",
    "abstract": "abstract", "摘要": "abstract",
    "topic": "topic", "主题": "topic", "领域": "topic",
}
# Facet clauses typed in the box (venue:ICLR, year:2021, year:2019-2021) are named by their facet's URL parameter
# (config/index.json) or by these Chinese names of it; the controller makes them the page's filters (take_filters).
FACET_PREFIXES_ZH = {"会议": "venue", "期刊": "venue", "年份": "year", "年": "year"}
_QUOTES = {'"': '"', "“": "”", "„": "“", "＂": "＂"}
_QUOTE_CHARS = "".join(set(_QUOTES) | set(_QUOTES.values()))
_SEGMENTS = re.compile(f"[{CJK_CHARS}]+|[^\\s{CJK_CHARS}]+")
_WORDY = re.compile(r"\w")  # a token without a letter or digit would match nothing (or everything)
_FIELD_PREFIX = re.compile(r"([^\W\d][\w]*)[:：]", re.UNICODE)
# A space-separated token, or a facet clause: prefix:value or prefix:"a quoted value".
_FACET_CLAUSE = re.compile(
    r'(?:(?P<prefix>[^\W\d]\w*)[:：](?:["“](?P<quoted>[^"”]*)["”]|(?P<bare>[^\s"“]+)))(?=\s|$)|\S+')
# A span of years typed as a filter: 2019-2021 (also – or ..), or one bound: >2022, >=2022, <2020, <=2020.
_SPAN = re.compile(r"(\d{1,4})\s*(?:-|–|\.\.)\s*(\d{1,4})", re.ASCII)  # digits as the URL's: 0-9
_BOUND = re.compile(r"([<>])(=?)\s*(\d{1,4})", re.ASCII)
# Full-width forms of the signs a query uses (－word, year:＞2022); full-width quotes and colon are read as such.
_FULL_WIDTH = str.maketrans({"－": "-", "＞": ">", "＜": "<", "＝": "=", "≥": ">=", "≤": "<="})
_MINUS = "-－"
# A Latin-script word (apostrophes inside allowed): what typo tolerance and spelling checks work on.
LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@dataclass(frozen=True)
class Clause:
    text: str
    phrase: bool = False
    field: str | None = None  # a key of FIELD_NAMES' values: author, title, abstract, topic
    excluded: bool = False
    # author: only, set by webapp/services/query/author_names.py: the indexed keys of the person named (None: not
    # looked up; empty: no author of that name), and whether similar names are searched instead (when empty).
    keys: tuple[str, ...] | None = None
    fuzzy: bool = False
    either: int = 0  # plain words with the same number (from 1) are alternatives: "diffusion OR GAN"

    def to_string(self) -> str:
        body = f'"{self.text}"' if self.phrase else self.text
        if self.field:
            body = f"{self.field}:{body}"
        return f"-{body}" if self.excluded else body


@dataclass(frozen=True)
class ParsedQuery:
    clauses: tuple[Clause, ...] = ()
    cut: bool = False  # the query was longer than what is searched: these clauses are its beginning

    @property
    def terms(self) -> list[str]:
        return [c.text for c in self.clauses if not (c.phrase or c.field or c.excluded)]

    @property
    def term_groups(self) -> list[int]:
        """Each term's OR group (0: none), in the order of `terms`."""
        return [c.either for c in self.clauses if not (c.phrase or c.field or c.excluded)]

    @property
    def phrases(self) -> list[str]:
        return [c.text for c in self.clauses if c.phrase and not (c.field or c.excluded)]

    @property
    def field_clauses(self) -> list[Clause]:
        return [c for c in self.clauses if c.field]

    def to_string(self) -> str:
        out: list[str] = []
        for before, c in zip((None, *self.clauses), self.clauses, strict=False):
            if before is not None and c.either and before.either == c.either:
                out.append(OR)
            out.append(c.to_string())
        return " ".join(out)

    def replace_terms(self, corrections: dict[str, str]) -> ParsedQuery:
        """The same query with some plain terms replaced (for "did you mean"; keyed case-folded), each in the
        casing it was typed in (Bengoi → Bengio, GAN stays GAN)."""
        return ParsedQuery(tuple(
            replace(c, text=cased(corrections[c.text.casefold()], c.text))
            if not (c.phrase or c.field or c.excluded) and c.text.casefold() in corrections else c
            for c in self.clauses
        ), self.cut)


def cased(word: str, typed: str) -> str:
    """A correction in the casing of the word typed: all capitals, a capital first letter, or as it is."""
    if typed.isupper() and len(typed) > 1:
        return word.upper()
    if typed[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def cut_text(text: str) -> tuple[str, bool]:
    """The part of a query that is searched: its first max_searched_length characters, cut at a space when one is near
    the end (a word is not cut in two); and whether anything was left out."""
    searched = search_config().max_searched_length
    if len(text) <= searched:
        return text, False
    cut = text[:searched + 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > searched // 2 else cut[:searched]).rstrip(), True


def take_filters(text: str, prefixes: dict[str, str]) -> tuple[str, list[tuple[str, str]]]:
    """The query without its facet clauses (venue:ICLR, year:2021, year:2019-2021, venue:"…"), and those as
    (parameter, value) pairs: `prefixes` maps a prefix (case-folded) to its facet's URL parameter. The controller
    makes them the page's filters, which the page shows as such; a prefix with nothing after it is text."""
    kept: list[str] = []
    taken: list[tuple[str, str]] = []
    for m in _FACET_CLAUSE.finditer(text):
        prefix, quoted, bare = m.group("prefix"), m.group("quoted"), m.group("bare")
        value = " ".join((quoted if quoted is not None else bare or "").split())
        if prefix and prefix.casefold() in prefixes and _WORDY.search(value):
            taken.append((prefixes[prefix.casefold()], value))
        else:
            kept.append(m.group(0))
    return " ".join(" ".join(kept).split()), taken


def year_span(value: str) -> tuple[int | None, int | None] | None:
    """The years a typed facet value means as a range (first, last; None: open on that side), or None when it is
    no span: 2019-2021 → (2019, 2021); >2022 → (2023, None); >=2022 → (2022, None); <2020 → (None, 2019);
    <=2020 → (None, 2020)."""
    value = value.translate(_FULL_WIDTH).strip()
    if span := _SPAN.fullmatch(value):
        return int(span.group(1)), int(span.group(2))
    if not (bound := _BOUND.fullmatch(value)):
        return None
    sign, equal, year = bound.group(1), bool(bound.group(2)), int(bound.group(3))
    if sign == ">":
        return (year if equal else year + 1), None
    return None, (year if equal else year - 1)


def words_of(text: str) -> list[str]:
    """Split free text into terms: whitespace, then CJK / non-CJK runs; drop punctuation-only bits."""
    segments = (seg.strip(_QUOTE_CHARS) for seg in _SEGMENTS.findall(text))
    return [seg for seg in segments if _WORDY.search(seg)]


def parse_query(text: str) -> ParsedQuery:
    """The clauses of a query whose whitespace the controller has already collapsed (controllers/params.py);
    Chinese in simplified characters, as the glossary's names and most papers have it; a long query cut to what
    is searched."""
    text, cut = cut_text(to_simplified(text))
    clauses: list[Clause] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == " ":
            i += 1
            continue
        start = i
        # "-word" / "-\"phrase\"" excludes; "-3型垄向" or "-0.5" (pasted text, a negative number) is text.
        excluded = text[i] in _MINUS and i + 1 < n and (text[i + 1].isalpha() or text[i + 1] in _QUOTES)
        if excluded:
            i += 1
        field = None
        prefix = _FIELD_PREFIX.match(text, i)
        if prefix and prefix.group(1).casefold() in FIELD_NAMES and prefix.end() < n and text[prefix.end()] != " ":
            field = FIELD_NAMES[prefix.group(1).casefold()]
            i = prefix.end()
        if text[i] in _QUOTES:
            close = text.find(_QUOTES[text[i]], i + 1)
            if close != -1:
                inner = " ".join(text[i + 1:close].split())
                if _WORDY.search(inner):
                    clauses.append(Clause(inner, phrase=True, field=field, excluded=excluded))
                i = close + 1
                continue
            # Unbalanced quote: the rest of the word is plain text (the quote itself is dropped).
            i += 1
        end = text.find(" ", i)
        end = n if end == -1 else end
        word = text[i:end]
        if field:
            if _WORDY.search(word):
                clauses.append(Clause(word, field=field, excluded=excluded))
        elif excluded:
            clauses.extend(Clause(w, excluded=True) for w in words_of(word))
        else:
            # Not a known field clause: the whole token (prefix included) is ordinary text.
            clauses.extend(Clause(w) for w in words_of(text[start:end]))
        i = end
    clauses = _alternatives(clauses)
    most = search_config().query_cost.max_clauses
    if len(clauses) > most:
        clauses, cut = clauses[:most], True
    return ParsedQuery(tuple(clauses), cut)


def _plain(c: Clause) -> bool:
    return not (c.phrase or c.field or c.excluded) and c.text != OR


def _alternatives(clauses: list[Clause]) -> list[Clause]:
    """Plain words joined by OR as one group of alternatives (the ORs dropped); an OR beside anything else (a
    phrase, a field clause, the start or end) is the stop word it would be in a sentence."""
    out: list[Clause] = []
    group = 0
    for i, c in enumerate(clauses):
        joins = (c.text == OR and not (c.phrase or c.field or c.excluded) and 0 < i < len(clauses) - 1
                 and out and _plain(out[-1]) and _plain(clauses[i + 1]))
        if not joins:
            out.append(c)
            continue
        if not out[-1].either:
            group += 1
            out[-1] = replace(out[-1], either=group)
        clauses[i + 1] = replace(clauses[i + 1], either=out[-1].either)
    return out
