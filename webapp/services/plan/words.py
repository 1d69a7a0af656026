"""The words of a search, as the plan reads them: each typed word one clause (`Word`) with its typo fallback and
the glossary concepts it may also be matched by (`Concept`), together a `Text` of which so many must match;
what the page highlights (`Highlight`). `Words` makes them from the parsed query and the concepts found in it;
webapp/services/plan/ladder.py decides which form each request carries, bodies/text_query.py writes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from papersearch.concepts.english import american_spelling
from papersearch.text import ENGLISH_STOPWORDS, has_cjk, math_spellings
from webapp.services.query import glosses as dictionary
from webapp.services.query.expansion import Expansion
from webapp.services.query.parser import LATIN_WORD, Clause, ParsedQuery
from webapp.services.query.zh_spelling import candidates
from webapp.services.search_settings import WebSearchConfig

# Where a word's typo fallback looks: nowhere, author names only (four-letter words), every Latin text field.
Typos = Literal["", "authors", "text"]
# Typo tolerance for every word (True), none (False), or only the words in the set (case-folded).
Fuzzy = bool | frozenset[str]
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Concept:
    """A glossary concept among the words: its other forms and tag, searched as one alternative."""

    ids: tuple[str, ...]
    en: tuple[str, ...]
    zh: tuple[str, ...]
    typed: str  # what was typed for it (a whole word, several, or a part of one Chinese term)
    first: int  # the words it came from: words[first:last + 1] (or a part of words[first])
    last: int
    en_words: str = ""  # its name in the language it was not typed in, scored as typed words
    zh_words: str = ""

    @classmethod
    def of(cls, e: Expansion) -> Concept:
        return cls(e.ids, e.en, e.zh, e.typed, e.first, e.last, e.en_words, e.zh_words)

    @property
    def names(self) -> tuple[tuple[str, str], ...]:
        """(language, name) of the names scored as typed words."""
        return tuple((lang, name) for lang, name in (("en", self.en_words), ("zh", self.zh_words)) if name)


@dataclass(frozen=True)
class Word:
    """One word of the search box: all its tokens in any field (relaxed: most of them), its typo fallback,
    and the concepts it may also be matched by."""

    index: int
    text: str
    typos: Typos = ""  # a low-boost typo fallback beside it, on these fields
    concept: Concept | None = None  # the word is (part of) a concept typed as whole words …
    share: float = 1.0  # … carrying this share of the concept's weight
    inside: tuple[Concept, ...] = ()  # concepts inside a long Chinese term
    # Other words any of which may match instead: those typed beside it with OR, its math spellings (α-divergence:
    # alpha-divergence; papersearch.text.math_spellings).
    alternatives: tuple[Word, ...] = ()
    # A Chinese run's words beyond the glossary, each with its English glosses (query/glosses.py): another way for
    # English papers to match it, at glosses.weight (DECISIONS.md D-217).
    glosses: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Text:
    """The words: each one clause, `required` of them must match."""

    words: tuple[Word, ...]
    required: int
    relaxed: bool = False  # words need most of their tokens, and each word's clause is named (word:<i>)
    # Papers written in this language need only the concepts (their words cannot be shared): "zh" for
    # Latin-script words typed beside a concept, "en" for Chinese ones; None: all words as above.
    other_language: str | None = None
    groups: tuple[Concept, ...] = ()  # the concepts typed as whole words (what other_language requires)


@dataclass(frozen=True)
class Highlight:
    """What the page marks: the words, phrases and field clauses, the concepts' other forms, and the English glosses
    of a Chinese run's words beyond the glossary (what let an English paper in: D-217, D-219)."""

    words: tuple[str, ...]
    phrases: tuple[str, ...] = ()
    fields: tuple[Clause, ...] = ()
    forms: tuple[Concept, ...] = ()
    glosses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Words:
    """A query's words with the concepts found among them, read into the forms the plan's requests carry."""

    parsed: ParsedQuery
    found: tuple[Expansion, ...]
    config: WebSearchConfig
    glossed: bool = True  # a Chinese run's words beyond the glossary searched in English too (xl=0: not)

    def text(self, fuzzy: Fuzzy = True, relaxed: bool = False, other_language: bool = True) -> Text | None:
        """The words with the concepts recognised among them (see DECISIONS.md D-033): every
        typed word stays one clause, so "most words must match" counts as before; a word that is part of a
        concept may also be matched by the concept, each of the concept's words carrying an equal share of
        its weight (where every word must match, bodies/text_query.py makes a concept's words one clause with the
        concept once: DECISIONS.md D-224); concepts inside a longer Chinese term give that term a second way to
        match. Papers written in the other language need only match the concepts when other words were typed
        beside them ("concrete cracks": Chinese papers about 混凝土); without other_language, only the words in
        their own language (what the ladder counts and ranks first)."""
        terms = self.parsed.terms
        if not terms:
            return None
        whole = {k: e for e in self.found if e.whole_terms for k in range(e.first, e.last + 1)}
        inside: dict[int, list[Expansion]] = {}
        for e in self.found:
            if not e.whole_terms:
                inside.setdefault(e.first, []).append(e)
        words: list[Word] = []
        others: list[str] = []  # the words that are no concept
        # Stop words match every paper (the stemmed fields drop them), and the function words of a question (how,
        # when, without: search.function_words) say nothing of its topic, so neither is a clause of its own nor
        # counts among "most of the words"; unless they are all there is, or part of a concept (DECISIONS.md D-173).
        unsaid = ENGLISH_STOPWORDS | self.config.function_words
        stop = {i for i, t in enumerate(terms) if t.casefold() in unsaid and i not in whole}
        if len(stop) == len(terms):
            stop = set()
        ors = self.parsed.term_groups
        heads: dict[int, int] = {}  # an OR group → its first word's place in `words`
        budget = self.config.glosses.max_terms  # glosses left to add (glosses.max_terms for the whole query)
        for i, term in enumerate(terms):
            if i in stop:
                continue
            typos = self.typos(term, fuzzy)
            spellings = tuple(Word(i, s) for s in (*math_spellings(term), *filter(None, [american_spelling(term)])))
            if ors[i] in heads:  # typed after OR: an alternative of the group's first word
                head = words[heads[ors[i]]]
                words[heads[ors[i]]] = replace(head, alternatives=(*head.alternatives, Word(i, term, typos),
                                                                      *spellings))
                continue
            if ors[i]:
                heads[ors[i]] = len(words)
            if i in whole:
                e = whole[i]
                words.append(Word(i, term, typos, Concept.of(e), share=1 / (e.last - e.first + 1)))
            elif i in inside:
                words.append(Word(i, term, typos, inside=tuple(Concept.of(e) for e in inside[i])))
            else:
                words.append(Word(i, term, typos))
                others.append(term)
            if spellings:
                words[-1] = replace(words[-1], alternatives=spellings)
            if has_cjk(term) and i not in whole and (found := self.glosses(term, inside.get(i, []), budget)):
                words[-1] = replace(words[-1], glosses=found)
                budget -= sum(len(g) for _, g in found)
        language = _other_language(others) if other_language and self.found and others else None
        groups = tuple(Concept.of(e) for e in self.found if e.whole_terms) if language else ()
        return Text(tuple(words), self.required(len(words), relaxed), relaxed, language, groups)

    def glosses(self, run: str, inside: list[Expansion], budget: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The words of a Chinese run that no concept in it covers, each with its first English glosses, at most
        `budget` glosses in all (query/glosses.py); none for a run of fewer than glosses.min_words_alone such words
        and no concept."""
        settings = self.config.glosses
        if not settings.enabled or not self.glossed or budget <= 0:
            return ()
        out = []
        for word in dictionary.content_words(run, [e.typed for e in inside], settings.min_word_length,
                                             settings.stop_words):
            found = dictionary.glosses_of(word, settings.per_word, settings.max_gloss_words)[:budget]
            if found:
                out.append((word, found))
                budget -= len(found)
        # A run with no concept lets English papers in by its glosses alone: a question's words, not a keyword's one
        # or two (安全, 改建: English papers with "safety", "rebuild" before the Chinese papers with the word)
        return tuple(out) if inside or len(out) >= settings.min_words_alone else ()

    def required(self, words: int, relaxed: bool) -> int:
        """How many of the words must match: all, or (relaxed) the share relaxation.minimum_should_match
        gives, read as Elasticsearch reads such a rule ("1<-1 3<50%": one word: it; up to three: all but
        one; more: half, rounded down)."""
        if not relaxed:
            return words
        need = words
        for condition in self.config.relaxation.minimum_should_match.split():
            above, rule = condition.split("<")
            if words > int(above):
                number = int(rule.rstrip("%"))
                part = words * abs(number) // 100 if rule.endswith("%") else abs(number)
                need = words - part if number < 0 else part
        return max(1, min(words, need))

    def typos(self, term: str, fuzzy: Fuzzy) -> Typos:
        """Where a word's typo fallback looks: longer alphabetic words in every Latin field, four-letter ones
        in author names only (Zeev → Ze'ev), never Chinese."""
        wanted = fuzzy if isinstance(fuzzy, bool) else term.casefold() in fuzzy
        settings = self.config.typos
        if not wanted or len(term) < settings.author_min_length or has_cjk(term) or not LATIN_WORD.fullmatch(term):
            return ""
        return "authors" if len(term) < settings.min_length else "text"

    def typo_words(self, unknown: frozenset[str]) -> frozenset[str]:
        """The words worth typo tolerance: those no paper contains as typed that have a fuzzy form. Fuzzy
        matching costs several times an exact word, so known words go without it (DECISIONS.md
        D-044)."""
        return frozenset(t.casefold() for t in self.parsed.terms if t.casefold() in unknown and self.typos(t, True))

    def can_relax(self, has_typo_fallback: bool) -> bool:
        """Whether the relaxed form differs from the strict one: several words, a word of several tokens
        ("gpt-4", a Chinese run of 3+ characters: several bigrams), or a word typo tolerance applies to."""
        terms = self.parsed.terms
        return len(terms) > 1 or has_typo_fallback or any(
            len(_TOKEN.findall(t)) > 1 or (has_cjk(t) and len(t) > 2) for t in terms)

    @property
    def spelling_words(self) -> tuple[str, ...]:
        """The plain words worth a spelling check: Latin script, not too short, each once, the first few."""
        settings = self.config.spelling
        words = dict.fromkeys(t.casefold() for t in self.parsed.terms
                              if len(t) >= settings.min_length and not has_cjk(t) and LATIN_WORD.fullmatch(t))
        return tuple(words)[:settings.max_words]

    @property
    def zh_spelling(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The Chinese runs worth a spelling check, each with its candidates (query/zh_spelling.py): glossary names
        one character from it (issue 57.4)."""
        settings = self.config.spelling
        runs = dict.fromkeys(t for t in self.parsed.terms if has_cjk(t))
        found = ((run, candidates(run, settings.zh_min_length, settings.zh_candidates)) for run in runs)
        return tuple((run, names) for run, names in found if names)


def typed_as_name(typed: str) -> bool:
    """A word typed as a name is: a capital, then small letters (Hinton, Schölkopf; not GAN, LoRA, bert)."""
    return typed[:1].isupper() and typed[1:].islower()


def _other_language(words: list[str]) -> str | None:
    """The language papers cannot share these words with: zh for Latin-script words, en for Chinese."""
    scripts = {has_cjk(w) for w in words}
    return None if len(scripts) != 1 else ("en" if scripts.pop() else "zh")
