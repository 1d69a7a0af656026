"""Does the glossary cover the taxonomy? Every area and subarea (but "Everything Else") must be a
concept: its English name or its Chinese label is one of the concept's forms."""

from __future__ import annotations

from papersearch.concepts.glossary import Glossary, form_key
from papersearch.taxonomy import Taxonomy

CATCH_ALL = "Everything Else"


def topics(taxonomy: Taxonomy) -> list[tuple[str, str]]:
    """(English name, Chinese label) of every area and subarea worth a concept."""
    out = list(taxonomy.areas.items())
    out += [(sub, label) for (_, sub), label in taxonomy.subareas.items() if sub != CATCH_ALL]
    return list(dict.fromkeys(out))


def uncovered(glossary: Glossary, taxonomy: Taxonomy) -> list[str]:
    """The topics no concept stands for, as "English name / Chinese label"."""
    en = {form_key(f, "en") for c in glossary.concepts for f in c.en}
    zh = {form_key(f, "zh") for c in glossary.concepts for f in c.zh}
    return [f"{name} / {label}" for name, label in topics(taxonomy)
            if form_key(name, "en") not in en and form_key(label, "zh") not in zh]
