"""Does the glossary cover the taxonomy? Every area and subarea must be a concept: its English name
or its Chinese label is one of the concept's forms.

Exempt are the catch-alls ("Everything Else", ICLR 2024's "Other Representation Learning" and "General
Machine Learning Techniques") and names too generic to tag papers by ("Theory" 理论, "Applications" 应用,
"Evaluation" 评估, "Algorithms" 算法, "Physics" 物理学 would tag nearly every paper); a Chinese query for them
still finds their papers through the topic labels every paper carries (topic_labels_zh). See
DECISIONS.md D-036.
"""

from __future__ import annotations

from papersearch.concepts.glossary import Glossary, form_key
from papersearch.taxonomy import Taxonomy

EXEMPT = frozenset({"Everything Else", "Theory", "Applications", "Evaluation", "Algorithms", "Physics",
                    "General Machine Learning Techniques", "Other Representation Learning"})


def topics(taxonomy: Taxonomy) -> list[tuple[str, str]]:
    """(English name, Chinese label) of every area and subarea worth a concept."""
    out = list(taxonomy.areas.items()) + [(sub, label) for (_, sub), label in taxonomy.subareas.items()]
    return [topic for topic in dict.fromkeys(out) if topic[0] not in EXEMPT]


def uncovered(glossary: Glossary, taxonomy: Taxonomy) -> list[str]:
    """The topics no concept stands for, as "English name / Chinese label"."""
    en = {form_key(f, "en") for c in glossary.concepts for f in c.en}
    zh = {form_key(f, "zh") for c in glossary.concepts for f in c.zh}
    return [f"{name} / {label}" for name, label in topics(taxonomy)
            if form_key(name, "en") not in en and form_key(label, "zh") not in zh]
