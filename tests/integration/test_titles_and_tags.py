"""A pasted title's typo and a paper's nested concepts against a real node (DECISIONS.md D-220, D-223): a capitalised
word of a title is corrected to the close word, not to a farther author's name; a paper is tagged with a concept it
names only inside a longer one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support import loaded_alias, write_jsonl

from webapp.domain import SearchParams
from webapp.services.search import SearchService


def paper(pid: str, title: str, abstract: str, authors: list[str]) -> dict[str, Any]:
    return {"id": pid, "title": title, "abstract": abstract, "authors": authors, "year": 2023, "venue": "ICLR"}


PAPERS = [
    paper("collapse", "Memorization-Dilation: Modeling Neural Collapse Under Noise",
          "Neural collapse describes the last layer of a neural classifier; we model it under label noise.",
          ["Ada Lee"]),
    *(paper(f"neural-{i}", f"Neural Estimators for Task {i}", f"A neural estimator for task {i} with neural features.",
            ["Bo Chen"]) for i in range(4)),
    # Neil is an author of three papers: common enough to be a correction (spelling.min_freq), but two edits away
    *(paper(f"neil-{i}", f"Kernel Methods for Spatial Statistics {i}", "Gaussian processes for spatial data.",
            ["Neil Lawrence"]) for i in range(3)),
    paper("langevin", "Faster Mixing for Langevin Monte Carlo",
          "We analyse Langevin Monte Carlo on non-convex potentials and bound its mixing time.", ["Cai Wu"]),
]


@pytest.fixture(scope="module")
def alias(cluster, tmp_path_factory) -> Iterator[str]:
    source = write_jsonl(tmp_path_factory.mktemp("titles") / "papers.jsonl", PAPERS)
    with loaded_alias(cluster, "paperstest_titles", [source]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def service(cluster, alias: str) -> SearchService:
    return SearchService(cluster.client("web"), alias)


def test_a_titles_capitalised_typo_is_corrected_to_the_close_word_not_an_authors_name(service) -> None:
    result = service.search(SearchParams(q="Modeling Neurl Collapse Under Noise"))
    assert "neil" not in (result.showing_for or "").casefold() + (result.did_you_mean or "").casefold()
    assert [h.id for h in result.hits][:1] == ["collapse"], (result.fallbacks, result.showing_for, result.hits)


def test_a_paper_is_tagged_with_a_concept_named_inside_a_longer_one(cluster, alias: str) -> None:
    tags = cluster.client("admin").get(index=alias, id="langevin")["_source"]["concepts"]
    assert "monte_carlo_method" in tags  # "Langevin Monte Carlo": Monte Carlo, inside the longer name

