"""Every decision of a search, in one place: which requests it sends, in which order, with which clauses for
which words, and what each answer decides next. Plain data, no Elasticsearch syntax: render.py writes the
bodies, search.py sends them and reads the answers back into the numbers this module decides on.

A search is at most three rounds (DECISIONS.md D-044, D-092, D-100):
1. the words as typed (`Page`, tier "as_typed"), with a count of the papers the words alone find when concepts
   let papers of the other language in (`Count`); on a core index also the spelling check (`Spelling`);
2. when those words find fewer than relaxation.below papers: the spelling check, if not sent yet;
3. when no paper has the words and a correction exists: the corrected query's page, shown as its results
   ("Showing results for"; if it finds nothing either, round 3 below follows); else most of the words,
   typo-tolerant on the words no paper contains (`Page`, tier "relaxed"), beside the check that a corrected
   query finds anything ("did you mean", `Page` tier "check").
On an index above large_index.above papers the page's facets are a request of their own (`Facets`).
`python -m webapp.explain QUERY` prints every request of a search with its plan (describe.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from papersearch.text import ENGLISH_STOPWORDS, has_cjk, math_spellings
from webapp.domain import SearchParams
from webapp.services.expansion import Expansion
from webapp.services.query_parser import LATIN_WORD, Clause, ParsedQuery
from webapp.services.search_requests import (
    Concept,
    Count,
    Facets,
    Fuzzy,
    Highlight,
    Live,
    Option,
    Page,
    Request,
    Spelling,
    Text,
    Third,
    Tier,
    Typos,
    Word,
)
from webapp.services.search_settings import WebSearchConfig

__all__ = ["Concept", "Count", "Facets", "Fuzzy", "Highlight", "Live", "Option", "Page", "Request", "Search",
           "Spelling", "Text", "Third", "Tier", "Typos", "Word"]
_TOKEN = re.compile(r"\w+")

def cost(parsed: ParsedQuery, found: tuple[Expansion, ...] | list[Expansion], size: int,
         config: WebSearchConfig) -> int:
    """A search's weight in the rate limit, in units of a plain search (config query_cost): its clauses, the
    concepts it expands to and the results it asks for are what Elasticsearch spends its time on (a query of 32
    concept names cost ~100 times q=learning, issue 45.2)."""
    spec = config.query_cost
    units = 1 + max(0, len(parsed.clauses) - 1) // spec.clauses_per_unit + spec.concept_units * len(found)
    units += max(0, size - 1) // spec.results_per_unit
    return max(1, min(spec.max_units, units))


# --- the ladder -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Search:
    """One search's inputs; each method below is one of its decisions."""

    parsed: ParsedQuery
    params: SearchParams
    config: WebSearchConfig
    found: tuple[Expansion, ...] = ()
    live: Live = field(default_factory=Live)

    @property
    def core(self) -> bool:
        """A core index has no stemming or folding: typo tolerance everywhere from the first request, and the
        spelling check with it (DECISIONS.md D-100)."""
        return self.live.profile == "core"

    @property
    def large(self) -> bool:
        return self.live.papers > self.config.large_index.above

    def first(self) -> tuple[Page, Count | None, Spelling | None]:
        """Round 1: the words as typed; a count of them apart when concepts let other papers in; on a core
        index the spelling check."""
        words = self.text(self.core)
        as_typed = self.text(self.core, other_language=False)
        count = Count(as_typed, self.params, self.below) if self.found and as_typed != words else None
        spelling = Spelling(self.spelling_words) if self.core and self.spelling_words else None
        return self.page("as_typed", words), count, spelling

    @property
    def below(self) -> int:
        return self.config.relaxation.below

    def too_few(self, as_typed: int) -> bool:
        return as_typed < self.below

    def second(self, as_typed: int, corrected: bool) -> Spelling | None:
        """Round 2: the spelling check, when too few papers were found (or a correction is known) and it was
        not sent with the first request."""
        if (self.too_few(as_typed) or corrected) and not self.core and self.spelling_words:
            return Spelling(self.spelling_words)
        return None

    def third(self, as_typed: int, unknown: frozenset[str], corrected: ParsedQuery | None,
              show_corrected: bool = True) -> Third:
        """Round 3: when nothing has the words as typed, the corrected query's results (unless the search asks
        for the words as typed only, spell=0); else the relaxed page (when too few were found and relaxing
        changes anything), and the did-you-mean check of the corrected query."""
        if not (self.too_few(as_typed) or corrected):
            return Third()
        if corrected and as_typed == 0 and show_corrected and self.params.spell:
            return Third(corrected=corrected)
        typos: Fuzzy = True if self.core else self.typo_words(unknown)
        check = self.check(corrected) if corrected else None
        # On a core index the first request was typo-tolerant already: typos alone are no reason to relax.
        if not (self.too_few(as_typed) and self.can_relax(bool(typos) and not self.core)):
            return Third(check=check)
        return Third(self.relaxed(typos), check)

    def corrections(self, counts: dict[str, int], options: dict[str, list[Option]]
                    ) -> tuple[frozenset[str], ParsedQuery | None]:
        """From the spelling check's numbers (papers with each word, counted up to spelling.rare_below; the
        suggesters' options): the words no paper contains, and the query with every likely typo corrected. A
        word no paper has is corrected to a neighbour in min_freq papers or more, or to a close one (score at
        least `close`: one edit in a long word, deraning → deraining) however rare (qwxzv is not qxcv: two
        edits in five letters, one paper); a word typed as a name to an author's name when one is among
        them; a word in fewer than rare_below papers only to a close one in at
        least `commoner` times as many, with the same first letter (transfomer → transformer; tenses is not tensor,
        healing not dealing). Of the options
        within `near` of the best score, the commonest (langguage → language, not lanuguage)."""
        settings = self.config.spelling
        fixes: dict[str, str] = {}
        typed = {t.casefold(): t for t in reversed(self.parsed.terms)}
        for word, papers in counts.items():
            close = [o for o in options.get(word, []) if o.text != word and o.score >= settings.close]
            if papers == 0:
                good = close + [o for o in options.get(word, []) if o.freq >= settings.min_freq]
            else:  # and it keeps its first letter: a rare word some papers spell so is seldom a first-letter typo
                good = [o for o in close if o.freq >= settings.commoner * papers and o.text[:1] == word[:1]]
            if _name_like(typed.get(word, word)) and any(o.author for o in good):
                good = [o for o in good if o.author]  # Hintn: Hinton, not hints
            if papers < settings.rare_below and good:
                best = max(o.score for o in good)
                fixes[word] = max((o for o in good if o.score >= best - settings.near), key=lambda o: o.freq).text
        unknown = frozenset(w for w, papers in counts.items() if papers == 0)
        return unknown, self.parsed.replace_terms(fixes) if fixes else None

    @staticmethod
    def show_relaxed(relaxed_total: int, relaxed_exact: bool, first_total: int, first_exact: bool) -> bool:
        """Whether the relaxed page is shown: it found more papers (when both totals stop at the count limit,
        it is: the words as typed found too few in their own language)."""
        return relaxed_total > first_total or not (relaxed_exact or first_exact)

    def facets(self, shown: Page, total_exact: bool) -> Facets | None:
        """A large index's facets: exact, or estimated from a random sample (Live.sample_probability)."""
        return Facets(shown, self.live.sample_probability(self.config, total_exact)) if self.large else None

    # --- the pages ------------------------------------------------------------------------------------

    def page(self, tier: Tier, words: Text | None, **tiers: Text | None) -> Page:
        p = self.parsed
        # The concepts' names in the other language are rewarded for closeness as the words typed are (not for
        # one Latin word, whose papers get no such reward: the other language's would outrank them).
        proximity = _proximity([t for t, group in zip(p.terms, p.term_groups, strict=True) if not group])
        names = tuple(dict.fromkeys(n for e in self.found if e.whole_terms for n in (e.en_words, e.zh_words) if n))
        return Page(tier, words, tuple(p.phrases), _required_fields(p), _excluded(p), proximity=proximity,
                    close_names=names if proximity else (), highlight=_highlight(p, list(self.found)),
                    params=self.params, hits_only=self.large, **tiers)

    def relaxed(self, typos: Fuzzy) -> Page:
        """The ladder's last step: most of the words (typo-tolerant on `typos`), each word's clause named so a
        hit tells which it lacks; the papers with every word first, then those with every word once typos are
        forgiven."""
        words = self.text(typos, relaxed=True, other_language=False)
        all_words = self.text(self.core, other_language=False)
        forgiven = self.text(typos, other_language=False) if typos and not self.core else None
        return self.page("relaxed", words, all_words=all_words, all_words_typos=forgiven)

    def check(self, corrected: ParsedQuery) -> Page:
        """Whether a corrected search finds any paper under the page's filters."""
        return Page("check", Search(corrected, self.params, self.config).text(True), tuple(corrected.phrases),
                    _required_fields(corrected), _excluded(corrected), params=self.params)

    # --- the words ------------------------------------------------------------------------------------

    def text(self, fuzzy: Fuzzy = True, relaxed: bool = False, other_language: bool = True) -> Text | None:
        """The words with the concepts recognised among them (see DECISIONS.md D-033): every
        typed word stays one clause, so "most words must match" counts as before; a word that is part of a
        concept may also be matched by the concept, each of the concept's words carrying an equal share of
        its weight; concepts inside a longer Chinese term give that term a second way to match. Papers
        written in the other language need only match the concepts when other words were typed beside them
        ("concrete cracks": Chinese papers about 混凝土); without other_language, only the words in their
        own language (what the ladder counts and ranks first)."""
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
        # Stop words match every paper (the stemmed fields drop them), so they are no clause of their own and do
        # not count among "most of the words"; unless they are all there is, or part of a concept.
        stop = {i for i, t in enumerate(terms) if t.casefold() in ENGLISH_STOPWORDS and i not in whole}
        if len(stop) == len(terms):
            stop = set()
        ors = self.parsed.term_groups
        heads: dict[int, int] = {}  # an OR group → its first word's place in `words`
        for i, term in enumerate(terms):
            if i in stop:
                continue
            typos = self.typos(term, fuzzy)
            spellings = tuple(Word(i, s) for s in math_spellings(term))
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
        language = _other_language(others) if other_language and self.found and others else None
        groups = tuple(Concept.of(e) for e in self.found if e.whole_terms) if language else ()
        return Text(tuple(words), self.required(len(words), relaxed), relaxed, language, groups)

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


def _name_like(typed: str) -> bool:
    """A word typed as a name is: a capital, then small letters (Hinton; not GAN, not bert)."""
    return typed[:1].isupper() and typed[1:].islower()


def _other_language(words: list[str]) -> str | None:
    """The language papers cannot share these words with: zh for Latin-script words, en for Chinese."""
    scripts = {has_cjk(w) for w in words}
    return None if len(scripts) != 1 else ("en" if scripts.pop() else "zh")


def _required_fields(parsed: ParsedQuery) -> tuple[Clause, ...]:
    return tuple(c for c in parsed.field_clauses if not c.excluded)


def _excluded(parsed: ParsedQuery) -> tuple[Clause, ...]:
    return tuple(c for c in parsed.clauses if c.excluded)


def _proximity(terms: list[str]) -> tuple[str, ...]:
    """Closeness is worth rewarding for several words, or within a Chinese run."""
    return tuple(terms) if len(terms) >= 2 or any(has_cjk(t) for t in terms) else ()


def _highlight(parsed: ParsedQuery, found: list[Expansion]) -> Highlight:
    return Highlight(tuple(parsed.terms), tuple(parsed.phrases), _required_fields(parsed),
                     tuple(Concept.of(e) for e in found))
