"""Names typed plainly (issue 57.1–2), against the real node on both analysis profiles: a method's name finds the
paper that introduced it (DECISIONS.md D-210), a surname finds its authors' papers first, however its umlauts are
spelt (D-211). Crafted papers beside the sample, loaded by the real indexer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import SAMPLE, loaded_alias, write_jsonl

from webapp.domain import SearchParams
from webapp.services.bodies import clauses
from webapp.services.search import SearchService

# LoRA is a glossary concept (low-rank adaptation): the papers that use it write both, as on the real site.
_USE = "We fine-tune large language models with low-rank adaptation (LoRA) adapters. LoRA keeps the rank small"
PAPERS = [
    # 57.1: the paper that introduced LoRA, under papers that only use it (shorter, LoRA more often).
    {"id": "n-lora", "title": "LoRA: Low-Rank Adaptation of Large Language Models",
     "abstract": "We propose Low-Rank Adaptation, or LoRA, which freezes the pretrained weights and injects "
                 "trainable rank decomposition matrices into each layer of the Transformer architecture.",
     "authors": ["Edward Hu"], "year": 2021},
    {"id": "n-lora-speech", "title": "Low-rank adaptation (LoRA) of speech models", "abstract": f"{_USE} for speech.",
     "authors": ["Ann Lee"], "year": 2023},
    {"id": "n-lora-vision", "title": "Vision models with LoRA low-rank adaptation", "abstract": f"{_USE} for images.",
     "authors": ["Bo Chen"], "year": 2023},
    {"id": "n-lora-merge", "title": "Merging LoRA low-rank adaptation modules", "abstract": f"{_USE} before merging.",
     "authors": ["Cai Wu"], "year": 2024},
    {"id": "n-simclr", "title": "A Simple Framework for Contrastive Learning of Visual Representations",
     "abstract": "This paper presents SimCLR: a simple framework for contrastive learning of visual "
                 "representations, without specialized architectures or a memory bank.",
     "authors": ["Ting Chen"], "year": 2020},
    {"id": "n-simclr-fed", "title": "Federated SimCLR", "abstract": "We train SimCLR on federated clients; "
     "SimCLR views stay on each device.", "authors": ["Dan Park"], "year": 2022},
    # 57.2: a title with the surname's word in it, not by the person; the person's papers, however spelt.
    {"id": "n-hintons", "title": "The Hintons in your Neural Network",
     "abstract": "Hinton's capsules and the Hintons of deep learning, revisited.", "authors": ["Eve Stone"]},
    {"id": "n-hinton-1", "title": "Capsule routing by agreement", "abstract": "Capsules vote for their parents.",
     "authors": ["Sara Sabour", "Geoffrey Hinton"], "year": 2017},
    {"id": "n-hinton-2", "title": "Distilling the knowledge in a network", "abstract": "A small model learns "
     "from a large one.", "authors": ["Geoffrey E. Hinton", "Oriol Vinyals"], "year": 2015},
    {"id": "n-bs-1", "title": "Kernel methods for causal discovery", "abstract": "Kernels find causes.",
     "authors": ["Bernhard Schölkopf"], "year": 2019},
    {"id": "n-bs-2", "title": "Learning with kernels", "abstract": "Support vector machines and beyond.",
     "authors": ["Bernhard Schoelkopf"], "year": 2002},
    {"id": "n-bs-3", "title": "Invariant causal mechanisms", "abstract": "Mechanisms that do not change.",
     "authors": ["B. Scholkopf", "Jonas Peters"], "year": 2016},
    {"id": "n-bs-4", "title": "Estimating the support of a distribution", "abstract": "One-class kernels.",
     "authors": ["Bernhard Schoelkopf", "Alex Smola"], "year": 2001},
]
LORA_USERS = {"n-lora-speech", "n-lora-vision", "n-lora-merge"}
HINTON = {"n-hinton-1", "n-hinton-2"}
SCHOLKOPF = {"n-bs-1", "n-bs-2", "n-bs-3", "n-bs-4"}


@pytest.fixture(scope="module", params=["auto", "core"])
def service(request, cluster, tmp_path_factory) -> Iterator[SearchService]:
    path = write_jsonl(tmp_path_factory.mktemp("names") / "names.jsonl", PAPERS)
    with loaded_alias(cluster, "paperstest_names", [SAMPLE, path],
                      PAPERSEARCH_ANALYSIS_PROFILE=request.param) as (name, _):
        yield SearchService(cluster.client("web"), name)


def ids(service: SearchService, q: str) -> list[str]:
    return [h.id for h in service.search(SearchParams(q=q, size=50)).hits]


# --- 57.1: the paper a method's name means --------------------------------------------------------------


@pytest.mark.parametrize("q", ["LoRA", "lora", '"LoRA"'])
def test_a_methods_name_finds_the_paper_that_introduced_it_first(service, q) -> None:
    found = ids(service, q)
    assert found[0] == "n-lora", found
    assert set(found) >= LORA_USERS  # the papers that use it still follow


def test_a_name_introduced_in_the_abstract_counts_too(service) -> None:
    found = ids(service, "SimCLR")
    assert found[:2] == ["n-simclr", "n-simclr-fed"], found


def test_the_lift_adds_its_boost_to_the_introducing_paper_and_nothing_to_the_others(service) -> None:
    """The lift is a `terms` query (D-229): it must score exactly the boost, as the constant_score it replaced,
    whatever the name's rarity, so the words' order among the other papers stays theirs."""
    words = {"multi_match": {"query": "LoRA", "fields": ["title", "abstract"]}}
    lift = clauses.introduced_lift("LoRA", service.config)

    def scores(query: dict) -> dict[str, float]:
        hits = service.client.search(index=service.alias, query=query, size=50)["hits"]["hits"]
        return {h["_id"]: h["_score"] for h in hits}

    plain, lifted = scores(words), scores({"bool": {"must": [words], "should": [lift]}})
    assert plain.keys() == lifted.keys() and "n-lora" in plain
    added = {i: round(lifted[i] - plain[i], 3) for i in plain}
    assert added.pop("n-lora") == service.config.typed_names.introduced_boost
    assert set(added.values()) == {0}, added


def test_a_name_no_paper_introduced_leaves_the_words_free_to_skip_papers(service) -> None:
    """D-229: beside the lift of a name no paper introduced, the words' query is still told the page's minimum
    competitive score, so the node can skip papers that cannot reach the page (as a constant_score clause, it
    never was: at 1M every match was scored). Read from the node's own profile of the search."""
    words = {"match": {"abstract": "learning"}}
    lift = clauses.introduced_lift("no paper introduces this", service.config)
    profile = service.client.search(index=service.alias, query={"bool": {"must": [words], "should": [lift]}},
                                    size=1, track_total_hits=False, profile=True)["profile"]

    # The whole query's node is told either way; what matters is whether the words' own node below it is.
    top = [q for shard in profile["shards"] for s in shard["searches"] for q in s["query"]]
    below = [c for q in top for c in q.get("children", []) if "abstract:" in c["description"]]
    assert below and sum(c["breakdown"].get("set_min_competitive_score_count", 0) for c in below) > 0, top


def test_words_beside_the_name_are_not_the_name(service) -> None:
    """"LoRA speech" is not a name any paper introduced: the words decide, as before."""
    assert ids(service, "LoRA speech")[0] == "n-lora-speech"


# --- 57.2: a surname typed plainly ------------------------------------------------------------------------


def test_a_surname_typed_as_a_name_puts_the_persons_papers_first(service) -> None:
    found = ids(service, "Hinton")
    assert set(found[:2]) == HINTON, found
    assert "n-hintons" in found  # the word is still found where it is written


@pytest.mark.parametrize("q", ["Schölkopf", "Schoelkopf", "Scholkopf"])
def test_every_spelling_of_a_surname_finds_the_same_papers(service, q) -> None:
    """Schölkopf, Schoelkopf and Scholkopf are one surname: each typed plainly finds every paper author:
    finds, first."""
    by_author = set(ids(service, "author:Schölkopf"))
    assert by_author == SCHOLKOPF
    found = ids(service, q)
    assert set(found[:4]) == SCHOLKOPF, found
