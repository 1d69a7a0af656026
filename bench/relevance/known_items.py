"""Known-item queries generated from real papers, reproducibly (a fixed seed per kind).

Each item is {"id", "kind", "q", "expected": [paper id]}: what someone who knows one paper types to find it.
English (papers with `title`, `abstract`, `authors`):
  title             the exact title
  title_words       three content words of the title, in order, lower-cased
  title_typo        the title with one typing error (transposition, deletion, neighbouring key, doubled
                    letter) at the third letter or later of one word of 5+ letters
  title_typo_start  the same with the error at the first or second letter (typo tolerance that keeps a
                    one-letter prefix cannot repair these)
  author            the full name of an author who appears on this one paper only
  abstract_8w       8 consecutive words from the middle half of the abstract (pasted from a PDF, so
                    windows containing LaTeX markup are avoided)
Chinese (papers with `title_zh`, `abstract_zh`, `keywords`):
  zh_title, zh_title_part (a contiguous 40–70% of the title, cut anywhere), zh_rare_keyword (a keyword no
  other paper has), zh_two_keywords (two of its keywords no other paper has together), zh_abstract_12c
  (12 consecutive characters from the middle half of the abstract, not starting or ending on punctuation).
Papers whose title occurs twice in a corpus are left out of the title kinds (the expected paper would be
ambiguous).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

Paper = dict[str, Any]
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
NOTITLE_KINDS = ("title", "title_words")


def _rng(seed: int, kind: str) -> random.Random:
    return random.Random(f"{seed}:{kind}")  # str seeds hash with SHA-512: stable across runs and versions


# --- one query from one paper (None when the paper cannot give one) -----------------------------------------


def title_words(title: str, rng: random.Random, n: int = 3) -> str | None:
    words = [w for w in re.findall(r"[\w'-]+", title.lower()) if len(w) >= 3 and w not in STOPWORDS]
    if len(words) < n:
        return None
    keep = sorted(rng.sample(range(len(words)), n))
    return " ".join(words[i] for i in keep)


def _neighbour(ch: str, rng: random.Random) -> str:
    low = ch.lower()
    for row in QWERTY:
        if low in row:
            i = row.index(low)
            near = [row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)]
            out = rng.choice(near)
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


def abstract_words(abstract: str, rng: random.Random, n: int = 8) -> str | None:
    tokens = abstract.split()
    if len(tokens) < 4 * n:
        return None
    starts = list(range(len(tokens) // 4, 3 * len(tokens) // 4 - n + 1))
    rng.shuffle(starts)
    for start in starts:
        window = tokens[start:start + n]
        if not any(LATEX.search(t) for t in window):
            return " ".join(window)
    return None


def _is_text(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def zh_part(text: str, rng: random.Random) -> str | None:
    if len(text) < 10:
        return None
    length = max(5, round(len(text) * rng.uniform(0.4, 0.7)))
    start = rng.randrange(0, len(text) - length + 1)
    return text[start:start + length].strip() or None


def zh_fragment(abstract: str, rng: random.Random, n: int = 12) -> str | None:
    if len(abstract) < 4 * n:
        return None
    starts = list(range(len(abstract) // 4, 3 * len(abstract) // 4 - n + 1))
    rng.shuffle(starts)
    for start in starts:
        window = abstract[start:start + n]
        if _is_text(window[0]) and _is_text(window[-1]) and not any(c.isspace() for c in window):
            return window
    return None


# --- corpus-wide facts ---------------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def unique_titles(papers: Iterable[Paper], field: str) -> set[str]:
    """Normalised titles that exactly one paper has."""
    counts = Counter(_norm(p.get(field) or "") for p in papers)
    return {t for t, c in counts.items() if c == 1 and t}


def author_counts(papers: Iterable[Paper]) -> Counter:
    return Counter(_norm(a) for p in papers for a in set(p.get("authors") or []))


def keyword_sets(papers: Iterable[Paper]) -> list[frozenset[str]]:
    return [frozenset(k.strip() for k in p.get("keywords") or [] if k.strip()) for p in papers]


# --- the sets ------------------------------------------------------------------------------------------


def _sample(papers: list[Paper], kind: str, n: int, seed: int,
            make: Callable[[Paper, random.Random], str | None]) -> list[Item]:
    """Up to n items of one kind: papers in a seeded random order, the first n that yield a query."""
    rng = _rng(seed, kind)
    order = list(range(len(papers)))
    rng.shuffle(order)
    items: list[Item] = []
    for i in order:
        q = make(papers[i], rng)
        if q and q.strip():
            items.append({"id": f"{kind}-{len(items) + 1}", "kind": kind, "q": q.strip(),
                          "expected": [papers[i]["id"]]})
            if len(items) == n:
                break
    return items


def english_items(papers: list[Paper], n: int, seed: int, kinds: Iterable[str] = EN_KINDS,
                  prefix: str = "") -> list[Item]:
    titled = unique_titles(papers, "title")
    authors = author_counts(papers)

    def has_title(p: Paper) -> bool:
        return _norm(p.get("title") or "") in titled

    def single_author(p: Paper, rng: random.Random) -> str | None:
        names = sorted(a for a in set(p.get("authors") or []) if authors[_norm(a)] == 1 and len(a) > 3)
        return rng.choice(names) if names else None

    makers: dict[str, Callable[[Paper, random.Random], str | None]] = {
        "title": lambda p, rng: p["title"] if has_title(p) else None,
        "title_words": lambda p, rng: title_words(p["title"], rng) if has_title(p) else None,
        "title_typo": lambda p, rng: title_typo(p["title"], rng, near_start=False) if has_title(p) else None,
        "title_typo_start": lambda p, rng: title_typo(p["title"], rng, near_start=True) if has_title(p) else None,
        "author": single_author,
        "abstract_8w": lambda p, rng: abstract_words(p.get("abstract") or "", rng),
    }
    return [item for kind in kinds for item in _sample(papers, prefix + kind, n, seed, makers[kind])]


def chinese_items(papers: list[Paper], n: int, seed: int) -> list[Item]:
    titled = unique_titles(papers, "title_zh")
    sets = keyword_sets(papers)
    keyword_df = Counter(k for s in sets for k in s)
    by_id = {p["id"]: s for p, s in zip(papers, sets, strict=True)}

    def title(p: Paper) -> str | None:
        t = (p.get("title_zh") or "").strip()
        return t if _norm(t) in titled else None

    def rare_keyword(p: Paper, rng: random.Random) -> str | None:
        rare = sorted(k for k in by_id[p["id"]] if keyword_df[k] == 1 and len(k) >= 2)
        return rng.choice(rare) if rare else None

    def two_keywords(p: Paper, rng: random.Random) -> str | None:
        own = sorted(by_id[p["id"]])
        pairs = [(a, b) for i, a in enumerate(own) for b in own[i + 1:]
                 if sum(1 for s in sets if a in s and b in s) == 1]
        if not pairs:
            return None
        a, b = rng.choice(pairs)
        return f"{a} {b}" if rng.random() < 0.5 else f"{b} {a}"

    makers: dict[str, Callable[[Paper, random.Random], str | None]] = {
        "zh_title": lambda p, rng: title(p),
        "zh_title_part": lambda p, rng: zh_part(title(p) or "", rng),
        "zh_rare_keyword": rare_keyword,
        "zh_two_keywords": two_keywords,
        "zh_abstract_12c": lambda p, rng: zh_fragment(p.get("abstract_zh") or "", rng),
    }
    return [item for kind in ZH_KINDS for item in _sample(papers, kind, n, seed, makers[kind])]


def notitle_items(papers: list[Paper], n: int, seed: int) -> list[Item]:
    """Typed real titles, to be searched in an index loaded without titles (as listing pages come)."""
    return english_items(papers, n, seed, NOTITLE_KINDS, prefix="notitle_")
