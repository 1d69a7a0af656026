"""Every decision of a search, in one place: which rounds it sends, in which order, with which requests, and
what each round's answers decide next, down to what the visitor is shown (`Outcome`). Plain data, no
Elasticsearch syntax (the vocabulary is requests.py's, the words words.py's): bodies/render.py writes the
bodies, search.py sends each round and reads its answers back into the numbers this module decides on.

`Search.rounds` is the ladder (DECISIONS.md D-044, D-092, D-100), each round named by what it does:
- as_typed: the words as typed (`Page`, tier "as_typed"), with a count of the papers the words alone find when
  concepts let papers of the other language in (`Count`); on a core index also the spelling check (`Spelling`);
- spelling_check: when those words find fewer than relaxation.below papers, the spelling check if not sent yet;
- corrected: when no paper has the words and a correction exists, the corrected query's page, shown as its
  results ("Showing results for"); if it finds nothing either, the steps below follow;
- relaxed: when too few were found, most of the words, typo-tolerant on the words no paper contains (`Page`,
  tier "relaxed"), beside the check that a corrected query finds anything ("did you mean", `Page` tier "check");
- did_you_mean: that check alone, when relaxing changes nothing;
- facets: on an index above large_index.above papers the shown page's facets, a request of their own (`Facets`).
`python -m webapp.explain QUERY` prints every request of a search with its plan (describe.py).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from papersearch.text import has_cjk
from webapp.domain import PartialMatch, SearchParams
from webapp.services.plan.requests import (
    Count,
    Facets,
    Found,
    Live,
    Option,
    Page,
    Reading,
    Round,
    Spelled,
    Spelling,
    Tier,
)
from webapp.services.plan.words import Concept, Fuzzy, Highlight, Text, Words, typed_as_name
from webapp.services.query.expansion import Expansion
from webapp.services.query.parser import Clause, ParsedQuery
from webapp.services.search_settings import WebSearchConfig

# Names in SearchResult.fallbacks (see webapp/domain.py): results that are typo-tolerant and for most of
# the words (the ladder's relaxed step), a correction offered, the corrected query's results shown.
RELAXED, DID_YOU_MEAN, CORRECTED = "relaxed", "did_you_mean", "corrected"
SIMILAR_AUTHORS = "similar_authors"  # an author: name no paper has: similar names searched (author_names.py)
# The concepts recognised in a query (the service's glossary look-up), for the corrected query's own page.
Expand = Callable[[ParsedQuery], tuple[Expansion, ...]]


def cost(parsed: ParsedQuery, found: tuple[Expansion, ...] | list[Expansion], size: int,
         config: WebSearchConfig) -> int:
    """A search's weight in the rate limit, in units of a plain search (config query_cost): its clauses, the
    concepts it expands to and the results it asks for are what Elasticsearch spends its time on (a query of 32
    concept names cost ~100 times q=learning, issue 45.2)."""
    spec = config.query_cost
    units = 1 + max(0, len(parsed.clauses) - 1) // spec.clauses_per_unit + spec.concept_units * len(found)
    units += max(0, size - 1) // spec.results_per_unit
    return max(1, min(spec.max_units, units))


@dataclass(frozen=True)
class Fallback:
    """What follows when the words as typed found too few: the corrected query whose results are shown, or the
    relaxed page and the did-you-mean check (either may be None: nothing to do)."""

    relaxed: Page | None = None
    check: Page | None = None
    corrected: ParsedQuery | None = None


@dataclass(frozen=True)
class Outcome:
    """What the search shows: the answer of the page shown (`shown`, read) and that page (whose words tell a
    hit which it lacks), the concepts it was searched with, the fallbacks taken, and a large index's facets
    request with its aggregations (else the shown answer carries them)."""

    shown: Found
    page: Page
    found: tuple[Expansion, ...]
    fallbacks: tuple[str, ...] = ()
    showing_for: str | None = None
    did_you_mean: str | None = None
    partial: PartialMatch | None = None  # the relaxed page is shown: papers with every word come first
    similar_authors: tuple[str, ...] = ()
    facets: Facets | None = None
    aggregations: dict[str, Any] | None = None


# The ladder: yields each round, is sent the round's readings (one per request, in order), returns the outcome.
Ladder = Generator[Round, list[Reading], Outcome]


# --- the ladder -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Search:
    """One search's inputs; `rounds` is its ladder, each method below one of its decisions."""

    parsed: ParsedQuery
    params: SearchParams
    config: WebSearchConfig
    found: tuple[Expansion, ...] = ()
    live: Live = field(default_factory=Live)

    @property
    def words(self) -> Words:
        return Words(self.parsed, self.found, self.config, glossed=self.params.xl)  # xl=0: no glosses either

    @property
    def core(self) -> bool:
        """A core index has no stemming or folding: typo tolerance everywhere from the first request, and the
        spelling check with it (DECISIONS.md D-100)."""
        return self.live.profile == "core"

    @property
    def large(self) -> bool:
        return self.live.papers > self.config.large_index.above

    def rounds(self, expand: Expand) -> Ladder:
        """The search, round by round (`expand`: the concepts of the corrected query, for its own page)."""
        page, count, spelling = self.as_typed()
        found, *rest = yield Round("as_typed", tuple(r for r in (page, count, spelling) if r))
        assert isinstance(found, Found)  # the words as typed never fail quietly
        counted = rest.pop(0) if count else None
        as_typed = (counted if isinstance(counted, Found) else found).total
        spelled = rest[0] if spelling else None
        if check_spelling := self.spelling_check(as_typed):
            spelled, = yield Round("spelling_check", (check_spelling,))
        unknown, corrected = (self.corrections(spelled.counts, spelled.options) if isinstance(spelled, Spelled)
                              else (frozenset(), None))
        shown, shown_page, concepts = found, page, self.found
        fallbacks: list[str] = []
        partial, showing_for, confirmed = None, None, False
        fallback = self.fallback(as_typed, unknown, corrected)
        if fallback.corrected:
            fixed = Search(fallback.corrected, self.params, self.config, expand(fallback.corrected), self.live)
            fixed_page = fixed.page("as_typed", fixed.words.text(fixed.core))
            answer, = yield Round("corrected", (fixed_page,))
            if isinstance(answer, Found) and answer.total:
                shown, shown_page, concepts = answer, fixed_page, fixed.found
                showing_for = fallback.corrected.to_string()
                fallbacks.append(CORRECTED)
            else:  # the relaxed page, without a did-you-mean check: the correction found nothing
                fallback = self.fallback(as_typed, unknown, None)
        if fallback.relaxed:
            beside = (fallback.check,) if fallback.check else ()
            relaxed, *checked = yield Round("relaxed", (fallback.relaxed, *beside))
            confirmed = bool(checked) and _finds_any(checked[0])
            if isinstance(relaxed, Found) and self.show_relaxed(relaxed, shown):
                partial = PartialMatch(all_words=as_typed)  # the papers with every word, as typed, come first
                shown, shown_page = relaxed, fallback.relaxed
                fallbacks.append(RELAXED)
        elif fallback.check:
            checked = yield Round("did_you_mean", (fallback.check,))
            confirmed = _finds_any(checked[0])
        did_you_mean = corrected.to_string() if corrected and confirmed and not showing_for else None
        if did_you_mean:
            fallbacks.append(DID_YOU_MEAN)
        similar = tuple(c.text for c in self.parsed.clauses if c.fuzzy)
        if similar:
            fallbacks.append(SIMILAR_AUTHORS)
        aggregations: Reading = None
        if facets := self.facets(shown_page, shown.exact):
            aggregations, = yield Round("facets", (facets,))
        return Outcome(shown, shown_page, concepts, tuple(fallbacks), showing_for, did_you_mean, partial, similar,
                       facets, aggregations if isinstance(aggregations, dict) else None)

    def as_typed(self) -> tuple[Page, Count | None, Spelling | None]:
        """The as_typed round: the words as typed; a count of them apart when concepts let other papers in; on
        a core index the spelling check."""
        words = self.words.text(self.core)
        as_typed = self.words.text(self.core, other_language=False)
        count = Count(as_typed, self.params, self.below) if self.found and as_typed != words else None
        spelling_words, zh = self.words.spelling_words, self.words.zh_spelling
        spelling = Spelling(spelling_words, zh) if self.core and (spelling_words or zh) else None
        return self.page("as_typed", words), count, spelling

    @property
    def below(self) -> int:
        return self.config.relaxation.below

    def too_few(self, as_typed: int) -> bool:
        return as_typed < self.below

    def spelling_check(self, as_typed: int) -> Spelling | None:
        """The spelling_check round: when too few papers were found, and it was not sent in the as_typed round
        (on a core index it was); a Chinese run one character from a glossary name whatever was found (its matches
        may be single characters of it: issue 57.4)."""
        if self.core:
            return None
        spelling_words = self.words.spelling_words if self.too_few(as_typed) else ()
        zh = self.words.zh_spelling
        return Spelling(spelling_words, zh) if spelling_words or zh else None

    def fallback(self, as_typed: int, unknown: frozenset[str], corrected: ParsedQuery | None) -> Fallback:
        """When nothing has the words as typed, the corrected query's results (unless the search asks for the
        words as typed only, spell=0); else the relaxed page (when too few were found and relaxing changes
        anything), and the did-you-mean check of the corrected query."""
        if not (self.too_few(as_typed) or corrected):
            return Fallback()
        if corrected and (as_typed == 0 or self.scraps(unknown, corrected)) and self.params.spell:
            return Fallback(corrected=corrected)
        typos: Fuzzy = True if self.core else self.words.typo_words(unknown)
        check = self.check(corrected) if corrected else None
        # On a core index the first request was typo-tolerant already: typos alone are no reason to relax.
        if not (self.too_few(as_typed) and self.words.can_relax(bool(typos) and not self.core)):
            return Fallback(check=check)
        return Fallback(self.relaxed(typos), check)

    def scraps(self, unknown: frozenset[str], corrected: ParsedQuery) -> bool:
        """Whether what the words as typed found is single-character scraps: a Chinese run no paper has, that the
        correction changes (强化学系 finds 毒鼠强中毒 by its characters; issue 57.4)."""
        changed = set(self.parsed.terms) - set(corrected.terms)
        return any(has_cjk(t) and t in unknown for t in changed)

    def corrections(self, counts: dict[str, int], options: dict[str, list[Option]]
                    ) -> tuple[frozenset[str], ParsedQuery | None]:
        """From the spelling check's numbers (papers with each word, counted up to spelling.rare_below; the
        suggesters' options): the words worth typo tolerance (no paper contains them, or a correction was found),
        and the query with every likely typo corrected. A
        word no paper has is corrected to a neighbour in min_freq papers or more, or to a close one (score at
        least `close`: one edit in a long word, deraning → deraining) however rare (qwxzv is not qxcv: two
        edits in five letters, one paper); a word typed as a name to an author's name when one is among
        them as close as the closest; a word in fewer than rare_below papers only to a close one in at
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
            if typed_as_name(typed.get(word, word)) and good:  # Hintn: Hinton, not hints, as close
                best = max(o.score for o in good)  # but not a farther name: a title's Neurl is neural, not Neil
                good = [o for o in good if o.author and o.score >= best - settings.near] or good
            if papers < settings.rare_below and good:
                best = max(o.score for o in good)
                fixes[word] = max((o for o in good if o.score >= best - settings.near), key=lambda o: o.freq).text
        # Typo tolerance is for the words no paper has and for the Latin ones a few papers spell so when a commoner
        # word is the likely one (transfomer: one paper, beside transformer's many; issue 57.5). A Chinese run is
        # unknown only when no paper has it (scraps).
        unknown = frozenset(w for w, papers in counts.items() if papers == 0)
        unknown |= frozenset(w for w in fixes if not has_cjk(w))
        return unknown, self.parsed.replace_terms(fixes) if fixes else None

    @staticmethod
    def show_relaxed(relaxed: Found, shown: Found) -> bool:
        """Whether the relaxed page is shown: it found more papers (when both totals stop at the count limit,
        it is: the words as typed found too few in their own language)."""
        return relaxed.total > shown.total or not (relaxed.exact or shown.exact)

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
                    close_names=names if proximity else (), highlight=_highlight(p, list(self.found), words),
                    params=self.params, hits_only=self.large, **tiers)

    def relaxed(self, typos: Fuzzy) -> Page:
        """The ladder's relaxed step: most of the words (typo-tolerant on `typos`), each word's clause named so
        a hit tells which it lacks; the papers with every word first, then those with every word once typos are
        forgiven."""
        words = self.words
        relaxed = words.text(typos, relaxed=True, other_language=False)
        all_words = words.text(self.core, other_language=False)
        forgiven = words.text(typos, other_language=False) if typos and not self.core else None
        return self.page("relaxed", relaxed, all_words=all_words, all_words_typos=forgiven)

    def check(self, corrected: ParsedQuery) -> Page:
        """Whether a corrected search finds any paper under the page's filters."""
        return Page("check", Words(corrected, (), self.config).text(True), tuple(corrected.phrases),
                    _required_fields(corrected), _excluded(corrected), params=self.params)


def _finds_any(reading: Reading) -> bool:
    """Whether a did-you-mean check found a paper (a failed one did not: a suggestion is optional)."""
    return isinstance(reading, Found) and reading.total > 0


def _required_fields(parsed: ParsedQuery) -> tuple[Clause, ...]:
    return tuple(c for c in parsed.field_clauses if not c.excluded)


def _excluded(parsed: ParsedQuery) -> tuple[Clause, ...]:
    return tuple(c for c in parsed.clauses if c.excluded)


def _proximity(terms: list[str]) -> tuple[str, ...]:
    """Closeness is worth rewarding for several words, or within a Chinese run."""
    return tuple(terms) if len(terms) >= 2 or any(has_cjk(t) for t in terms) else ()


def _highlight(parsed: ParsedQuery, found: list[Expansion], words: Text | None) -> Highlight:
    glosses = dict.fromkeys(g for w in (words.words if words else ()) for _, found_ in w.glosses for g in found_)
    return Highlight(tuple(parsed.terms), tuple(parsed.phrases), _required_fields(parsed),
                     tuple(Concept.of(e) for e in found), tuple(glosses))
