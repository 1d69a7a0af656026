"""Finding concepts in papers (index time) and in what was typed (query time), on the fixture glossary."""

from __future__ import annotations

from pathlib import Path

import pytest
from nodeless import drawn

from papersearch.concepts import ConceptMatcher, english, load
from papersearch.concepts.english import number_variants, spellings
from papersearch.concepts.glossary import parse
from papersearch.concepts.matcher import _has_cjk
from papersearch.text import CJK_RUN

FIXTURE = Path(__file__).parents[1] / "fixtures" / "concepts-small.tsv"


@pytest.fixture(scope="module")
def matcher() -> ConceptMatcher:
    return ConceptMatcher(load(FIXTURE))


@pytest.mark.parametrize(("text", "expected"), [
    ("Graph Neural Networks for molecules", ["graph_neural_network", "neural_network"]),
    ("a graph neural network", ["graph_neural_network", "neural_network"]),  # the nested concept too
    ("We fine-tune LLMs.", ["large_language_model"]),
    ("Large language models are language models", ["large_language_model", "language_model"]),
    ("self supervised learning", ["self_supervised_learning"]),
    ("Self-Supervised Learning", ["self_supervised_learning"]),
    ("pre-training and pretraining", ["pre_training"]),
    ("Gaussian processes", ["gaussian_process"]),
    ("mixtures of experts (MoEs)", ["mixture_of_experts"]),
    ("k-means, kmeans", ["k_means"]),
    ("naïve Gaussian-process regression", ["gaussian_process"]),
    ("optimisation and optimization", ["optimization"]),
    ("policy gradients", ["policy_gradient"]),
    ("We train GANs", ["generative_adversarial_network"]),
    ("基于对比学习的图像分类方法", ["contrastive_learning", "image_classification"]),
    ("圖神經網絡", ["graph_neural_network", "neural_network"]),  # traditional form, and 神經網絡 inside it
    ("大模型的知识蒸馏", ["large_language_model", "knowledge_distillation"]),
    ("基于GAN的图像生成", ["generative_adversarial_network"]),  # Latin acronym inside Chinese text
    ("K均值聚类算法", ["k_means"]),
    ("构造Lyapunov函数", ["lyapunov_function"]),
])
def test_tags_concepts_in_either_language(matcher: ConceptMatcher, text: str, expected: list[str]) -> None:
    assert matcher.tag([text]) == expected


@pytest.mark.parametrize("text", [
    "an organ transplant; slogan; organic",  # GAN inside longer words
    "the pipeline was clipped to a map of the sam river",  # acronyms written as ordinary words
    "we use llms and gans",  # acronyms in lowercase are not acronyms in a paper
    "graph, neural network",  # not across punctuation (tags neural_network only)
    "the regularization strength",  # no form is a prefix or suffix of a word
    "SK均值",  # K均值 continuing a Latin word
])
def test_no_tag_from_inside_a_longer_word_or_from_lowercase_acronyms(matcher: ConceptMatcher, text: str) -> None:
    found = matcher.tag([text])
    assert "generative_adversarial_network" not in found
    assert "clip_model" not in found and "large_language_model" not in found
    assert "graph_neural_network" not in found and "k_means" not in found


def test_graph_neural_network_is_not_found_across_a_comma(matcher: ConceptMatcher) -> None:
    assert matcher.tag(["graph, neural network"]) == ["neural_network"]


def test_a_paper_is_tagged_with_nested_and_overlapping_concepts(matcher: ConceptMatcher) -> None:
    """Index time: every concept named, also inside a longer one; query time stays leftmost-longest."""
    assert matcher.tag(["graph neural networks"]) == ["graph_neural_network", "neural_network"]
    assert matcher.tag(["图神经网络"]) == ["graph_neural_network", "neural_network"]
    assert matcher.tag(["大语言模型"]) == ["large_language_model", "language_model"]
    # nested in a longer form only: the paper still carries the nested concept's tag
    assert matcher.tag(["Scaling large language models"]) == ["large_language_model", "language_model"]
    assert [m.ids for m in matcher.english("graph neural networks")] == [("graph_neural_network",)]
    assert [m.ids for m in matcher.chinese("图神经网络")] == [("graph_neural_network",)]
    assert [m.ids for m in matcher.recognise(["graph", "neural", "networks"])] == [("graph_neural_network",)]


def test_nested_tags_keep_the_edge_checks(matcher: ConceptMatcher) -> None:
    # a nested form, too, starts and ends at word edges, and acronyms count only as written
    assert matcher.tag(["xgraph neural networks"]) == ["neural_network"]
    assert matcher.tag(["2graph neural networks"]) == ["neural_network"]  # "Graph" after a digit is inside a word
    assert matcher.tag(["large language modelling"]) == []  # "model" is no prefix of a word
    assert matcher.tag(["We fine-tune LLMs and llms"]) == ["large_language_model"]  # acronyms as written
    assert matcher.tag(["SK均值聚类"]) == []  # K均值 does not continue a Latin word, nested or not


def test_ambiguous_forms_tag_only_concepts_named_otherwise(matcher: ConceptMatcher) -> None:
    assert matcher.tag(["We use SAM."]) == []
    assert matcher.tag(["Sharpness-aware minimization (SAM) flattens minima."]) == ["sharpness_aware_minimization"]


