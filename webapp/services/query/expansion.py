"""Cross-lingual query expansion: the glossary concepts recognised in what was typed, and the forms
to search for each in both languages (the plan's Concept, rendered by bodies/text_query.py's concept_query and
text_query; DECISIONS.md D-033)."""

from __future__ import annotations

from dataclasses import dataclass

from papersearch.concepts import Concept, ConceptMatcher
from papersearch.concepts.english import is_acronym
from papersearch.concepts.glossary import form_key
from papersearch.text import has_cjk


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
    # The concept's name in the language it was not typed in, scored as that language's typed words are (one
    # of en/zh; the other ""): DECISIONS.md D-140.
    en_words: str = ""
    zh_words: str = ""

    @property
    def typed_language(self) -> str:
        return "zh" if has_cjk(self.typed) else "en"


def _other_forms(concepts: list[Concept], language: str, typed: str, limit: int) -> tuple[str, ...]:
    """Each concept's forms in one language, up to `limit` per concept, without the typed one nor (in the typed
    language) the forms that contain it: every paper they find has the typed words, which rank it better
    ("transformer" is not "Transformer Architecture")."""
    typed_key = form_key(typed, language) if (language == "zh") == has_cjk(typed) else None
    out: dict[str, None] = {}
    for concept in concepts:
        forms = concept.en if language == "en" else concept.zh
        kept = [f for f in forms if typed_key is None or not _contains(form_key(f, language), typed_key, language)]
        out |= dict.fromkeys(kept[:limit])
    return tuple(out)


def _contains(form: str, typed: str, language: str) -> bool:
    if language == "zh":
        return typed in form
    return f" {typed} " in f" {form} "


def name_as_words(concepts: list[Concept], language: str) -> str:
    """The first concept's name in a language as a reader types it: in English the form its id spells
    (nonconvex_optimization: "nonconvex optimization", not the taxonomy's "Non-Convex"), else the first form
    that is words, not an acronym (RL) nor a taxonomy label with a slash ("Batch/Offline")."""
    forms = concepts[0].en if language == "en" else concepts[0].zh
    if language == "en":
        spelt = concepts[0].id.replace("_", " ")
        forms = sorted(forms, key=lambda f: form_key(f, "en") != spelt)
    for form in forms:
        if "/" not in form and not (language == "en" and any(is_acronym(w) for w in form.split())):
            return form
    return ""


def _shown(concepts: list[Concept], typed: str) -> tuple[str, ...]:
    """The other language's name of each concept, and its own language's name when something else
    (an acronym, a synonym) was typed: "LLM" → large language model, 大语言模型."""
    typed_zh = has_cjk(typed)
    names: list[str] = []
    for concept in concepts:
        own = concept.name_zh if typed_zh else _name_en(concept)
        if form_key(own, "zh" if typed_zh else "en") != form_key(typed, "zh" if typed_zh else "en"):
            names.append(own)
    names += [_name_en(c) if typed_zh else c.name_zh for c in concepts]
    return tuple(dict.fromkeys(names))


def _name_en(concept: Concept) -> str:
    return name_as_words([concept], "en") or concept.name_en


def expansions(terms: list[str], matcher: ConceptMatcher, max_forms: int, max_concepts: int,
               max_term_length: int = 40) -> list[Expansion]:
    """The concepts in the parsed query terms, with the forms to search for each: the first
    `max_concepts` different ones, and none inside a Chinese term longer than `max_term_length` (a
    pasted paragraph: its words as typed already reach Elasticsearch's limit on clauses)."""
    out: list[Expansion] = []
    seen: set[tuple[str, ...]] = set()
    for m in matcher.recognise(terms):
        if not m.whole_terms and (m.ids in seen or len(terms[m.first]) > max_term_length):
            continue  # the same concept again inside one Chinese term adds nothing
        if len(seen | {m.ids}) > max_concepts:
            break
        seen.add(m.ids)
        concepts = [matcher.concepts[i] for i in m.ids]
        other = "en" if has_cjk(m.text) else "zh"
        out.append(Expansion(
            first=m.first, last=m.last, typed=m.text, whole_terms=m.whole_terms, ids=m.ids,
            en=_other_forms(concepts, "en", m.text, max_forms),
            zh=_other_forms(concepts, "zh", m.text, max_forms),
            shown=_shown(concepts, m.text),
            **{f"{other}_words": name_as_words(concepts, other)},
        ))
    return out
