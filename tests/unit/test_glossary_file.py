"""The real glossary, config/concepts.tsv: valid, large enough, covering the taxonomy."""

from __future__ import annotations

from collections import Counter

import pytest

from papersearch.concepts import ConceptMatcher, load
from papersearch.concepts.coverage import uncovered
from papersearch.concepts.glossary import KINDS, form_key
from papersearch.taxonomy import Taxonomy

MIN_CONCEPTS = 1500


@pytest.fixture(scope="module")
def glossary():
    return load()  # raises GlossaryError (file:line: field: reason for every problem) if anything is wrong


@pytest.fixture(scope="module")
def matcher(glossary) -> ConceptMatcher:
    return ConceptMatcher(glossary)


def test_the_glossary_loads_with_enough_concepts_of_every_kind(glossary) -> None:
    assert len(glossary) >= MIN_CONCEPTS
    kinds = Counter(c.kind for c in glossary.concepts)
    assert set(kinds) == KINDS


def test_no_form_belongs_to_two_concepts_unless_both_are_flagged_ambiguous(glossary) -> None:
    # load() already refuses this; checked here on the data itself, so the test cannot pass vacuously.
    owners: dict[tuple[str, str], set[str]] = {}
    for c in glossary.concepts:
        for language, forms in (("en", c.en), ("zh", c.zh)):
            for form in forms:
                assert form and form == form.strip()
                owners.setdefault((language, form_key(form, language)), set()).add(c.id)
    by_id = glossary.by_id()
    shared = {key: ids for key, ids in owners.items() if len(ids) > 1}
    assert all(by_id[i].ambiguous for ids in shared.values() for i in ids)


def test_every_taxonomy_topic_is_a_concept(glossary) -> None:
    assert uncovered(glossary, Taxonomy.load()) == []


@pytest.mark.parametrize(("query", "concept_en"), [
    ("对比学习", "contrastive learning"), ("联邦学习", "federated learning"), ("知识蒸馏", "knowledge distillation"),
    ("生成对抗网络", "generative adversarial network"), ("差分隐私", "differential privacy"),
    ("上下文学习", "in-context learning"), ("扩散模型", "diffusion model"), ("大语言模型", "large language model"),
])
def test_the_chinese_queries_of_issue_12_name_their_concept(matcher, query: str, concept_en: str) -> None:
    (found,) = matcher.recognise([query])
    names = {form_key(f, "en") for i in found.ids for f in matcher.concepts[i].en}
    assert found.whole_terms and form_key(concept_en, "en") in names
