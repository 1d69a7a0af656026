"""Text normalisation and script detection shared by indexer and webapp.

Everything that reaches Elasticsearch goes through `normalize_text`, so the same paper typed with
different whitespace, line breaks or Unicode composition produces identical documents and ids.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import opencc

# Limits on one value; longer values are rejected by the model, never silently cut.
MAX_TITLE = 1000
MAX_ABSTRACT = 20000
MAX_AUTHOR = 300
MAX_AUTHORS = 500
MAX_KEYWORD = 200
MAX_KEYWORDS = 100
MAX_SHORT = 1000  # venue, topic names, source file name
MAX_URL = 2000
MAX_ID_BYTES = 512  # Elasticsearch's limit for _id

# The one definition of "CJK" (Han incl. extension A and compatibility ideographs, kana, hangul):
# such text is matched by the *_zh fields, everything else by the Latin-script fields.
CJK_CHARS = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")

# English stop words: what the English analyzers drop (Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, which
# the plugin uses; Elasticsearch's "_english_", which the core profile's ps_en_stop uses: the same 33 words).
ENGLISH_STOPWORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
])

HEADING_LIMIT = 120
ELLIPSIS = "…"

# C0 controls, DEL and C1 controls become spaces (a tab or newline inside a title is just a gap).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Invisible characters that only get in the way of matching (BOM, zero-width space/joiners).
_INVISIBLE = re.compile(r"[\ufeff\u200b\u200c\u200d\u2060]")

# Sentence end: western punctuation followed by a space, or CJK full stops (no space needed).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9\u4e00-\u9fff])|(?<=[。！？])")


@functools.cache
def _traditional_to_simplified() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional Chinese characters as simplified ones (OpenCC's t2s), the rest unchanged: 深度學習 and 深度学习
    are one query (DECISIONS.md D-141)."""
    return _traditional_to_simplified().convert(text) if CJK_RUN.search(text) else text


def normalize_text(value: str | None) -> str:
    """NFC, control characters to spaces, invisible characters removed, whitespace collapsed, trimmed."""
    if not value:
        return ""
    # Fast path for the common already-clean value (multi-GB inputs): a printable string has no
    # control or invisible characters (categories Cc/Cf) and no whitespace but the ASCII space.
    if value.isprintable() and (value.isascii() or unicodedata.is_normalized("NFC", value)):
        if "  " in value or value[0] == " " or value[-1] == " ":
            return " ".join(value.split())
        return value
    text = value if unicodedata.is_normalized("NFC", value) else unicodedata.normalize("NFC", value)
    if _INVISIBLE.search(text):
        text = _INVISIBLE.sub("", text)
    if _CONTROL.search(text):
        text = _CONTROL.sub(" ", text)
    return " ".join(text.split())


def fold_key(*parts: str) -> str:
    """A case- and whitespace-insensitive key, e.g. for deduplication and content ids."""
    return "\x1f".join(normalize_text(p).casefold() for p in parts)


def first_sentence(text: str) -> str:
    text = normalize_text(text)
    parts = _SENTENCE_END.split(text, maxsplit=1)
    return parts[0].strip() if parts else ""


def shorten(text: str, limit: int = HEADING_LIMIT) -> str:
    """Cut at a word boundary so the result, ellipsis included, is at most `limit` characters."""
    text = normalize_text(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS) + 1]
    space = cut.rfind(" ")
    # Only back off to a space if that keeps most of the text (CJK text has no spaces to use).
    cut = cut[:space] if space > limit // 2 else cut[: limit - len(ELLIPSIS)]
    return cut.rstrip(" ,;:，；：、-–—") + ELLIPSIS


def derive_heading(abstract: str, limit: int = HEADING_LIMIT) -> str:
    """A heading for a paper without a title: the abstract's first sentence, shortened."""
    return shorten(first_sentence(abstract), limit)


def has_cjk(text: str) -> bool:
    """Whether the text has any Chinese, Japanese or Korean character (they are matched by other fields)."""
    return bool(CJK_RUN.search(text))


def language_of(text: str) -> str:
    """The language a title, snippet or name is written in, for its `lang` attribute: "zh" when it has a CJK
    character (the site's papers are in English and Chinese), else "en"."""
    return "zh" if has_cjk(text) else "en"


# --- math letters in a search word (issue 44.4) ------------------------------------------------------------------
# Papers write a Greek letter in TeX (`$\alpha$-divergence`, indexed as the words alpha, divergence; `$\ell_1$` as
# ell_1), in Unicode (α-divergence, ℓ1) or in words (alpha-divergence, l1): a search word's other spellings, which
# the webapp searches beside it (query time: the index holds each paper's own spelling already).
def _greek_names() -> dict[str, str]:
    names = {}
    for code in range(0x391, 0x3CA):
        char = chr(code)
        name = unicodedata.name(char, "")
        if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")) and " WITH " not in name:
            names[char] = name.rsplit(" ", 1)[1].lower()
    names.pop("ς")  # a final sigma is no letter of a formula
    return names


_LETTERS = _greek_names()
_BY_NAME = {name: char for char, name in _LETTERS.items() if char.islower()}  # alpha → α
# TeX's variant letters as pylatexenc writes them (\epsilon → ϵ, \phi → ϕ …) and the norm's ℓ.
GREEK_NAMES: dict[str, str] = _LETTERS | {"ϵ": "epsilon", "ϑ": "theta", "ϕ": "phi", "ϖ": "pi", "ϱ": "rho", "ℓ": "ell"}
_GREEK_RUN = re.compile("[" + "".join(GREEK_NAMES) + "]")
_NAMED_PART = re.compile(r"[A-Za-z]+")
_NORM = re.compile(r"^([lL]|ℓ|ell)_?(\d+|∞|inf)$")  # ℓ1, l_2, L1, ell_1: a norm; TeX's $\ell_1$ is ell_1


def math_spellings(word: str) -> tuple[str, ...]:
    """The other spellings of a search word with a Greek letter or a norm in it: "α-divergence" →
    ("alpha-divergence",), "alpha-divergence" → ("α-divergence",), "ℓ1" / "l1" / "L1" → ("ell_1", "ℓ1"); () for
    any other word (most)."""
    norm = _NORM.match(word)
    if norm:
        index = norm.group(2)
        return tuple(s for s in (f"ell_{index}", f"ℓ{index}", f"l{index}") if s != word.lower())
    if any(c in GREEK_NAMES for c in word):
        # `$\alpha$TC-VAE` is indexed as the words alpha, tc, vae: the name a word of its own
        return ("-".join(filter(None, _GREEK_RUN.sub(lambda m: f"-{GREEK_NAMES[m.group()]}-", word).split("-"))),)
    if not word.isascii():
        return ()
    greek = _NAMED_PART.sub(lambda m: _BY_NAME.get(m.group().lower(), m.group()), word)
    return (greek,) if greek != word else ()


def plain_spelling(word: str) -> str:
    """The word in Latin letters, as the glossary names concepts ("ℓ1" → "l1", "α-divergence" →
    "alpha-divergence"); the word itself when it has no math letter."""
    return next((s for s in math_spellings(word) if s.isascii() and "_" not in s), word) if not word.isascii() else word
