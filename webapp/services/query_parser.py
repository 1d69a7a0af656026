"""Parse the user's search box text into a small structure; no Elasticsearch syntax ever leaks through.

Supported: plain words, "quoted phrases" (also “Chinese quotes”), -word and -"phrase" to exclude,
and field clauses author:…, title:…, abstract:…, topic:… (each with a word or a quoted phrase; also
作者/标题/摘要/主题, and a full-width colon). Anything else, including an unbalanced quote or an
unknown "field:", is plain text. Words are split at script boundaries ("Transformer模型" is two
terms), because English and Chinese text are matched by different fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papersearch.index_definition import search_config
from papersearch.text import CJK_CHARS, to_simplified
from webapp.domain import BadQuery

# Each clause expands to several field queries; a pasted abstract is not a query (config query_cost.max_clauses).
MAX_CLAUSES = search_config().query_cost.max_clauses

FIELD_NAMES = {
    "author": "author", "authors": "author", "作者": "author",
    "title": "title", "标题": "title", "题目": "title",
    "abstract": "abstract", "摘要": "abstract",
    "topic": "topic", "主题": "topic", "领域": "topic",
}
_QUOTES = {'"': '"', "“": "”", "„": "“", "＂": "＂"}
_QUOTE_CHARS = "".join(set(_QUOTES) | set(_QUOTES.values()))
_SEGMENTS = re.compile(f"[{CJK_CHARS}]+|[^\\s{CJK_CHARS}]+")
_WORDY = re.compile(r"\w")  # a token without a letter or digit would match nothing (or everything)
_FIELD_PREFIX = re.compile(r"([^\W\d][\w]*)[:：]", re.UNICODE)
# A Latin-script word (apostrophes inside allowed): what typo tolerance and spelling checks work on.
LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@dataclass(frozen=True)
class Clause:
    text: str
    phrase: bool = False
    field: str | None = None  # a key of FIELD_NAMES' values: author, title, abstract, topic
    excluded: bool = False
    # author: only, set by webapp/services/author_names.py: the indexed keys of the person named (None: not
    # looked up; empty: no author of that name), and whether similar names are searched instead (when empty).
    keys: tuple[str, ...] | None = None
    fuzzy: bool = False

    def to_string(self) -> str:
        body = f'"{self.text}"' if self.phrase else self.text
        if self.field:
            body = f"{self.field}:{body}"
        return f"-{body}" if self.excluded else body


@dataclass(frozen=True)
class ParsedQuery:
    clauses: tuple[Clause, ...] = ()

    @property
    def terms(self) -> list[str]:
        return [c.text for c in self.clauses if not (c.phrase or c.field or c.excluded)]

    @property
    def phrases(self) -> list[str]:
        return [c.text for c in self.clauses if c.phrase and not (c.field or c.excluded)]

    @property
    def field_clauses(self) -> list[Clause]:
        return [c for c in self.clauses if c.field]

    def to_string(self) -> str:
        return " ".join(c.to_string() for c in self.clauses)

    def replace_terms(self, corrections: dict[str, str]) -> ParsedQuery:
        """The same query with some plain terms replaced (for "did you mean")."""
        return ParsedQuery(tuple(
            Clause(corrections.get(c.text.casefold(), c.text), c.phrase, c.field, c.excluded)
            if not (c.phrase or c.field or c.excluded) else c
            for c in self.clauses
        ))


def words_of(text: str) -> list[str]:
    """Split free text into terms: whitespace, then CJK / non-CJK runs; drop punctuation-only bits."""
    segments = (seg.strip(_QUOTE_CHARS) for seg in _SEGMENTS.findall(text))
    return [seg for seg in segments if _WORDY.search(seg)]


def parse_query(text: str) -> ParsedQuery:
    """The clauses of a query whose whitespace the controller has already collapsed (controllers/params.py);
    Chinese in simplified characters, as the glossary's names and most papers have it."""
    text = to_simplified(text)
    clauses: list[Clause] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == " ":
            i += 1
            continue
        start = i
        # "-word" / "-\"phrase\"" excludes; "-3型垄向" or "-0.5" (pasted text, a negative number) is text.
        excluded = text[i] == "-" and i + 1 < n and (text[i + 1].isalpha() or text[i + 1] in _QUOTES)
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
    if len(clauses) > MAX_CLAUSES:
        raise BadQuery(f"The query has too many words (at most {MAX_CLAUSES}).")
    return ParsedQuery(tuple(clauses))
