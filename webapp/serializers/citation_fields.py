"""What the citation formats (bibtex.py, ris.py, csl_json.py, and the page metadata) share: the citation key,
name order, the title to cite, readable text, the addresses of DOIs and arXiv ids.

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
# TeX commands that only style their argument (fonts, colours, sizes): not words of a citation key.
_TEX_STYLE = re.compile(
    r"\\(?:(?:text)?color\{[^{}]*\}|(?:math|text)[a-z]*|boldsymbol|bm|operatorname\*?|emph|left|right"
    r"|[a-z]*style|[Bb]ig+[lr]?)(?![A-Za-z])")
CJK_KEY_CHARS = 2  # a Chinese title word in the key: the pinyin of its first two characters
# The words Chinese titles open with that say nothing of the paper ("基于…的" based on, "一种" a kind of, "关于"
# about, "浅谈" on …), as _KEY_STOPWORDS for English: the key takes the word after them ("基于深度学习的…" → shendu).
_ZH_KEY_STOPWORDS = re.compile(
    r"^(?:基于|一种|一类|一个|关于|浅谈|浅析|浅议|试论|试析|面向|针对|利用|采用|通过|用于|作为|[\s\W_])+")
FORMATS = ("bibtex", "ris", "csl-json")  # the modules beside this one; citation_download.py renders them


def cited_title(paper: Hit) -> str:
    """The title as written (TeX included); "" for an untitled record."""
    return normalize_text(paper.title or paper.title_zh)


def cited_abstract(paper: Hit) -> str:
    return normalize_text(paper.abstract or paper.abstract_zh)


def doi_url(doi: str) -> str:
    """A DOI as the address that resolves it."""
    return f"https://doi.org/{doi}"


def arxiv_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"


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


def title_word(title: str) -> str:
    """The key's title word in ASCII: a Chinese title's first significant word (two characters, or the Latin
    word it starts with: "基于BP神经网络的…" → BP), else the first word not a stopword, as written without its
    punctuation ("Q&A" → "QA", "Self-Supervised" → "SelfSupervised")."""
    first = title.split(maxsplit=1)[0] if title.strip() else ""
    if has_cjk(first):
        rest = _ZH_KEY_STOPWORDS.sub("", title) or title
        latin = _ASCII_WORD.match(rest)
        return latin.group() if latin else "".join(_ascii_words(rest[:CJK_KEY_CHARS]))
    words = ("".join(_ascii_words(w)) for w in title.split())
    return next((w for w in words if w and w.casefold() not in _KEY_STOPWORDS), "")


def citation_key(paper: Hit) -> str:
    """surname + year + first significant title word, in ASCII: "hauberg2024riemannian"; the paper id
    (made safe) when the paper has neither an author nor a title word to build one from. Words are read from
    title without TeX's style commands (their argument stays): "$\\mathscr{N}$-WL" → "nwl", not "mathscrnwl"
    (issue 57.11); a symbol's name stays a word ("$\\alpha$TC-VAE" → "alphatcvae", readable where "a" is not)."""
    author = "".join(_ascii_words(surname(paper.authors[0]))) if paper.authors else ""
    word = title_word(_TEX_STYLE.sub("", cited_title(paper)))
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
