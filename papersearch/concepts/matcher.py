"""Find glossary concepts in text: at index time in a paper, at query time in what was typed.

Two Aho-Corasick automata (pyahocorasick; see DECISIONS.md "Concept matching"): English forms are
searched as " space-delimited words " in the text reduced to Latin letters, digits and spaces (so a
form matches whole words only: "GAN" is never found in "organ"); Chinese forms in the text itself.
Overlapping matches resolve leftmost-longest: "graph neural networks" is graph_neural_network, not
also neural_network; "图神经网络" likewise.

In papers, acronyms must be written as in the glossary (LLM, ViT, LoRA; a plural s allowed), since
"clip", "map" or "sam" are ordinary words; in a query any casing counts. A form shared by several
concepts (flagged ambiguous) tags a paper only with those of its concepts the paper also names
unambiguously.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import ahocorasick

from papersearch.concepts import english
from papersearch.concepts.glossary import Concept, Glossary, cached
from papersearch.text import CJK_RUN


@dataclass(frozen=True)
class Match:
    start: int  # character offset: English into english.haystack(text), Chinese into the text
    end: int  # exclusive
    ids: tuple[str, ...]  # several when the form is ambiguous
    language: str  # "en" or "zh": the script of the form that matched

    @property
    def ambiguous(self) -> bool:
        return len(self.ids) > 1


@dataclass(frozen=True)
class TermMatch:
    """A concept found in parsed query terms: terms[first:last + 1], or part of one Chinese term."""

    first: int
    last: int
    ids: tuple[str, ...]
    language: str
    text: str  # what was typed for it
    whole_terms: bool  # the match covers its terms completely


# An English entry: the concept, and the spelling when it has acronyms to compare as written.
_EnEntry = tuple[str, english.Spelling | None]


def _leftmost_longest(found: Iterable[Match]) -> list[Match]:
    out: list[Match] = []
    end = -1
    for m in sorted(found, key=lambda m: (m.start, m.start - m.end)):
        if m.start >= end:
            out.append(m)
            end = m.end
    return out


def _latin_edge(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


class ConceptMatcher:
    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary
        self.concepts: dict[str, Concept] = glossary.by_id()
        en: dict[str, list[_EnEntry]] = {}  # " lowercase words " -> entries
        zh: dict[str, list[str]] = {}
        for c in glossary.concepts:
            for form in c.en:
                for spelling in english.spellings(form):
                    entries = en.setdefault(f" {english.key(spelling)} ", [])
                    cased = spelling if any(w != w.lower() for w in spelling) else None
                    if (c.id, cased) not in entries:
                        entries.append((c.id, cased))
            for form in c.zh:
                ids = zh.setdefault(form.lower(), [])
                if c.id not in ids:
                    ids.append(c.id)
        self._en = ahocorasick.Automaton()
        for pattern, entries in en.items():
            self._en.add_word(pattern, (len(pattern), tuple(entries)))
        self._zh = ahocorasick.Automaton()
        for form, ids in zh.items():
            self._zh.add_word(form, (len(form), _latin_edge(form[0]), _latin_edge(form[-1]), tuple(ids)))
        for automaton in (self._en, self._zh):
            if len(automaton):
                automaton.make_automaton()

    # --- English --------------------------------------------------------------------------------

    def english(self, text: str, cased: bool = True) -> list[Match]:
        """Concepts in a text's Latin-script words, leftmost-longest; offsets into english.haystack(text).
        `cased`: acronyms must be written as in the glossary."""
        if not len(self._en):
            return []
        written = english.haystack(text)
        found: list[Match] = []
        for end, (length, entries) in self._en.iter(written.lower()):
            start = end - length + 1  # the pattern's leading space
            ids = tuple(dict.fromkeys(cid for cid, spelling in entries
                                      if not (cased and spelling) or _as_written(spelling, written[start:end])))
            if ids:
                found.append(Match(start + 1, end, ids, "en"))
        return _leftmost_longest(found)

    # --- Chinese --------------------------------------------------------------------------------

    def chinese(self, text: str) -> list[Match]:
        """Concepts in Chinese text (longest match); a form starting or ending in a Latin letter or
        digit (K均值) must not continue a Latin word."""
        if not len(self._zh) or text.isascii() or not CJK_RUN.search(text):
            return []
        lowered = text.lower()
        if len(lowered) != len(text):  # a rare character whose lowercase is longer: keep offsets exact
            lowered = text
        found: list[Match] = []
        for end, (length, latin_start, latin_end, ids) in self._zh.iter(lowered):
            start = end - length + 1
            if latin_start and start > 0 and _latin_edge(text[start - 1]):
                continue
            if latin_end and end + 1 < len(text) and _latin_edge(text[end + 1]):
                continue
            found.append(Match(start, end + 1, ids, "zh"))
        return _leftmost_longest(found)

    # --- index time -----------------------------------------------------------------------------

    def tag(self, texts: Iterable[str]) -> list[str]:
        """The ids of the concepts a paper names (title, abstract, keywords in either language), in
        order of first appearance. An ambiguous form adds nothing by itself: its concepts count only
        when the paper also names them by one of their own forms."""
        found: dict[str, None] = {}
        for text in texts:
            if text:
                for m in (*self.english(text, cased=True), *self.chinese(text)):
                    if not m.ambiguous:
                        found[m.ids[0]] = None
        return list(found)

    # --- query time -----------------------------------------------------------------------------

    def recognise(self, terms: Sequence[str]) -> list[TermMatch]:
        """Concepts in parsed query terms, in any casing: English forms over runs of consecutive
        Latin-script terms (a match must start and end at term boundaries), Chinese forms inside
        each Chinese term."""
        out: list[TermMatch] = []
        run: list[int] = []
        for i, term in enumerate([*terms, ""]):
            if term and not CJK_RUN.search(term):
                run.append(i)
                continue
            out += self._english_run(terms, run)
            run = []
            if term:
                out += [TermMatch(i, i, m.ids, "zh", term[m.start:m.end], m.start == 0 and m.end == len(term))
                        for m in self.chinese(term)]
        return sorted(out, key=lambda m: m.first)

    def _english_run(self, terms: Sequence[str], run: list[int]) -> list[TermMatch]:
        """English concepts over consecutive Latin-script terms; a match must cover whole terms."""
        starts: dict[int, int] = {}  # offset in the joined text -> term index
        ends: dict[int, int] = {}
        offset = 1  # english.haystack pads with a space
        for i in run:
            starts[offset] = i
            offset += len(english.haystack(terms[i])) - 2
            ends[offset] = i
            offset += 1
        out = []
        for m in self.english(" ".join(terms[i] for i in run), cased=False):
            if m.start in starts and m.end in ends:
                first, last = starts[m.start], ends[m.end]
                out.append(TermMatch(first, last, m.ids, "en", " ".join(terms[first:last + 1]), True))
        return out


def _as_written(spelling: english.Spelling, text: str) -> bool:
    """The acronyms of a spelling appear in the text exactly as written there (LLM, ViTs)."""
    return all(want == got for want, got in zip(spelling, text.split(), strict=False) if want != want.lower())


@lru_cache(maxsize=4)
def matcher(path: str | None = None) -> ConceptMatcher:
    """The matcher over config/concepts.tsv (or another glossary file), built once per process."""
    return ConceptMatcher(cached(path))
