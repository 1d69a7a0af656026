"""The names a paper introduces (papersearch/introduces.py; DECISIONS.md D-210), and the clauses that lift a name
typed (webapp/services/bodies/clauses.py; D-210, D-211)."""

from __future__ import annotations

import pytest

from papersearch.author_keys import word_pattern
from papersearch.introduces import introduced, name_like
from webapp.services.bodies import clauses as cl
from webapp.services.search_settings import search_config

CONFIG = search_config()


@pytest.mark.parametrize(("title", "abstract", "names"), [
    ("LoRA: Low-Rank Adaptation of Large Language Models",
     "We propose Low-Rank Adaptation, or LoRA, which freezes the weights.", ["LoRA"]),
    ("A Simple Framework for Contrastive Learning of Visual Representations",
     "This paper presents SimCLR: a simple framework.", ["SimCLR"]),
    ("Adam: A Method for Stochastic Optimization", "We introduce Adam, an algorithm.", ["Adam"]),
    ("x", "We introduce a new method called GraphSAGE that samples.", ["GraphSAGE"]),
    ("x", "We present a model dubbed word2vec. BYOL, a new approach to self-supervision.", ["word2vec", "BYOL"]),
    ("x", "We introduce Federated Loss SuRface Aggregation (FLoRA), a framework.", ["FLoRA"]),
    ("x", "We present GPT-4, a large multimodal model.", ["GPT-4"]),
    # what names nothing: a survey's subject, a long phrase, words after an article, an acronym of a method used
    ("Graph Neural Networks: A Review of Methods and Applications", "", []),
    ("Deep learning for the sciences: new directions", "", []),
    ("x", "We propose an RL based approach. We propose a 3D model. We propose a novel method.", []),
    ("x", "In this work we propose a Reinforcement Learning (RL) agent that explores.", []),
    ("x", "We fine-tune BERT with LoRA on small data.", []),
])
def test_names_introduced_by_title_and_abstract(title, abstract, names) -> None:
    assert introduced(title, abstract) == names


def test_names_are_each_once_and_a_few_at_most() -> None:
    assert introduced("LoRA: x", "We propose LoRA. We call it lora.") == ["LoRA"]
    assert len(introduced("x", " ".join(f"We propose M{i}x." for i in range(9)))) == 5


@pytest.mark.parametrize(("word", "like"), [("LoRA", True), ("BERT", True), ("U-Net", True), ("word2vec", True),
                                            ("Adam", False), ("Low-Rank", False), ("3D", False), ("2019", False)])
def test_what_looks_like_a_name(word, like) -> None:
    assert name_like(word) is like


def test_the_introduced_lift_is_one_terms_query_at_the_configured_boost() -> None:
    lift = cl.introduced_lift("LoRA ", CONFIG)
    assert lift == {"terms": {"introduces": ["LoRA"], "boost": CONFIG.typed_names.introduced_boost}}


def test_a_surname_lift_only_for_a_word_typed_as_a_name() -> None:
    lift = cl.surname_lift("Schölkopf", CONFIG)
    assert lift == {"constant_score": {"filter": {"regexp": {"author_key_words": {
        "value": "scho(e)?lko(e)?pf:(.+ )?scho(e)?lko(e)?pf"}}}, "boost": CONFIG.typed_names.surname_boost}}
    assert cl.surname_lift("Schoelkopf", CONFIG) == lift  # one surname however its umlaut is spelt
    assert [cl.surname_lift(w, CONFIG) for w in ("hinton", "GAN", "LoRA", "张伟", "O'Neil")] == [None] * 5


def test_a_surname_pattern_is_the_surname_not_any_name() -> None:
    assert word_pattern("hinton", surname=True) == "hinto(e)?n:(.+ )?hinto(e)?n"
    assert word_pattern("hinton") == "hinto(e)?n:.*"  # author: looks a lone word up in any place (D-176)
