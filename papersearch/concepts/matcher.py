"""Find glossary concepts in text: at index time in a paper, at query time in what was typed.

Aho-Corasick automata (daachorse's double arrays; see DECISIONS.md D-034, D-035): English forms
are searched as whole words in the text reduced
to Latin letters, digits and spaces, title-cased (english.haystack, english.searched: "GAN" is never
found in "organ"), Chinese forms in the text itself. In what was typed (`recognise`, `english`,
`chinese`), where matches overlap the leftmost, then the longest wins: "graph neural networks" is
graph_neural_network, not also neural_network; "图神经网络" likewise. A paper (`tag`) gets every concept
it names, nested and overlapping ones too (graph_neural_network and neural_network), by daachorse's
overlapping search (automata built on first use), so a concept named only inside a longer one still
tags it (DECISIONS.md D-218).

In papers, acronyms must be written as in the glossary (LLM, ViT, LoRA; a plural s allowed), since
"clip", "map" or "sam" are ordinary words; in a query any casing counts. A form shared by several
concepts (flagged ambiguous) tags a paper only with those of its concepts the paper also names
unambiguously.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import daachorse

from papersearch.concepts import english
from papersearch.concepts.glossary import Concept, Glossary, cached
from papersearch.text import CJK_RUN

Span = tuple[int, int, tuple[str, ...]]  # start, end (exclusive), concept ids


@dataclass(frozen=True)
class Match:
    start: int  # character offset: English into english.haystack(text), Chinese into the text
    end: int  # exclusive
    ids: tuple[str, ...]  # several when the form is ambiguous
    language: str  # "en" or "zh": the script of the form that matched


@dataclass(frozen=True)
class TermMatch:
    """A concept found in parsed query terms: terms[first:last + 1], or part of one Chinese term."""

    first: int
    last: int
    ids: tuple[str, ...]
    language: str
    text: str  # what was typed for it
    whole_terms: bool  # the match covers its terms completely


_SEPARATE = " ; "  # between a paper's fields: punctuation, so no English form runs across


def _latin_edge(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


class _Automaton:
    """Leftmost-longest matching of many patterns (str, or bytes for ASCII); each carries a value.
    Without daachorse's prefilter: our haystacks have a candidate start every few bytes, where it
    only cost time (measured in DECISIONS.md D-035). `overlapping` builds, on first use, a standard
    automaton of the same patterns: daachorse's overlapping search needs that match kind."""

    def __init__(self, patterns: dict, kind: type = daachorse.CharwiseDoubleArrayAhoCorasick) -> None:
        self.values = list(patterns.values())
        self._numbers = {p: i for i, p in enumerate(patterns)}
        self._patterns, self._kind = list(patterns), kind
        self._automaton = kind(self._patterns, match_kind=daachorse.MATCH_KIND_LEFTMOST_LONGEST,
                               use_prefilter=False) if patterns else None
        self._standard = None

    def number(self, pattern: str | bytes) -> int | None:
        return self._numbers.get(pattern)

    def find(self, haystack: str | bytes) -> list[tuple[int, int, int]]:
        """(start, end, pattern number) of each match: characters into a str, bytes into bytes."""
        return self._automaton.find(haystack) if self._automaton else []

    def overlapping(self, haystack: str | bytes) -> list[tuple[int, int, int]]:
        """(start, end, pattern number) of every occurrence of every pattern, nested and overlapping
        ones included, leftmost first and, of those starting together, longest first."""
        if not self._patterns:
            return []
        if self._standard is None:
            self._standard = self._kind(self._patterns, match_kind=daachorse.MATCH_KIND_STANDARD,
                                        use_prefilter=False)
        found = self._standard.find_overlapping(haystack)  # in order of their ends
        found.sort(key=lambda m: (m[0], -m[1]))
        return found


