"""The ladder as the plan runs it (plan.Search.rounds): each round's requests out, their readings in, and the
outcome the plan decides; no sender, no node."""

from __future__ import annotations

from typing import Any

from webapp.domain import SearchParams
from webapp.services.plan import ladder as plan
from webapp.services.plan.requests import Found, Live, Option, Reading, Spelled, Spelling, may_fail
from webapp.services.query.parser import parse_query
from webapp.services.search_settings import search_config

CONFIG = search_config()
ATTENTION = Spelled({"atention": 0}, {"atention": [Option("attention", 0.88, 1500)]})


def run(s: plan.Search, *answers: list[Reading]) -> tuple[list[str], plan.Outcome]:
    """The names of the rounds the ladder took, answered in turn, and its outcome."""
    ladder = s.rounds(lambda parsed: ())
    names, step = [], next(ladder)
    try:
        for readings in answers:
            names.append(step.name)
            step = ladder.send(readings)
    except StopIteration as done:
        return names, done.value
    raise AssertionError(f"the ladder wants more rounds: {names} then {step.name}")


def searched(q: str, **live: Any) -> plan.Search:
    return plan.Search(parse_query(q), SearchParams(q=q), CONFIG, (), Live(**live))


def test_nothing_has_the_words_the_corrected_querys_results_are_shown():
    names, outcome = run(searched("atention", profile="plugin"), [Found(0, True)], [ATTENTION],
                         [Found(7, True, "answer")])
    assert names == ["as_typed", "spelling_check", "corrected"]
    assert (outcome.showing_for, outcome.did_you_mean, outcome.fallbacks) == ("attention", None, ("corrected",))
    assert outcome.shown.answer == "answer" and outcome.page.text.words[0].text == "attention"


def test_the_corrected_query_finding_nothing_falls_back_to_the_relaxed_page():
    names, outcome = run(searched("atention", profile="plugin"), [Found(0, True)], [ATTENTION], [Found(0, True)],
                         [Found(3, True, "relaxed")])
    assert names == ["as_typed", "spelling_check", "corrected", "relaxed"]
    assert outcome.fallbacks == ("relaxed",) and outcome.showing_for is None and outcome.did_you_mean is None
    assert outcome.partial.all_words == 0 and outcome.page.tier == "relaxed" and outcome.shown.total == 3


def test_a_refused_relaxed_page_keeps_the_words_as_typed_and_still_offers_the_correction():
    rare = Spelled({"lanuguage": 2, "models": 5000}, {"lanuguage": [Option("language", 0.89, 900)]})
    names, outcome = run(searched("lanuguage models", profile="plugin"), [Found(2, True, "typed")], [rare],
                         [None, Found(1, True)])
    assert names == ["as_typed", "spelling_check", "relaxed"]
    assert outcome.shown.answer == "typed" and outcome.page.tier == "as_typed" and outcome.partial is None
    assert (outcome.did_you_mean, outcome.fallbacks) == ("language models", ("did_you_mean",))


def test_enough_papers_end_the_ladder_a_large_index_asks_for_its_facets_apart():
    names, outcome = run(searched("diffusion models", papers=1_000_000), [Found(500, True)], [{"year": {}}])
    assert names == ["as_typed", "facets"] and outcome.fallbacks == ()
    assert outcome.facets and outcome.facets.probability == 1.0 and outcome.aggregations == {"year": {}}


def test_which_failures_only_cost_a_suggestion():
    s = searched("lanuguage models")
    page, _, _ = s.as_typed()
    relaxed, check = s.relaxed(True), s.check(parse_query("language models"))
    assert may_fail(Spelling(("lanuguage",)), refused=False) and may_fail(check, refused=False)
    assert may_fail(relaxed, refused=True) and not may_fail(relaxed, refused=False)
    assert not may_fail(page, refused=True)
