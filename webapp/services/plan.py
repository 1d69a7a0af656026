"""A search request as one plan: which clauses, for which words, at which tier of the ladder, with which boost.

SearchService makes one plan per request it sends (the words as typed; the relaxed tier when they find
too few papers; the did-you-mean check) and webapp/services/render.py turns each into the Elasticsearch
body, in one place. The plan is plain data, so it can be shown whole (`describe`, logged at DEBUG for
every search; `python -m webapp.explain QUERY`) and each part priced by the benchmark
(bench/query_cost.py --parts). Why each part is there and what it costs: DECISIONS.md "Search cost".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from papersearch.text import has_cjk
from webapp.domain import SearchParams
from webapp.services import relaxation as rx
from webapp.services import request_parts as rp
from webapp.services.expansion import Expansion
from webapp.services.query_parser import Clause, ParsedQuery
from webapp.services.word_queries import Fuzzy, fuzzy_clause

Tier = Literal["as_typed", "relaxed", "check"]


@dataclass(frozen=True)
class Concept:
    """A glossary concept among the words: its other forms and tag, searched as one alternative."""

    ids: tuple[str, ...]
    en: tuple[str, ...]
    zh: tuple[str, ...]
    typed: str  # what was typed for it (a whole word, several, or a part of one Chinese term)
    first: int  # the words it came from: words[first:last + 1] (or a part of words[first])
    last: int

    @classmethod
    def of(cls, e: Expansion) -> Concept:
        return cls(e.ids, e.en, e.zh, e.typed, e.first, e.last)


@dataclass(frozen=True)
class Word:
    """One word of the search box: all its tokens in any field (relaxed: most of them), its typo fallback,
    and the concepts it may also be matched by."""

    index: int
    text: str
    fuzzy: bool = False  # a low-boost typo fallback beside it
    concept: Concept | None = None  # the word is (part of) a concept typed as whole words …
    share: float = 1.0  # … carrying this share of the concept's weight
    inside: tuple[Concept, ...] = ()  # concepts inside a long Chinese term


@dataclass(frozen=True)
class Text:
    """The words: each one clause, `required` of them must match."""

    words: tuple[Word, ...]
    required: str = rx.ALL_WORDS
    relaxed: bool = False  # words need most of their tokens, and each word's clause is named (word:<i>)
    # Papers written in this language need only the concepts (their words cannot be shared): "zh" for
    # Latin-script words typed beside a concept, "en" for Chinese ones; None: all words as above.
    other_language: str | None = None
    groups: tuple[Concept, ...] = ()  # the concepts typed as whole words (what other_language requires)


@dataclass(frozen=True)
class Highlight:
    """What the page marks: the words, phrases and field clauses, and the concepts' other forms."""

    words: tuple[str, ...]
    phrases: tuple[str, ...] = ()
    fields: tuple[Clause, ...] = ()
    forms: tuple[Concept, ...] = ()


@dataclass(frozen=True)
class Plan:
    tier: Tier
    text: Text | None
    phrases: tuple[str, ...] = ()
    fields: tuple[Clause, ...] = ()  # title:/author:/abstract:/topic: clauses (required)
    excluded: tuple[Clause, ...] = ()
    proximity: tuple[str, ...] = ()  # the words whose closeness is rewarded (only reorders)
    # Relaxed tier: papers with every word as typed first (all_words), then with every word once typos are
    # forgiven (all_words_typos), then the rest.
    all_words: Text | None = None
    all_words_typos: Text | None = None
    count_as_typed: Text | None = None  # count the papers the words as typed find (the ladder decides on it)
    spelling: tuple[str, ...] = ()  # words checked for "did you mean" (suggestions, whole-index counts)
    highlight: Highlight | None = None
    params: SearchParams = field(default_factory=SearchParams)


    @property
    def cacheable(self) -> bool:
        """No words, only filters (the browse page, a topic's page): the same request for everyone, worth
        Elasticsearch's shard request cache (DECISIONS.md "Search cost: facets of huge result sets")."""
        return not (self.text or self.phrases or self.fields or self.excluded)


# --- making plans ---------------------------------------------------------------------------------------


def _fuzzy(term: str, fuzzy: Fuzzy, config: dict) -> bool:
    wanted = fuzzy if isinstance(fuzzy, bool) else term.casefold() in fuzzy
    return wanted and fuzzy_clause(term, config) is not None


def _other_language(words: list[str]) -> str | None:
    """The language papers cannot share these words with: zh for Latin-script words, en for Chinese."""
    scripts = {has_cjk(w) for w in words}
    return None if len(scripts) != 1 else ("en" if scripts.pop() else "zh")


def text(terms: list[str], found: list[Expansion], config: dict, fuzzy: Fuzzy = True, relaxed: bool = False,
         other_language: bool = True) -> Text | None:
    """The words with the concepts recognised among them (see DECISIONS.md "Cross-lingual search"): every
    typed word stays one clause, so "most words must match" counts as before; a word that is part of a
    concept may also be matched by the concept, each of the concept's words carrying an equal share of
    its weight; concepts inside a longer Chinese term give that term a second way to match. Papers written
    in the other language need only match the concepts when other words were typed beside them
    ("concrete cracks": Chinese papers about 混凝土); without other_language, only the words in their own
    language (what the ladder counts and ranks first)."""
    if not terms:
        return None
    whole = {k: e for e in found if e.whole_terms for k in range(e.first, e.last + 1)}
    inside: dict[int, list[Expansion]] = {}
    for e in found:
        if not e.whole_terms:
            inside.setdefault(e.first, []).append(e)
    words: list[Word] = []
    others: list[str] = []  # the words that are no concept
    for i, term in enumerate(terms):
        word = Word(i, term, _fuzzy(term, fuzzy, config))
        if i in whole:
            e = whole[i]
            word = Word(i, term, word.fuzzy, Concept.of(e), share=1 / (e.last - e.first + 1))
        elif i in inside:
            word = Word(i, term, word.fuzzy, inside=tuple(Concept.of(e) for e in inside[i]))
        else:
            others.append(term)
        words.append(word)
    language = _other_language(others) if other_language and found and others else None
    groups = tuple(Concept.of(e) for e in found if e.whole_terms) if language else ()
    return Text(tuple(words), rx.words_required(config, relaxed), relaxed, language, groups)


