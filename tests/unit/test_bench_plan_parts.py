"""What `bench.query_cost --parts` takes out of a search to price a part (bench/plan_parts.py): the facets part is the
facets' aggregations alone, wherever the page carries them, never another request's (the author look-up's keys)."""

from __future__ import annotations

import copy

import pytest
from test_bench_plain import ours

from bench.plan_parts import PARTS
from webapp.services.bodies import render
from webapp.services.query.author_names import candidates_body

HAS_FACETS, WITHOUT_FACETS = PARTS["facets"]


@pytest.mark.parametrize("papers", [13_033, 1_000_000])  # in the page's own body; a request of their own, sampled
def test_the_facets_part_takes_out_the_facets_aggregations(papers: int) -> None:
    bodies, _ = ours("learning", papers, total_exact=False)
    with_facets = [b for b in bodies if HAS_FACETS(b)]
    assert len(with_facets) == 1
    assert (render.SAMPLE_AGG in with_facets[0]["aggs"]) is (papers > 13_033)
    assert all("aggs" not in WITHOUT_FACETS(copy.deepcopy(b)) for b in bodies)


def test_the_facets_part_leaves_the_author_look_up_alone() -> None:
    look_up = candidates_body("muller", 1000)
    assert not HAS_FACETS(look_up)
    assert WITHOUT_FACETS(copy.deepcopy(look_up)) == look_up