class ConceptMatcher:
    def __init__(self, glossary: Glossary) -> None:
        self.glossary = glossary
        self.concepts: dict[str, Concept] = glossary.by_id()
        # English pattern -> concept id -> None (any casing counts) or the spellings with acronyms
        en: dict[str, dict[str, list[english.Spelling] | None]] = {}
        zh: dict[str, list[str]] = {}
        for c in glossary.concepts:
            for form in c.en:
                for spelling in english.spellings(form):
                    owners = en.setdefault(english.pattern(spelling), {})
                    if c.id in owners and owners[c.id] is None:
                        continue
                    if any(w != w.lower() for w in spelling):
                        owners.setdefault(c.id, []).append(spelling)  # type: ignore[union-attr]
                    else:
                        owners[c.id] = None
            for form in c.zh:
                ids = zh.setdefault(form.lower(), [])
                if c.id not in ids:
                    ids.append(c.id)
        self._en = _Automaton({
            pattern: (tuple(owners),
                      tuple(cid for cid, spellings in owners.items() if spellings is None),
                      tuple((cid, tuple(_acronym_offsets(s) for s in spellings))
                            for cid, spellings in owners.items() if spellings is not None))
            for pattern, owners in en.items()
        }, daachorse.DoubleArrayAhoCorasick)
        # per English pattern: its only concept when any casing counts, else None (check acronyms, ambiguity)
        self._en_sole = [ids[0] if len(ids) == 1 and not acronyms else None for ids, _, acronyms in self._en.values]
        self._en_one_acronym = [(ids[0], *acronyms[0][1][0][0])
                                if len(ids) == 1 and len(acronyms) == 1 and len(acronyms[0][1]) == 1
                                and len(acronyms[0][1][0]) == 1 else None
                                for ids, _, acronyms in self._en.values]
        self._zh = _Automaton({form: (tuple(ids), _latin_edge(form[0]), _latin_edge(form[-1]))
                               for form, ids in zh.items()})
        # per Chinese pattern: its only concept when no Latin edge needs checking, else None
        self._zh_sole = [ids[0] if len(ids) == 1 and not (start or end) else None
                         for ids, start, end in self._zh.values]

    def _english(self, text: str, cased: bool) -> list[Span]:
        """Offsets into english.haystack(text); `cased`: acronyms must be written as in the glossary."""
        written = english.haystack(text)
        values = self._en.values
        found: list[Span] = []
        for start, end, number in self._english_matches(written):
            ids = _as_found(values[number], written, start) if cased else values[number][0]
            if ids:
                found.append((start, end - 1, ids))
        return found

    def _english_matches(self, written: bytes) -> list[tuple[int, int, int]]:
        """(start, end, pattern number) of the English forms in a haystack, leftmost-longest. In title
        case a letter after a digit is a capital too ("3D"): a match starting there is inside a word,
        so it is dropped and the search goes on from the next character, as if it had never been."""
        searched = english.searched(written)
        found = self._en.find(searched)
        out: list[tuple[int, int, int]] = []
        offset = 0
        while True:
            for i, (start, _, _) in enumerate(found):
                if written[offset + start - 1] != 32:  # not after a space: inside a word
                    out += _shifted(found[:i], offset)
                    offset += start + 1
                    found = self._en.find(searched[offset:])
                    break
            else:
                return out + _shifted(found, offset) if offset else found

    def _chinese(self, text: str) -> list[Span]:
        values = self._zh.values
        return [(start, end, values[number][0]) for start, end, number in self._chinese_matches(text)
                if self._at_latin_edges(text, start, end, number)]

    def _chinese_matches(self, text: str, overlapping: bool = False) -> list[tuple[int, int, int]]:
        """(start, end, pattern number) of the Chinese forms in a text, their Latin edges not yet
        checked; leftmost-longest, or every one (`overlapping`)."""
        if not _has_cjk(text):
            return []
        lowered = text.lower()
        if len(lowered) != len(text):  # a rare character whose lowercase is longer: keep offsets exact
            lowered = text
        return self._zh.overlapping(lowered) if overlapping else self._zh.find(lowered)

    def _at_latin_edges(self, text: str, start: int, end: int, number: int) -> bool:
        """A form starting or ending in a Latin letter or digit (K均值) does not continue a Latin word."""
        _, latin_start, latin_end = self._zh.values[number]
        return not (latin_start and start > 0 and _latin_edge(text[start - 1])) and \
            not (latin_end and end < len(text) and _latin_edge(text[end]))

    def english(self, text: str, cased: bool = True) -> list[Match]:
        """Concepts in a text's Latin-script words (offsets into english.haystack(text))."""
        return [Match(start, end, ids, "en") for start, end, ids in self._english(text, cased)]

    def chinese(self, text: str) -> list[Match]:
        """Concepts in Chinese text; a form starting or ending in a Latin letter or digit (K均值)
        must not continue a Latin word."""
        return [Match(start, end, ids, "zh") for start, end, ids in self._chinese(text)]

    # --- index time -----------------------------------------------------------------------------

    def tag(self, texts: Iterable[str]) -> list[str]:
        """The ids of the concepts a paper names (title, abstract, keywords in either language), in
        order of first appearance, English ones first: every concept, also one named only inside a
        longer one ("graph neural networks": graph_neural_network, then neural_network). An
        ambiguous form adds nothing by itself: its concepts count only when the paper also names
        them by one of their own forms."""
        text = _SEPARATE.join(filter(None, texts))  # one pass; no form spans two fields
        written = english.haystack(text)
        found = self._tag_english(written, self._en.overlapping(english.searched(written)))
        sole, values = self._zh_sole, self._zh.values
        for start, end, number in self._chinese_matches(text, overlapping=True):
            cid = sole[number]
            if cid is None:
                ids = values[number][0]
                if len(ids) != 1 or not self._at_latin_edges(text, start, end, number):
                    continue
                cid = ids[0]
            found[cid] = None
        return list(found)

    def _tag_english(self, written: bytes, matches: list[tuple[int, int, int]]) -> dict[str, None]:
        """The concepts of the English matches in a paper, in order; a match starting inside a word
        (after a digit: "3D", "2graph") names nothing, the matches inside it still count."""
        sole, one_acronym, values = self._en_sole, self._en_one_acronym, self._en.values
        found: dict[str, None] = {}
        # The hot loop of indexing: most patterns belong to one concept and have no acronym.
        for start, _, number in matches:
            if written[start - 1] != 32:
                continue
            cid = sole[number]
            if cid is None:
                acronym = one_acronym[number]
                if acronym:  # one concept, one acronym (LLM, GANs …): compare it in place
                    cid, offset, written_as = acronym
                    if not written.startswith(written_as, start + offset):
                        continue
                else:
                    ids = _as_found(values[number], written, start)
                    if len(ids) != 1:
                        continue
                    cid = ids[0]
            found[cid] = None
        return found

    # --- query time -----------------------------------------------------------------------------

    def recognise(self, terms: Sequence[str]) -> list[TermMatch]:
        """Concepts in parsed query terms, in any casing: English forms over runs of consecutive
        Latin-script terms (a match must start and end at term boundaries); Chinese forms over the
        terms written together, so a mixed form spans the terms the parser split it into
        ("视觉Transformer" is 视觉 + Transformer) and a Chinese form may sit inside a longer term.
        Overlaps resolve leftmost, then widest."""
        found: list[TermMatch] = []
        run: list[int] = []
        for i, term in enumerate([*terms, ""]):
            if term and not CJK_RUN.search(term):
                run.append(i)
                continue
            found += self._english_run(terms, run)
            run = []
        found += self._chinese_terms(terms)
        out: list[TermMatch] = []
        taken: set[int] = set()  # terms a chosen match covers whole
        for m in sorted(found, key=lambda m: (m.first, m.first - m.last, not m.whole_terms)):
            span = range(m.first, m.last + 1)
            if taken.isdisjoint(span):
                out.append(m)
                if m.whole_terms:
                    taken.update(span)
        return out

    def _chinese_terms(self, terms: Sequence[str]) -> list[TermMatch]:
        starts: list[int] = []
        offset = 0
        for term in terms:
            starts.append(offset)
            offset += len(term)
        text = "".join(terms)
        out = []
        for start, end, ids in self._chinese(text):
            first = bisect.bisect_right(starts, start) - 1
            last = bisect.bisect_right(starts, end - 1) - 1
            whole = start == starts[first] and end == starts[last] + len(terms[last])
            if whole or first == last:
                out.append(TermMatch(first, last, ids, "zh", text[start:end], whole))
        return out

    def _english_run(self, terms: Sequence[str], run: list[int]) -> list[TermMatch]:
        """English concepts over consecutive Latin-script terms; a match must cover whole terms."""
        owner: list[int] = []  # word -> term
        for i in run:
            owner += [i] * len(english.words(terms[i]))
        out = []
        text = " ".join(terms[i] for i in run)
        written = english.haystack(text).decode()
        for start, end, ids in self._english(text, cased=False):
            if len(ids) > 1:  # typed as written in the glossary ("GAN", not "gan"): that concept only
                ids = self._written_as_typed(written[start:end].split(), ids) or ids
            first_word = len(written[:start].split())
            last_word = first_word + len(written[start:end].split()) - 1
            first, last = owner[first_word], owner[last_word]
            if (first_word == 0 or owner[first_word - 1] != first) and \
                    (last_word + 1 == len(owner) or owner[last_word + 1] != last):
                out.append(TermMatch(first, last, ids, "en", " ".join(terms[first:last + 1]), True))
        return out

    def _written_as_typed(self, words: list[str], ids: tuple[str, ...]) -> tuple[str, ...]:
        """Of several concepts sharing a lowercase form, those whose acronym was typed as written."""
        if all(w == w.lower() for w in words):
            return ()
        number = self._en.number(english.pattern(tuple(words)))
        if number is None:
            return ()
        written = f"{' '.join(words)} ".encode()  # as english.pattern, in the case typed
        return tuple(cid for cid, spellings in self._en.values[number][2]
                     if cid in ids and any(_as_written(s, written, 0) for s in spellings))


