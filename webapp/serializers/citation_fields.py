"""What the citation formats (bibtex.py, ris.py, and the page metadata) share: the citation key, name order,
the title to cite, readable text.

Keys and names are transliterated to ASCII with anyascii (Søren → Soren, 张 → Zhang), so a key works in
every BibTeX tool; the values themselves stay UTF-8 (biber and modern BibTeX read it), Chinese included.
A paper without a title has none to cite: the heading the page shows (the abstract's start) is never
offered as one. Formats that carry plain text get TeX formulas as Unicode (`readable`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import count, product
from string import ascii_lowercase

from anyascii import anyascii

from papersearch import markup
from papersearch.text import has_cjk, normalize_text
from webapp.domain import Hit

_KEY_STOPWORDS = frozenset((
    "a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "via", "from", "towards", "toward", "is", "are",
    "do", "does", "how", "what", "when", "why",
))
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_KEY_SAFE = re.compile(r"[^A-Za-z0-9_:-]+")
CJK_KEY_CHARS = 2  # a Chinese title word in the key: the pinyin of its first two characters
FORMATS = ("bibtex", "ris")  # the modules beside this one; cite.py renders them


def cited_title(paper: Hit) -> str:
    """The title as written (TeX included); "" for an untitled record."""
    return normalize_text(paper.title or paper.title_zh)


def cited_abstract(paper: Hit) -> str:
    return normalize_text(paper.abstract or paper.abstract_zh)


def readable(text: str) -> str:
    """Text for formats without math or markup: formulas as Unicode ("$\\alpha$TC-VAE" → "αTC-VAE"), markup as
    its words (papersearch/markup.py)."""
    return markup.to_text(normalize_text(text))


def subject_terms(paper: Hit) -> list[str]:
    """Keywords and subjects (disciplines) together, for formats with one list of subject terms."""
    return list(dict.fromkeys(k for k in (*paper.keywords, *paper.subjects) if k.strip()))


def _ascii_words(text: str) -> list[str]:
    return _ASCII_WORD.findall(anyascii(text))


def surname(name: str) -> str:
    """The family name: a Chinese name's first character (or its first part when spaced), else the last word."""
    name = normalize_text(name)
    if has_cjk(name):
        return name.split()[0] if " " in name else name[:1]
    return name.split()[-1] if name else ""


def citation_key(paper: Hit) -> str:
    """surname + year + first significant title word, in ASCII: "hauberg2024riemannian"; the paper id
    (made safe) when the paper has neither an author nor a title word to build one from."""
    author = "".join(_ascii_words(surname(paper.authors[0]))) if paper.authors else ""
    title = cited_title(paper)
    if has_cjk(title[:CJK_KEY_CHARS]):
        word = "".join(_ascii_words(title[:CJK_KEY_CHARS]))
    else:
        # a title word as written, without its punctuation: "Q&A" → "qa", "Self-Supervised" → "selfsupervised"
        words = ("".join(_ascii_words(w)) for w in title.split())
        word = next((w for w in words if w and w.casefold() not in _KEY_STOPWORDS), "")
    if not (author or word):
        return _KEY_SAFE.sub("-", paper.id).strip("-") or "paper"
    return f"{author}{paper.year or ''}{word}".casefold()


def _suffixes() -> Iterator[str]:
    for length in count(1):
        for letters in product(ascii_lowercase, repeat=length):
            yield "".join(letters)


def distinct_key(paper: Hit, taken: set[str]) -> str:
    """The paper's citation key within a list: a, b, … appended when an earlier paper of the list has it
    (as styles do for one author's papers of one year), so every entry of an export can be cited. Adds it
    to `taken`."""
    key = citation_key(paper)
    if key in taken:
        key = next(f"{key}{s}" for s in _suffixes() if f"{key}{s}" not in taken)
    taken.add(key)
    return key


def family_first(name: str) -> str:
    """"Søren Hauberg" → "Hauberg, Søren" (what RIS expects); Chinese and one-word names as they are."""
    name = normalize_text(name)
    if has_cjk(name) or " " not in name or "," in name:
        return name
    given, family = name.rsplit(" ", 1)
    return f"{family}, {given}"
