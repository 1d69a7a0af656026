"""Cross-lingual query expansion: the glossary concepts recognised in what was typed, searched in
both languages alongside the words as typed.

Structured as in Pirkola's method (DECISIONS.md "Cross-lingual search"): each recognised concept
becomes one dis_max group — the words as typed, every other form of the concept as a phrase in its
language's fields, and the papers tagged with the concept — so a concept with many forms or
acronyms counts as one query word, and words that are not concepts count as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from papersearch.concepts import Concept, ConceptMatcher
from papersearch.concepts.glossary import form_key
from papersearch.index_definition import concepts_config
from papersearch.text import has_cjk
from webapp.services import query_builders as qb

Query = qb.Query


@dataclass(frozen=True)
class Expansion:
    """One concept recognised in the query (several ids when the typed form is ambiguous)."""

    first: int  # the parsed terms it came from: terms[first:last + 1] …
    last: int
    typed: str  # … or this part of one Chinese term (whole_terms False)
    whole_terms: bool
    ids: tuple[str, ...]
    en: tuple[str, ...]  # English forms searched besides what was typed
    zh: tuple[str, ...]  # Chinese forms searched besides what was typed
    shown: tuple[str, ...]  # the names the page says were also searched

    @property
    def typed_language(self) -> str:
        return "zh" if has_cjk(self.typed) else "en"


def _other_forms(concepts: list[Concept], language: str, typed: str, limit: int) -> tuple[str, ...]:
    """Each concept's forms in one language, up to `limit` per concept, without the typed one."""
    typed_key = form_key(typed, language) if (language == "zh") == has_cjk(typed) else None
    out: dict[str, None] = {}
    for concept in concepts:
        forms = concept.en if language == "en" else concept.zh
        kept = [f for f in forms if form_key(f, language) != typed_key]
        out |= dict.fromkeys(kept[:limit])
    return tuple(out)


def _shown(concepts: list[Concept], typed: str) -> tuple[str, ...]:
    """The other language's name of each concept, and its own language's name when something else
    (an acronym, a synonym) was typed: "LLM" → large language model, 大语言模型."""
    typed_zh = has_cjk(typed)
    names: list[str] = []
    for concept in concepts:
        own = concept.name_zh if typed_zh else concept.name_en
        if form_key(own, "zh" if typed_zh else "en") != form_key(typed, "zh" if typed_zh else "en"):
            names.append(own)
    names += [c.name_en if typed_zh else c.name_zh for c in concepts]
    return tuple(dict.fromkeys(names))


def expansions(terms: list[str], matcher: ConceptMatcher, max_forms: int) -> list[Expansion]:
    """The concepts in the parsed query terms, with the forms to search for each."""
    out: list[Expansion] = []
    for m in matcher.recognise(terms):
        concepts = [matcher.concepts[i] for i in m.ids]
        out.append(Expansion(
            first=m.first, last=m.last, typed=m.text, whole_terms=m.whole_terms, ids=m.ids,
            en=_other_forms(concepts, "en", m.text, max_forms),
            zh=_other_forms(concepts, "zh", m.text, max_forms),
            shown=_shown(concepts, m.text),
        ))
    return out


# --- query pieces ------------------------------------------------------------------------------------


def form_fields(config: dict, language: str) -> dict[str, float]:
    """The query fields of one script (authors left out: a concept is not a name)."""
    authors = set(config["field_aliases"]["author"])
    return {name: boost for name, boost in config["query_fields"].items()
            if name not in authors and qb.is_chinese_field(name) == (language == "zh")}


def concept_clause(expansion: Expansion, typed: Query, config: dict) -> Query:
    """One group per concept: the words as typed, or any other form as a phrase, or the concept tag;
    the best of them scores (dis_max), so many forms do not add up."""
    settings = config["cross_lingual"]
    alternatives = [typed]
    for language, forms in (("en", expansion.en), ("zh", expansion.zh)):
        fields = form_fields(config, language)
        alternatives += [qb.phrase_clause(form, fields) for form in forms]
    alternatives.append({"terms": {concepts_config()["field"]: list(expansion.ids),
                                   "boost": settings["concept_boost"]}})
    return {"dis_max": {"queries": alternatives, "tie_breaker": settings["tie_breaker"]}}


def _all_of(clauses: list[Query]) -> Query:
    return clauses[0] if len(clauses) == 1 else {"bool": {"must": clauses}}


def expanded_text_clause(terms: list[str], found: list[Expansion], config: dict, fuzzy: bool = True) -> Query | None:
    """qb.text_clause with each recognised concept as one group.

    A concept covering whole terms replaces them by its group. Concepts found inside a longer
    Chinese term ("基于对比学习的图像分类") give that term a second way to match: all its concepts'
    groups, so a paper in the other language need not contain the Chinese words around them. For
    the same reason papers in the other language need only match the concepts when other words
    were typed beside them ("concrete cracks": Chinese papers about 混凝土; the words as typed still
    rank them).
    """
    if not found:
        return qb.text_clause(terms, config, fuzzy)
    if not terms:
        return None
    starting: dict[int, list[Expansion]] = {}
    for e in found:
        starting.setdefault(e.first, []).append(e)
    groups: list[Query] = []
    others: list[str] = []  # the terms that are no concept
    clauses: list[Query] = []
    skip_to = 0
    for i, term in enumerate(terms):
        if i < skip_to:
            continue
        here = starting.get(i, [])
        typed = qb.term_clause(term, config, fuzzy)
        if not here:
            clauses.append(typed)
            others.append(term)
        elif len(here) == 1 and here[0].whole_terms:
            e = here[0]
            words = [qb.term_clause(t, config, fuzzy) for t in terms[e.first:e.last + 1]]
            clauses.append(concept_clause(e, _all_of(words), config))
            groups.append(clauses[-1])
            skip_to = e.last + 1
        else:
            parts = _all_of([concept_clause(e, qb.term_clause(e.typed, config, fuzzy=False), config) for e in here])
            clauses.append({"bool": {"should": [typed, parts], "minimum_should_match": 1}})
            groups.append(parts)
    if len(clauses) == 1:
        return clauses[0]
    as_typed: Query = {"bool": {"should": clauses, "minimum_should_match": qb.MANY_TERMS}}
    other_language = _other_language(others)
    if not groups or other_language is None:
        return as_typed
    in_other_language: Query = {"bool": {
        "must": groups,
        "should": [qb.term_clause(t, config, fuzzy=False) for t in others],
        "filter": [_written_in(other_language)],
    }}
    return {"bool": {"should": [as_typed, in_other_language], "minimum_should_match": 1}}


def _other_language(words: list[str]) -> str | None:
    """The language papers cannot share these words with: zh for Latin-script words, en for Chinese."""
    scripts = {has_cjk(w) for w in words}
    return None if len(scripts) != 1 else ("en" if scripts.pop() else "zh")


def _written_in(language: str) -> Query:
    return {"term": {concepts_config()["language_field"]: language}}
