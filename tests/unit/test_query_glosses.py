"""CC-CEDICT glosses of a Chinese run's words beyond the glossary (webapp/services/query/glosses.py, D-217)."""

from __future__ import annotations

from webapp.services.plan.words import Words
from webapp.services.query import expansion as xp
from webapp.services.query import glosses
from webapp.services.query.parser import parse_query
from webapp.services.search_settings import search_config


def test_a_word_keeps_its_first_short_glosses_without_notes_classifiers_or_to() -> None:
    assert glosses.glosses_of("错误", 3, 2) == ("mistaken", "false", "wrong")
    assert glosses.glosses_of("动作", 3, 2) == ("movement", "motion", "action")  # "(CL:個|个[ge4])" dropped
    assert glosses.glosses_of("解释", 2, 2) == ("explanation", "explain")  # "to explain"
    assert glosses.glosses_of("没有这个词", 3, 2) == ()


def test_a_run_is_cut_into_the_dictionarys_words_and_the_concepts_parts_are_left_out() -> None:
    assert glosses.segment("训练数据中有错误标签") == ["训练", "数据", "中", "有", "错误", "标签"]
    stop = frozenset({"怎么办"})
    assert glosses.content_words("训练数据中有错误标签怎么办", ["训练数据"], 2, stop) == ["错误", "标签"]


def test_the_plan_carries_the_glosses_of_the_words_no_concept_covers_up_to_the_cap() -> None:
    config = search_config()
    parsed = parse_query("训练数据中有错误标签怎么办")
    from papersearch import concepts

    found = tuple(xp.expansions(parsed.terms, concepts.matcher(), 6, 8, 40))
    word, = Words(parsed, found, config).text().words
    assert [zh for zh, _ in word.glosses] == ["错误", "标签"] and word.inside
    capped = config.model_copy(update={"glosses": config.glosses.model_copy(update={"max_terms": 4})})
    word, = Words(parsed, found, capped).text().words
    assert sum(len(g) for _, g in word.glosses) == 4
    off = config.model_copy(update={"glosses": config.glosses.model_copy(update={"enabled": False})})
    assert not Words(parsed, found, off).text().words[0].glosses
