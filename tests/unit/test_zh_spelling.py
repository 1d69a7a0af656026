"""Issue 57.4: Chinese typos checked against the glossary's Chinese names one character away (query/zh_spelling.py),
counted by the spelling check and corrected as an English word is (plan/ladder.py)."""

from __future__ import annotations

import bodies

from webapp.domain import SearchParams
from webapp.services.bodies import render
from webapp.services.plan.requests import Option, Spelling
from webapp.services.query.parser import parse_query
from webapp.services.query.zh_spelling import candidates
from webapp.services.search_settings import search_config

CONFIG = search_config()


def test_candidates_are_glossary_names_one_character_away():
    assert "图神经网络" in candidates("图神精网络", 3, 5)
    assert "强化学习" in candidates("强化学系", 3, 5)
    assert candidates("强化学习", 3, 5) == ()  # a name itself
    assert candidates("墙化学习", 3, 5) == ()  # not the first character
    assert candidates("学系", 3, 5) == ()  # too short: one character is half of it
    assert candidates("强化学系x", 3, 5) == ()
    assert len(candidates("强化学系", 3, 2)) <= 2


def test_a_chinese_run_is_checked_whatever_was_found():
    s = bodies.searched(parse_query("强化学系"))
    check = s.spelling_check(283)
    assert isinstance(check, Spelling) and check.words == ()
    assert check.zh[0][0] == "强化学系" and "强化学习" in check.zh[0][1]
    assert bodies.searched(parse_query("强化学习")).spelling_check(283) is None
    assert bodies.searched(parse_query("transfomer")).spelling_check(283) is None  # English: only when too few
    body = render.body(check, CONFIG)
    assert body[0]["query"] == {"match_none": {}} and "suggest" not in body[0]
    assert len(body) == 1 + 1 + len(check.zh[0][1])  # the run, then each candidate, counted as phrases
    assert body[1]["query"]["multi_match"]["type"] == "phrase"


def test_the_corrected_run_is_searched_when_the_typed_one_is_scraps():
    s = bodies.searched(parse_query("强化学系"), SearchParams(q="强化学系"))
    unknown, corrected = s.corrections({"强化学系": 0}, {"强化学系": [Option("强化学习", 1.0, 1886),
                                                                    Option("强化学派", 1.0, 3)]})
    assert corrected.to_string() == "强化学习"  # the candidate with most papers
    assert s.fallback(283, unknown, corrected).corrected == corrected  # 283 papers of its single characters
    # a run some papers have is only offered, as a rare English word is
    unknown, corrected = s.corrections({"强化学系": 1}, {"强化学系": [Option("强化学习", 1.0, 1886)]})
    assert corrected and s.fallback(283, unknown, corrected).corrected is None
