from __future__ import annotations

from webapp.services.query.parser import (
    Clause,
    ParsedQuery,
    cut_text,
    parse_query,
    take_filters,
    year_span,
)
from webapp.services.search_settings import search_config

MAX_CLAUSES = search_config().query_cost.max_clauses
MAX_SEARCHED = search_config().max_searched_length


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


def test_a_minus_before_a_digit_is_text():
    # pasted fragments ("-3型垄向区田筑") and negative numbers are not exclusions
    assert parse_query("-3型垄向区田筑").terms == ["-3", "型垄向区田筑"]
    assert parse_query("loss -0.5").terms == ["loss", "-0.5"] and not excluded_terms(parse_query("loss -0.5"))
    assert excluded_terms(parse_query("-模型 -author:x")) == ["模型"]


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
    # The length of q is checked once, by the controller (tests/unit/test_params.py); a longer query than is
    # searched (a pasted 33-word sentence, 700 characters) is cut to its beginning, and says so (issue 44.4).
    long = parse_query(" ".join(f"w{i}" for i in range(MAX_CLAUSES + 1)))
    assert long.cut and len(long.clauses) == MAX_CLAUSES and long.terms[-1] == f"w{MAX_CLAUSES - 1}"
    exact = parse_query(" ".join(["w"] * MAX_CLAUSES))
    assert len(exact.clauses) == MAX_CLAUSES and not exact.cut
    text, cut = cut_text("word " * 140 + "end")
    assert cut and len(text) <= MAX_SEARCHED and text.endswith("word") and cut_text("a b") == ("a b", False)


def test_or_between_plain_words():
    parsed = parse_query("diffusion OR GAN model")
    assert parsed.terms == ["diffusion", "GAN", "model"] and parsed.term_groups == [1, 1, 0]
    assert parsed.to_string() == "diffusion OR GAN model"
    assert parse_query("a OR b OR c").term_groups == [1, 1, 1]
    # Beside a phrase or at an end, OR is the word (a stop word), not an operator; "or" is always the word.
    assert parse_query('"a b" OR c').term_groups == [0, 0]
    assert parse_query("x OR").terms == ["x", "OR"] and parse_query("x or y").term_groups == [0, 0, 0]


def test_facet_clauses_are_taken_out():
    prefixes = {"venue": "venue", "year": "year"}
    assert take_filters('venue:ICLR diffusion year:2021 venue:"Neural Info" foo:bar', prefixes) == (
        "diffusion foo:bar", [("venue", "ICLR"), ("year", "2021"), ("venue", "Neural Info")])
    assert take_filters("venue: x", prefixes) == ("venue: x", [])


def test_corrections_keep_the_casing_typed():
    parsed = parse_query("Yoshua Bengoi GANN lerning")
    fixed = parsed.replace_terms({"bengoi": "bengio", "gann": "gan", "lerning": "learning"})
    assert fixed.to_string() == "Yoshua Bengio GAN learning"


def test_parsed_query_is_a_value():
    assert parse_query("a b") == ParsedQuery((Clause("a"), Clause("b")))


def test_a_full_width_minus_excludes():
    # Issue 57.8: "diffusion －image" searched －image as a word.
    parsed = parse_query("diffusion －image －“score matching”")
    assert parsed.terms == ["diffusion"]
    assert excluded_terms(parsed) == ["image"]
    assert excluded_phrases(parsed) == ["score matching"]


def test_year_bounds_are_spans():
    # Issue 57.8: year:>2022 was searched as words.
    assert year_span("2019-2021") == (2019, 2021)
    assert year_span(">2022") == (2023, None)
    assert year_span(">=2022") == (2022, None)
    assert year_span("＞＝2022") == (2022, None)
    assert year_span("<2020") == (None, 2019)
    assert year_span("<=2020") == (None, 2020)
    assert year_span("≤2020") == (None, 2020)
    for not_a_span in ("2021", ">", "soon", ">>2020", "=2020"):
        assert year_span(not_a_span) is None
