from __future__ import annotations

import pytest

from webapp.domain import BadQuery
from webapp.services.query_parser import MAX_CLAUSES, Clause, ParsedQuery, parse_query


# Views of a parsed query that only these tests need (the builders read the clauses themselves).
def is_empty(parsed: ParsedQuery) -> bool:
    """Nothing to match: no clause, or only exclusions (browse everything except)."""
    return not any(not c.excluded for c in parsed.clauses)


def excluded_terms(parsed: ParsedQuery) -> list[str]:
    return [c.text for c in parsed.clauses if c.excluded and not (c.phrase or c.field)]


def excluded_phrases(parsed: ParsedQuery) -> list[str]:
    return [c.text for c in parsed.clauses if c.excluded and c.phrase and not c.field]


def test_plain_words():
    parsed = parse_query("deep learning")
    assert parsed.terms == ["deep", "learning"]
    assert parsed.phrases == [] and parsed.field_clauses == []


def test_empty():
    assert is_empty(parse_query(""))
    assert parse_query("   ").clauses == ()
    assert is_empty(parse_query("-noise"))  # only an exclusion: browse everything except


def test_phrases_and_chinese_quotes():
    parsed = parse_query('"graph neural   networks" and “大语言模型”')
    assert parsed.phrases == ["graph neural networks", "大语言模型"]
    assert parsed.terms == ["and"]


def test_exclusions():
    parsed = parse_query('transformer -vision -"image classification"')
    assert parsed.terms == ["transformer"]
    assert excluded_terms(parsed) == ["vision"]
    assert excluded_phrases(parsed) == ["image classification"]


def test_hyphen_inside_a_word_is_text():
    assert parse_query("self-supervised state-of-the-art").terms == ["self-supervised", "state-of-the-art"]
    assert parse_query("a - b").terms == ["a", "b"]


def test_field_clauses():
    parsed = parse_query('author:"Søren Hauberg" title:diffusion abstract:"score matching" topic:视觉 作者：李明')
    assert parsed.field_clauses == [
        Clause("Søren Hauberg", phrase=True, field="author"),
        Clause("diffusion", field="title"),
        Clause("score matching", phrase=True, field="abstract"),
        Clause("视觉", field="topic"),
        Clause("李明", field="author"),
    ]
    assert parsed.terms == []


def test_field_names_are_case_insensitive_and_negatable():
    parsed = parse_query("Author:smith -TITLE:survey")
    assert parsed.field_clauses == [Clause("smith", field="author"),
                                    Clause("survey", field="title", excluded=True)]


def test_unknown_field_is_text():
    assert parse_query("foo:bar").terms == ["foo:bar"]
    assert parse_query("http://example.org").terms == ["http://example.org"]
    assert parse_query("author: smith").terms == ["author:", "smith"]


def test_unbalanced_quote_is_text():
    assert parse_query('"graph neural').terms == ["graph", "neural"]
    assert parse_query('author:"Hauberg').field_clauses == [Clause("Hauberg", field="author")]
    assert parse_query('graph"neural').terms == ['graph"neural']  # the analyzer splits it


def test_punctuation_only_tokens_are_dropped():
    parsed = parse_query('&& || ! ( ) * ? "" -"" "!!" zebra')
    assert parsed.terms == ["zebra"]
    assert parsed.phrases == [] and excluded_phrases(parsed) == []


def test_query_syntax_is_just_text():
    parsed = parse_query("title:(a OR b) AND c* ~2 ^3 {x TO y}")
    assert [c.field for c in parsed.clauses] == ["title"] + [None] * 9
    assert parsed.clauses[0].text == "(a"  # a word, matched as text; nothing is interpreted


def test_scripts_are_split():
    assert parse_query("Transformer模型 推理，加速").terms == ["Transformer", "模型", "推理", "加速"]


def test_round_trip_and_corrections():
    raw = 'deraning "image" -zebra author:"Li Ming" -"x y"'
    parsed = parse_query(raw)
    assert parsed.to_string() == raw
    assert parsed.replace_terms({"deraning": "deraining"}).to_string() == (
        'deraining "image" -zebra author:"Li Ming" -"x y"')


def test_limits():
    # The length of q is checked once, by the controller (tests/unit/test_params.py); the parser limits clauses.
    with pytest.raises(BadQuery, match="too many"):
        parse_query(" ".join(["w"] * (MAX_CLAUSES + 1)))
    assert len(parse_query(" ".join(["w"] * MAX_CLAUSES)).clauses) == MAX_CLAUSES


def test_parsed_query_is_a_value():
    assert parse_query("a b") == ParsedQuery((Clause("a"), Clause("b")))