def first(parsed: ParsedQuery, params: SearchParams, config: dict, found: list[Expansion],
          fuzzy: Fuzzy = False, as_typed_fuzzy: bool = False) -> Plan:
    """The first request: every word as typed (typo-tolerant everywhere on a core index), with the concepts
    searched in both languages; counts the words as typed apart when the concepts let other papers in,
    and checks the spelling of the words."""
    words = text(parsed.terms, found, config, fuzzy)
    as_typed = text(parsed.terms, found, config, as_typed_fuzzy, other_language=False)
    count = as_typed if found and as_typed != words else None
    return Plan(
        "as_typed", words, tuple(parsed.phrases), _required_fields(parsed), _excluded(parsed),
        proximity=_proximity(parsed.terms), count_as_typed=count, spelling=tuple(rp.spelling_words(parsed.terms)),
        highlight=_highlight(parsed, found), params=params)


def relaxed(parsed: ParsedQuery, params: SearchParams, config: dict, found: list[Expansion],
            typos: Fuzzy, as_typed_fuzzy: bool = False) -> Plan:
    """The ladder's last step: most of the words (typo-tolerant on `typos`), each word's clause named so a
    hit tells which it lacks; the papers with every word first, then those with every word once typos are
    forgiven."""
    words = text(parsed.terms, found, config, typos, relaxed=True, other_language=False)
    all_words = text(parsed.terms, found, config, as_typed_fuzzy, other_language=False)
    forgiven = (text(parsed.terms, found, config, typos, other_language=False)
                if typos and not as_typed_fuzzy else None)
    return Plan(
        "relaxed", words, tuple(parsed.phrases), _required_fields(parsed), _excluded(parsed),
        proximity=_proximity(parsed.terms), all_words=all_words, all_words_typos=forgiven,
        highlight=_highlight(parsed, found), params=params)


def check(parsed: ParsedQuery, params: SearchParams, config: dict) -> Plan:
    """Whether a search (a corrected one: "did you mean") finds any paper under the page's filters."""
    return Plan("check", text(parsed.terms, [], config), tuple(parsed.phrases), _required_fields(parsed),
                _excluded(parsed), params=params)


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


# --- showing a plan -------------------------------------------------------------------------------------


def describe(plan: Plan) -> str:
    """The plan in a few lines: what is searched, for which words, at which tier (a debug log line, the
    explain command)."""
    p = plan.params
    lines = [f"{plan.tier}: sort {p.sort}, page {p.page} x {p.size}"
             + (", filters " + ", ".join(_filters(p)) if p.has_filters else "")]
    if plan.text:
        lines.append(f"  words ({plan.text.required} required{', relaxed' if plan.text.relaxed else ''}):")
        lines += [f"    {_word(w)}" for w in plan.text.words]
        if plan.text.other_language:
            lines.append(f"  or, for papers in {plan.text.other_language}: only the concepts "
                         + ", ".join("+".join(c.ids) for c in plan.text.groups))
    lines += [f'  phrase "{ph}"' for ph in plan.phrases]
    lines += [f"  field {c.to_string()}" for c in plan.fields]
    lines += [f"  excluded {c.to_string()}" for c in plan.excluded]
    if plan.proximity:
        lines.append(f"  closeness of {' '.join(plan.proximity)} rewarded")
    if plan.all_words:
        lines.append("  ranked first: papers with every word" + (", then every word with typos forgiven"
                                                                  if plan.all_words_typos else ""))
    if plan.count_as_typed:
        lines.append("  counted apart: the words as typed, in their own language")
    if plan.spelling:
        lines.append(f"  spelling checked: {', '.join(plan.spelling)}")
    if plan.highlight:
        lines.append("  highlighted: the words, phrases and fields" + (
            ", and the concepts' other forms" if plan.highlight.forms else ""))
    return "\n".join(lines)


def _word(w: Word) -> str:
    out = f"{w.index}: {w.text!r}" + (" ~typos" if w.fuzzy else "")
    if w.concept:
        out += (f" or concept {'+'.join(w.concept.ids)} (tag, {len(w.concept.en)} en / {len(w.concept.zh)} zh forms"
                + (f", share {w.share:.2f}" if w.share != 1 else "") + ")")
    for c in w.inside:
        out += f" or its part {c.typed!r} = concept {'+'.join(c.ids)}"
    return out


def _filters(p: SearchParams) -> list[str]:
    out = [f"area={a}" for a in p.areas] + [f"subarea={s}" for s in p.subareas]
    out += [f"{k}={v}" for k, vs in p.filters.items() for v in vs]
    return out + [f"{k}={v}" for k, v in p.ranges.items()]
