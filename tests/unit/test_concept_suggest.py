"""Autocomplete offers glossary concepts in both languages."""

from __future__ import annotations

from pathlib import Path

from papersearch.concepts import load
from webapp.services.lookups.concept_suggest import ConceptSuggester

SUGGESTER = ConceptSuggester(load(Path(__file__).parents[1] / "fixtures" / "concepts-small.tsv"))


def texts(prefix: str, size: int = 8) -> list[tuple[str, str]]:
    return [(s.text, s.other) for s in SUGGESTER.suggest(prefix, size)]


def test_english_prefix_offers_the_concept_with_its_chinese_name() -> None:
    assert texts("contrastive") == [("contrastive learning", "对比学习"),
                                    ("contrastive language-image pre-training", "CLIP模型")]
    assert texts("Contrastive  lea") == [("contrastive learning", "对比学习")]


def test_chinese_prefix_offers_the_concept_with_its_english_name() -> None:
    assert texts("对比") == [("对比学习", "contrastive learning")]
    assert ("大语言模型", "large language model") in texts("大")


def test_main_names_first_one_suggestion_per_concept_and_size() -> None:
    assert [t for t, _ in texts("gr")] == ["graphical model", "gradient clipping", "graph neural network"]
    assert len(texts("g", 8)) == 0  # one Latin letter is too little
    assert len(texts("gr", 1)) == 1


def test_acronyms_complete_in_any_case() -> None:
    assert texts("llm") == [("LLM", "大语言模型")]
    assert texts("zzz") == []
