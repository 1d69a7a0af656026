"""Autocomplete from the glossary: concept names in both languages that start with what was typed."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from papersearch.concepts import Concept, Glossary
from papersearch.text import has_cjk

MIN_PREFIX = {False: 2, True: 1}  # characters before concepts are offered: Latin, Chinese
_SCAN = 200  # forms looked at per prefix, before ranking


@dataclass(frozen=True)
class ConceptSuggestion:
    text: str  # the form that starts with the prefix: what goes into the search box
    other: str  # the concept's name in the other language, shown beside it
    concept_id: str


class ConceptSuggester:
    def __init__(self, glossary: Glossary) -> None:
        entries: list[tuple[str, int, str, Concept]] = []
        for concept in glossary.concepts:
            for rank, form in enumerate(concept.en):
                entries.append((form.casefold(), rank, form, concept))
            for rank, form in enumerate(concept.zh):
                entries.append((form.casefold(), rank, form, concept))
        entries.sort(key=lambda e: (e[0], e[1]))
        self._keys = [e[0] for e in entries]
        self._entries = entries

    def suggest(self, prefix: str, size: int) -> list[ConceptSuggestion]:
        """Forms starting with the prefix: main names before synonyms, shorter before longer, one per concept."""
        key = " ".join(prefix.split()).casefold()
        if len(key) < MIN_PREFIX[has_cjk(key)]:
            return []
        first = bisect.bisect_left(self._keys, key)
        candidates = []
        for i in range(first, min(first + _SCAN, len(self._keys))):
            if not self._keys[i].startswith(key):
                break
            candidates.append(self._entries[i])
        candidates.sort(key=lambda e: (e[1] > 0, len(e[0]), e[0]))
        out: list[ConceptSuggestion] = []
        seen: set[str] = set()
        for _, _, form, concept in candidates:
            if concept.id in seen:
                continue
            seen.add(concept.id)
            other = concept.name_en if has_cjk(form) else concept.name_zh
            out.append(ConceptSuggestion(form, other, concept.id))
            if len(out) == size:
                break
        return out


def by_papers(found: list[ConceptSuggestion], papers: dict[str, int], size: int) -> list[ConceptSuggestion]:
    """The concepts most papers are tagged with first (强化学习 before 强化传热; 深度学习 among 深度's), the order
    above between equals."""
    return sorted(found, key=lambda c: -papers.get(c.concept_id, 0))[:size]
