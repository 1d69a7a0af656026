"""Known-item queries generated from real papers, reproducibly (a fixed seed per kind).

Each item is {"id", "kind", "q", "expected": [paper id]}: what someone who knows one paper types to find it.
Every query has one right answer in its corpus: the words, fragment, keywords or name it uses belong to that
paper only (checked against every other paper), and titles shared by two papers are left out.
English (papers with `title`, `abstract`, `authors`):
  title             the exact title
  title_words       three content words of the title, in order, lower-cased (no other title has all three)
  title_typo        the title with one typing error (transposition, deletion, neighbouring key, doubled
                    letter) at the third letter or later of one word of 5+ letters
  title_typo_start  the same with the error at the first or second letter (typo tolerance that keeps a
                    one-letter prefix cannot repair these)
  author            the full name of an author no other paper has (first + last name, case-folded, so
                    "James Y. Zou" and "James Zou" count as one)
  abstract_8w       8 consecutive words from the middle half of the abstract, as pasted from a PDF (so
                    windows containing LaTeX markup are avoided)
Chinese (papers with `title_zh`, `abstract_zh`, `keywords`):
  zh_title          the exact title
  zh_title_part     a contiguous 40–70% of the title (5+ characters), cut anywhere, also inside a Latin word
  zh_rare_keyword   one of its keywords that no other paper mentions anywhere
  zh_two_keywords   two of its keywords that no other paper mentions together
  zh_abstract_12c   12 consecutive characters from the middle half of the abstract, not starting or ending on
                    punctuation
No-title index (the English corpus loaded without titles): notitle_title, the exact title typed.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

Paper = dict[str, Any]
T = TypeVar("T")
Item = dict[str, Any]

STOPWORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "beyond", "by", "can", "do", "does", "for", "from", "how", "in",
    "into", "is", "it", "its", "of", "on", "or", "over", "our", "the", "their", "through", "to", "toward",
    "towards", "under", "using", "via", "vs", "what", "when", "where", "which", "while", "why", "with", "without",
])
LATEX = re.compile(r"[$\\{}^_]")
WORD = re.compile(r"\b[A-Za-z]{5,}\b")
QWERTY = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
EN_KINDS = ("title", "title_words", "title_typo", "title_typo_start", "author", "abstract_8w")
ZH_KINDS = ("zh_title", "zh_title_part", "zh_rare_keyword", "zh_two_keywords", "zh_abstract_12c")
NOTITLE_KINDS = ("title",)


def _rng(seed: int, kind: str) -> random.Random:
    return random.Random(f"{seed}:{kind}")  # str seeds hash with SHA-512: stable across runs and versions


# --- candidate queries from one paper, in a seeded random order ------------------------------------------------


def title_word_choices(title: str, rng: random.Random, n: int = 3, tries: int = 10) -> Iterator[str]:
    words = [w for w in words_of(title) if len(w) >= 3 and w not in STOPWORDS]
    if len(words) < n:
        return
    for _ in range(tries):
        yield " ".join(words[i] for i in sorted(rng.sample(range(len(words)), n)))


def _neighbour(ch: str, rng: random.Random) -> str:
    low = ch.lower()
    for row in QWERTY:
        if low in row:
            i = row.index(low)
            out = rng.choice([row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)])
            return out.upper() if ch.isupper() else out
    return ch


def misspell(word: str, pos: int, rng: random.Random) -> str:
    """One typing error at position pos; the result always differs from word."""
    ops = ["swap", "delete", "neighbour", "double"]
    rng.shuffle(ops)
    for op in ops:
        if op == "swap" and pos + 1 < len(word) and word[pos].lower() != word[pos + 1].lower():
            return word[:pos] + word[pos + 1] + word[pos] + word[pos + 2:]
        if op == "delete":
            return word[:pos] + word[pos + 1:]
        if op == "neighbour" and _neighbour(word[pos], rng) != word[pos]:
            return word[:pos] + _neighbour(word[pos], rng) + word[pos + 1:]
        if op == "double":
            return word[:pos] + word[pos] + word[pos:]
    raise AssertionError("delete always applies")


def title_typo(title: str, rng: random.Random, near_start: bool) -> str | None:
    words = list(WORD.finditer(title))
    if not words:
        return None
    match = rng.choice(words)
    word = match.group()
    pos = rng.choice([0, 1]) if near_start else rng.randrange(2, len(word))
    return title[:match.start()] + misspell(word, pos, rng) + title[match.end():]


def middle_windows(seq: Sequence[T], n: int, rng: random.Random) -> Iterator[Sequence[T]]:
    """Every run of n items starting in the middle half of seq, in random order (none if seq is short)."""
    if len(seq) < 4 * n:
        return
    starts = list(range(len(seq) // 4, 3 * len(seq) // 4 - n + 1))
    rng.shuffle(starts)
    for start in starts:
        yield seq[start:start + n]


def abstract_windows(abstract: str, rng: random.Random, n: int = 8) -> Iterator[str]:
    """n consecutive words from the middle half, without LaTeX markup."""
    for window in middle_windows(abstract.split(), n, rng):
        if not any(LATEX.search(t) for t in window):
            yield " ".join(window)


def _is_text(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def zh_parts(text: str, rng: random.Random, tries: int = 10) -> Iterator[str]:
    """Contiguous 40–70% of a title (at least 5 characters), cut anywhere."""
    if len(text) < 10:
        return
    for _ in range(tries):
        length = max(5, round(len(text) * rng.uniform(0.4, 0.7)))
        start = rng.randrange(0, len(text) - length + 1)
        part = text[start:start + length].strip()
        if len(part) >= 5:
            yield part


def zh_windows(abstract: str, rng: random.Random, n: int = 12) -> Iterator[str]:
    """n consecutive characters from the middle half, not starting or ending on punctuation or space."""
    for window in middle_windows(abstract, n, rng):
        if _is_text(window[0]) and _is_text(window[-1]) and not any(c.isspace() for c in window):
            yield window


# --- what is unique in a corpus (so that a known-item query has one right answer) ----------------------------------


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def words_of(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text.casefold())


def author_key(name: str) -> tuple[str, str]:
    """First and last name, case-folded: "James Y. Zou" and "James Zou" are the same person here."""
    parts = name.casefold().replace(".", " ").split()
    return (parts[0], parts[-1]) if parts else ("", "")


class Corpus:
    def __init__(self, papers: list[Paper], title_field: str) -> None:
        self.papers = papers
        self.titles = [_norm(p.get(title_field) or "") for p in papers]
        self.title_counts = Counter(self.titles)
        self.title_words = [set(words_of(t)) for t in self.titles]
        self.texts = [_norm(" ".join([p.get("title") or "", p.get("title_zh") or "", p.get("abstract") or "",
                                      p.get("abstract_zh") or "", " ".join(p.get("keywords") or [])]))
                      for p in papers]
        self.authors = Counter(k for p in papers for k in {author_key(a) for a in p.get("authors") or []})
        self._holders: dict[str, frozenset[int]] = {}

    def unique_title(self, i: int) -> bool:
        return bool(self.titles[i]) and self.title_counts[self.titles[i]] == 1

    def only_title_with(self, i: int, words: str) -> bool:
        wanted = set(words.split())
        return wanted <= self.title_words[i] and sum(1 for ws in self.title_words if wanted <= ws) == 1

    def holders(self, piece: str) -> frozenset[int]:
        """The papers whose text (title, abstract, keywords) contains piece."""
        piece = _norm(piece)
        if piece not in self._holders:
            self._holders[piece] = frozenset(j for j, text in enumerate(self.texts) if piece in text)
        return self._holders[piece]

    def only_text_with(self, i: int, *pieces: str) -> bool:
        """Paper i is the one paper whose text contains every piece."""
        return frozenset.intersection(*(self.holders(p) for p in pieces)) == {i}


def _first(candidates: Iterable[str], ok: Callable[[str], bool]) -> str | None:
    return next((c for c in candidates if ok(c)), None)


# --- the sets ------------------------------------------------------------------------------------------


Maker = Callable[[int, random.Random], str | None]


def _sample(papers: list[Paper], kind: str, n: int, seed: int, make: Maker) -> list[Item]:
    """Up to n items of one kind: papers in a seeded random order, the first n that yield a query."""
    rng = _rng(seed, kind)
    order = list(range(len(papers)))
    rng.shuffle(order)
    items: list[Item] = []
    for i in order:
        q = make(i, rng)
        if q and q.strip():
            items.append({"id": f"{kind}-{len(items) + 1}", "kind": kind, "q": q.strip(),
                          "expected": [papers[i]["id"]]})
            if len(items) == n:
                break
    return items


def english_items(papers: list[Paper], n: int, seed: int, kinds: Iterable[str] = EN_KINDS,
                  prefix: str = "") -> list[Item]:
    c = Corpus(papers, "title")

    def titled(make: Callable[[str, random.Random], str | None]) -> Maker:
        return lambda i, rng: make(papers[i]["title"], rng) if c.unique_title(i) else None

    def author(i: int, rng: random.Random) -> str | None:
        names = sorted(a for a in set(papers[i].get("authors") or []) if c.authors[author_key(a)] == 1 and len(a) > 3)
        return rng.choice(names) if names else None

    makers: dict[str, Maker] = {
        "title": titled(lambda t, rng: t),
        "title_words": lambda i, rng: _first(title_word_choices(papers[i]["title"], rng),
                                             lambda q: c.only_title_with(i, q)) if c.unique_title(i) else None,
        "title_typo": titled(lambda t, rng: title_typo(t, rng, near_start=False)),
        "title_typo_start": titled(lambda t, rng: title_typo(t, rng, near_start=True)),
        "author": author,
        "abstract_8w": lambda i, rng: _first(abstract_windows(papers[i].get("abstract") or "", rng),
                                             lambda q: c.only_text_with(i, q)),
    }
    return [item for kind in kinds for item in _sample(papers, prefix + kind, n, seed, makers[kind])]


def chinese_items(papers: list[Paper], n: int, seed: int) -> list[Item]:
    c = Corpus(papers, "title_zh")
    keywords = [sorted({k.strip() for k in p.get("keywords") or [] if len(k.strip()) >= 2}) for p in papers]

    def rare_keyword(i: int, rng: random.Random) -> str | None:
        rare = [k for k in keywords[i] if c.only_text_with(i, k)]
        return rng.choice(rare) if rare else None

    def two_keywords(i: int, rng: random.Random) -> str | None:
        own = keywords[i]
        pairs = [(a, b) for j, a in enumerate(own) for b in own[j + 1:] if c.only_text_with(i, a, b)]
        if not pairs:
            return None
        a, b = rng.choice(pairs)
        return f"{a} {b}" if rng.random() < 0.5 else f"{b} {a}"

    def title(i: int) -> str:
        return (papers[i].get("title_zh") or "").strip() if c.unique_title(i) else ""

    makers: dict[str, Maker] = {
        "zh_title": lambda i, rng: title(i),
        "zh_title_part": lambda i, rng: _first(zh_parts(title(i), rng), lambda q: c.only_text_with(i, q)),
        "zh_rare_keyword": rare_keyword,
        "zh_two_keywords": two_keywords,
        "zh_abstract_12c": lambda i, rng: _first(zh_windows(papers[i].get("abstract_zh") or "", rng),
                                                 lambda q: c.only_text_with(i, q)),
    }
    return [item for kind in ZH_KINDS for item in _sample(papers, kind, n, seed, makers[kind])]


def notitle_items(papers: list[Paper], n: int, seed: int) -> list[Item]:
    """Typed real titles, to be searched in an index loaded without titles (as listing pages come)."""
    return english_items(papers, n, seed, NOTITLE_KINDS, prefix="notitle_")