def test_all_texts_of_a_paper_count_once_each(matcher: ConceptMatcher) -> None:
    texts = ["Federated learning at scale", "", "联邦学习与差分隐私", "We study federated learning."]
    assert matcher.tag(texts) == ["federated_learning", "differential_privacy"]


def test_query_terms_in_any_case_and_both_scripts(matcher: ConceptMatcher) -> None:
    found = matcher.recognise(["llm", "基于对比学习的图像分类", "self-supervised", "learning", "for", "gnns"])
    assert [(m.first, m.last, m.ids, m.text, m.whole_terms) for m in found] == [
        (0, 0, ("large_language_model",), "llm", True),
        (1, 1, ("contrastive_learning",), "对比学习", False),
        (1, 1, ("image_classification",), "图像分类", False),
        (2, 3, ("self_supervised_learning",), "self-supervised learning", True),
        (5, 5, ("graph_neural_network",), "gnns", True),
    ]


def test_a_query_match_must_cover_whole_terms(matcher: ConceptMatcher) -> None:
    # "supervised learning" inside the typed "self-supervised learning" is not the typed concept.
    assert [m.ids for m in matcher.recognise(["self-supervised", "learning"])] == [("self_supervised_learning",)]
    assert matcher.recognise(["semi-supervised"]) == []
    assert [m.ids for m in matcher.recognise(["sam"])] == [("segment_anything", "sharpness_aware_minimization")]


def test_number_variants() -> None:
    assert number_variants("network") == {"network", "networks"}
    assert number_variants("networks") == {"network", "networks"}
    assert number_variants("policy") == {"policy", "policies"}
    assert number_variants("process") == {"process", "processes"}
    assert number_variants("analysis") == {"analysis", "analyses"}
    assert "matrices" in number_variants("matrix")
    assert "biases" in number_variants("bias")
    assert number_variants("rl") == {"rl"}


def test_spellings_vary_the_head_noun_and_hyphens_only() -> None:
    assert spellings("mixture of experts") >= {("mixture", "of", "experts"), ("mixtures", "of", "experts")}
    assert ("large", "language", "models") in spellings("large language model")
    assert ("larges", "language", "model") not in spellings("large language model")
    assert spellings("LLM") == {("LLM",), ("LLMs",)}
    assert {("pre", "training"), ("pretraining",)} <= spellings("pre-training")


def test_a_query_typed_as_an_acronym_is_written_picks_that_concept() -> None:
    lines = [line for line in FIXTURE.read_text(encoding="utf-8").splitlines()
             if not line.startswith("generative_adversarial_network")]
    text = "\n".join([*lines, "generative_adversarial_network\tmodel\tgenerative adversarial network|GAN\t"
                      "生成对抗网络\tambiguous", "gallium_nitride\tdomain\tgallium nitride|GaN\t氮化镓\tambiguous"])
    matcher = ConceptMatcher(parse(text))
    assert [m.ids for m in matcher.recognise(["GAN"])] == [("generative_adversarial_network",)]
    assert [m.ids for m in matcher.recognise(["GaN"])] == [("gallium_nitride",)]
    assert [m.ids for m in matcher.recognise(["gan"])] == [("generative_adversarial_network", "gallium_nitride")]
    assert matcher.tag(["GaN power devices and GANs"]) == ["gallium_nitride", "generative_adversarial_network"]


def test_a_mixed_script_form_spans_the_terms_the_parser_split_it_into(matcher: ConceptMatcher) -> None:
    # parse_query turns "视觉Transformer" into 视觉 + Transformer (script boundary)
    (m,) = matcher.recognise(["视觉", "Transformer"])
    assert (m.first, m.last, m.ids, m.whole_terms) == (0, 1, ("vision_transformer",), True)
    (m,) = matcher.recognise(["对比", "学习"])  # typed with a space: still the concept
    assert (m.first, m.last, m.ids) == (0, 1, ("contrastive_learning",))


@pytest.mark.parametrize(("text", "expected"), [
    ("2graph neural networks", ["neural_network"]),  # "Graph" after a digit is inside a word; what follows still counts
    ("3D Gaussian processes in 2D", ["gaussian_process"]),
    ("x3GNNs and 4LLM", []),
    ("graph—neural network", ["graph_neural_network", "neural_network"]),  # one character joins words, as a hyphen
    ("graph – neural network", ["neural_network"]),  # a wider gap does not
    ("federated\u00a0learning, “knowledge distillation”", ["federated_learning", "knowledge_distillation"]),
    ("联邦学习GNN与K均值", ["graph_neural_network", "federated_learning", "k_means"]),
])
def test_words_are_whole_in_any_script_and_after_digits(matcher: ConceptMatcher, text: str,
                                                          expected: list[str]) -> None:
    assert matcher.tag([text]) == expected


ALPHABET = "ab AZ09-.,;’—–“”\u00a0éïßÆĳﬁαβ中文学习カ한\u3000\u2192\U0001f600"


def test_latin_runs_match_the_whole_text_rule() -> None:
    """The fast path (an encoder error handler per non-ASCII run) equals one expression over the text."""
    rng = drawn(5)
    for _ in range(3000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 30)))
        fast = text.encode("ascii", english._LATIN_RUNS).decode("ascii")
        assert fast.translate(english.WORD_CHARS) == english._latin(text).translate(english.WORD_CHARS), text


def test_the_cjk_check_in_native_code_agrees_with_the_definition() -> None:
    rng = drawn(6)
    for _ in range(3000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8)))
        assert _has_cjk(text) == bool(CJK_RUN.search(text)), text