def _as_found(value: tuple, written: bytes, start: int) -> tuple[str, ...]:
    """The concepts of an English pattern found at `start` in a paper: those any casing counts for,
    and those whose acronyms are written there as in the glossary."""
    _, plain, acronyms = value
    if not acronyms:
        return plain
    return plain + tuple(cid for cid, spellings in acronyms if any(_as_written(s, written, start) for s in spellings))


def _as_written(acronyms: tuple[tuple[int, bytes], ...], written: bytes, start: int) -> bool:
    """Each acronym of a spelling is in the text exactly as written in the glossary (LLM, ViTs)."""
    return all(written.startswith(acronym, start + offset) for offset, acronym in acronyms)


def _acronym_offsets(spelling: english.Spelling) -> tuple[tuple[int, bytes], ...]:
    """Where in the spelling's pattern each acronym starts, to compare it with the text as written."""
    out = []
    offset = 0  # english.pattern: words joined by one space
    for word in spelling:
        if word != word.lower():
            out.append((offset, word.encode()))
        offset += len(word) + 1
    return tuple(out)


def _shifted(found: list[tuple[int, int, int]], offset: int) -> list[tuple[int, int, int]]:
    return [(start + offset, end + offset, number) for start, end, number in found]


# UTF-8 lead bytes of CJK characters (papersearch.text.CJK_CHARS, all in U+0800–U+FFFF): a text whose
# encoding has none needs no Chinese search, found in native code rather than by a regular expression
# over the whole paper.
_NOT_CJK_LEAD = bytes(b for b in range(256) if not (
    0xE0 <= b <= 0xEF and CJK_RUN.search("".join(map(chr, range((b - 0xE0) << 12, (b - 0xDF) << 12))))))


def _has_cjk(text: str) -> bool:
    return not text.isascii() and bool(text.encode("utf-8", "surrogatepass").translate(None, _NOT_CJK_LEAD)) \
        and CJK_RUN.search(text) is not None


@lru_cache(maxsize=4)
def matcher(path: str | None = None) -> ConceptMatcher:
    """The matcher over config/concepts.tsv (or another glossary file), built once per process."""
    return ConceptMatcher(cached(path))
