from __future__ import annotations

import json

import bodies
import pytest

from webapp.domain import SearchParams, SearchResult
from webapp.services.bodies import clauses as wq
from webapp.services.bodies import render
from webapp.services.lookups import completion
from webapp.services.lookups.papers import more_like_this
from webapp.services.plan.requests import Spelling
from webapp.services.query.parser import Clause, parse_query
from webapp.services.search_settings import search_config

CONFIG = search_config()
ALL_FIELDS = wq.boosted(CONFIG.query_fields)


def walk(node):
    """Every dict inside a query, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def query_types(query) -> set[str]:
    return {key for node in walk(query) for key in node}


# --- text ---------------------------------------------------------------------------------------------


def test_boosted_fields_come_from_config():
    assert "title^6" in ALL_FIELDS and "abstract" in ALL_FIELDS and "abstract.exact^0.5" in ALL_FIELDS


def test_a_word_is_scored_across_its_scripts_fields_and_at_a_low_weight_in_the_others():
    topics = CONFIG.field_aliases.topic
    text = [f for f in ALL_FIELDS if f.split("^")[0] not in topics]
    latin = [f for f in text if not wq.is_chinese_field(f)]
    chinese = [f for f in text if wq.is_chinese_field(f)]
    common = {"type": "cross_fields", "operator": "and", "tie_breaker": CONFIG.word_tie_breaker}
    assert wq.term_clause("gan", CONFIG) == {"dis_max": {"queries": [
        {"multi_match": {"query": "gan", **common, "fields": latin, "zero_terms_query": "all"}},
        # "(Extreme learning machine, ELM)" inside a Chinese abstract: rare there, so it must weigh little
        {"multi_match": {"query": "gan", **common, "fields": chinese, "zero_terms_query": "none",
                         "boost": CONFIG.other_script_weight}}]}}


def test_a_chinese_run_is_one_run_in_the_latin_fields_and_a_concept_one_run_everywhere():
    words, latin = wq.term_clause("图神经网络", CONFIG)["dis_max"]["queries"]
    assert words["multi_match"]["type"] == "cross_fields"
    assert all(wq.is_chinese_field(f) for f in words["multi_match"]["fields"])
    # Latin-script fields hold Chinese as single characters (author keywords): the run in order, not 图 … 网
    # at other_script_weight: a phrase of single characters is rare, so it would outscore the Chinese fields
    assert latin["multi_match"]["type"] == "phrase" and "keywords^6" in latin["multi_match"]["fields"]
    assert latin["multi_match"]["boost"] == CONFIG.other_script_weight
    own, latin_unit = wq.term_clause("图神经网络", CONFIG, unit=True)["dis_max"]["queries"]
    assert own["multi_match"]["type"] == "phrase" and "title_zh^6" in own["multi_match"]["fields"]
    assert latin_unit == latin
    assert wq.term_clause("graph", CONFIG, unit=True) == wq.term_clause("graph", CONFIG)  # Latin words as ever


def test_a_word_in_a_topic_label_adds_a_constant_beside_the_text():
    word = bodies.text_query(["gan"], [], CONFIG)
    assert word == {"bool": {"should": [wq.term_clause("gan", CONFIG), wq.topic_lift("gan", CONFIG)],
                             "minimum_should_match": 1}}
    lift = wq.topic_lift("图神经网络", CONFIG)["constant_score"]
    assert lift["boost"] == CONFIG.topic_boost["zh"] and wq.topic_lift("gan", CONFIG)["constant_score"][
        "boost"] == CONFIG.topic_boost["en"]
    assert lift["filter"]["multi_match"]["fields"] == CONFIG.field_aliases.topic


def test_relaxed_term_needs_most_of_its_tokens():
    relaxed = wq.term_clause("nylamine,NPB", CONFIG, relaxed=True)["dis_max"]["queries"][0]["bool"]["must"][0]
    relaxed = relaxed["multi_match"]
    assert relaxed["operator"] == "or"
    assert relaxed["minimum_should_match"] == CONFIG.relaxation.term_minimum_should_match


def test_long_term_gets_a_low_boost_fuzzy_fallback():
    clause = wq.term_clause("diffusion", CONFIG, "text")
    exact, fuzzy = clause["bool"]["should"]
    assert clause["bool"]["minimum_should_match"] == 1
    assert "fuzziness" not in str(exact)
    fuzzy = fuzzy["multi_match"]
    assert fuzzy["fuzziness"] == "AUTO" and fuzzy["boost"] < 1
    q = CONFIG.query_fields
    assert fuzzy["fields"] == wq.boosted({"title.exact": q["title"], "authors": q["authors"],
                                          "topic_area.text": q["topic_area.text"],
                                          "topic_subarea.text": q["topic_subarea.text"], "keywords": q["keywords"],
                                          "math": q["math"],
                                          "abstract.exact": q["abstract"]})  # unstemmed where there is a choice


@pytest.mark.parametrize("term", ["大语言模型", "gpt-4", "2024", "gan"])
def test_no_fuzziness_for_chinese_numbers_or_short_words(term):
    assert bodies.searched(parse_query(term)).words.typos(term, True) == ""


def test_four_letter_words_are_forgiven_typos_in_author_names_only():
    s = bodies.searched(parse_query("zeev"))
    assert s.words.typos("zeev", True) == "authors" and s.words.typos("diffusion", True) == "text"
    assert s.words.typos("diffusion", False) == "" and s.words.typos("diffusion", frozenset({"diffusion"})) == "text"
    assert wq.fuzzy_clause("zeev", "authors", CONFIG)["multi_match"]["fields"] == ["authors^2"]


def test_text_clause_requires_every_word():
    assert bodies.text_query([], [], CONFIG) is None
    many = bodies.text_query(["v", "w", "x", "y", "z"], [], CONFIG)
    assert len(many["bool"]["should"]) == 5
    assert many["bool"]["minimum_should_match"] == 5


def test_relaxed_text_clause_names_each_word_and_needs_most_of_them():
    relaxed = bodies.text_query(["graph", "neural", "networks"], [], CONFIG, relaxed=True)["bool"]
    assert relaxed["minimum_should_match"] == 2  # all but one of three ("1<-1 3<50%")
    names = [next(iter(c.values()))["_name"] for c in relaxed["should"]]
    assert names == ["word:0", "word:1", "word:2"]
    words_alone = CONFIG.model_copy(update={"glosses": CONFIG.glosses.model_copy(update={"enabled": False})})
    single = bodies.text_query(["大豆制浆"], [], words_alone, relaxed=True)["function_score"]  # word_boost: 57.6
    assert single["_name"] == "word:0" and single["functions"] == [{"weight": CONFIG.relaxation.word_boost}]
    typed, lift = single["query"]["bool"]["should"]
    assert typed["dis_max"]["queries"][0]["multi_match"]["operator"] == "or"
    assert lift["constant_score"]["filter"]["multi_match"]["operator"] == "or"


def test_proximity_boost():
    assert wq.proximity_boost(["gan"], CONFIG) is None
    boost = wq.proximity_boost(["graph", "networks"], CONFIG)["multi_match"]
    assert boost == {"query": "graph networks", "type": "phrase", "fields": wq.boosted(CONFIG.phrase_fields),
                     "slop": CONFIG.phrase_slop}
    assert wq.proximity_boost(["大语言模型"], CONFIG) is not None  # adjacency matters within a Chinese run


def test_long_queries_also_reward_neighbouring_word_pairs():
    pairs = CONFIG.word_pairs
    short = ["w"] * (pairs.min_words - 1)
    assert "multi_match" in wq.proximity_boost(short, CONFIG)  # the whole phrase only: short queries unchanged
    terms = ["restricted", "boltzmann", "machines", "为", "hopfield"]
    whole, *rest = wq.proximity_boost(terms, CONFIG)["bool"]["should"]
    assert whole["multi_match"]["query"] == "restricted boltzmann machines 为 hopfield"
    assert [p["multi_match"]["query"] for p in rest] == ["restricted boltzmann", "boltzmann machines"]
    assert all(p["multi_match"]["slop"] == pairs.slop and p["multi_match"]["boost"] == pairs.boost
               and p["multi_match"]["fields"] == wq.boosted(pairs.fields) for p in rest)


def test_field_clause_uses_aliases_with_boosts():
    clause = wq.field_clause(Clause("diffusion", field="title"), CONFIG)
    assert clause == {"multi_match": {"query": "diffusion", "type": "best_fields", "operator": "and",
                                      "fields": ["title^6", "title.exact^3", "title_zh^6", "title_zh.bigram^3"]}}
    phrase = wq.field_clause(Clause("score matching", phrase=True, field="abstract"), CONFIG)
    assert phrase["multi_match"]["type"] == "phrase"
    assert phrase["multi_match"]["fields"] == [
        "abstract", "abstract.exact^0.5", "abstract_zh", "abstract_zh.bigram^0.5"]


def test_author_clause_is_the_persons_keys_and_similar_names_only_when_none():
    keys = wq.field_clause(Clause("Soren Hauberg", phrase=True, field="author", keys=("soren hauberg",)), CONFIG)
    assert keys == {"terms": {"author_keys": ["soren hauberg"]}}
    nobody = wq.field_clause(Clause("Soren Hauberg", phrase=True, field="author", keys=()), CONFIG)
    assert nobody == {"match_none": {}}  # not looked up as fuzzy: nothing to find


def test_author_clause_phrase_or_fuzzy_parts():
    clause = wq.field_clause(Clause("Soren Hauberg", phrase=True, field="author", keys=(), fuzzy=True), CONFIG)
    phrase, intervals = clause["bool"]["should"]
    assert phrase["multi_match"] == {"query": "Soren Hauberg", "type": "phrase", "fields": ["authors"], "slop": 1}
    rule = intervals["intervals"]["authors"]["all_of"]
    assert rule["max_gaps"] == 1
    assert [r["fuzzy"]["term"] for r in rule["intervals"]] == ["soren", "hauberg"]


def test_chinese_author_is_a_phrase_only():
    clause = wq.field_clause(Clause("李明", field="author"), CONFIG)
    assert clause == {"multi_match": {"query": "李明", "type": "phrase", "fields": ["authors"], "slop": 1}}


def test_build_query_combines_concerns():
    query = bodies.build_query(parse_query('graph networks "message passing" author:hopper -zebra -"x y"'), CONFIG)
    bool_ = query["bool"]
    text, phrase, author = bool_["must"]
    assert len(text["bool"]["should"]) == 2
    assert phrase["multi_match"]["type"] == "phrase" and phrase["multi_match"]["query"] == "message passing"
    assert author["multi_match"]["type"] == "phrase"  # not looked up: the name as a phrase, no typos
    assert bool_["should"][0]["multi_match"]["query"] == "graph networks"
    excluded = [c["multi_match"] for c in bool_["must_not"]]
    assert [(e["query"], e["type"]) for e in excluded] == [("zebra", "best_fields"), ("x y", "phrase")]


def test_excluded_author_is_strict():
    query = bodies.build_query(parse_query("graph -author:smith"), CONFIG)
    assert query["bool"]["must_not"] == [{"multi_match": {"query": "smith", "type": "phrase",
                                                          "fields": ["authors"], "slop": 1}}]


def test_empty_query_is_match_all():
    assert bodies.build_query(parse_query(""), CONFIG) == {"match_all": {}}
    only_not = bodies.build_query(parse_query("-zebra"), CONFIG)
    assert only_not["bool"]["must"] == [{"match_all": {}}] and only_not["bool"]["must_not"]


def test_user_text_never_reaches_query_string():
    nasty = 'title:(a OR b) AND c* ~2 ^3 {x TO y} "unclosed -"" author:"x" \\ / <script>'
    body = bodies.search_body(parse_query(nasty), SearchParams(q=nasty), CONFIG)
    types = query_types(body["query"])
    assert not types & {"query_string", "simple_query_string", "regexp", "wildcard", "script"}
    json.dumps(body)  # serialisable as is


# --- facets -------------------------------------------------------------------------------------------


def test_no_filters_no_post_filter():
    params = SearchParams()
    assert CONFIG.faceted.filters(params) == {}
    assert "post_filter" not in bodies.search_body(parse_query(""), params, CONFIG)


def test_topic_filter_subarea_narrows_its_area():
    f = CONFIG.topic.filter_of(["Deep Learning", "Theory"], ["Deep Learning > Theory"])
    assert f == {"bool": {"should": [{"terms": {"topic_area": ["Theory"]}},
                                     {"terms": {"topic_path": ["Deep Learning > Theory"]}}],
                          "minimum_should_match": 1}}
    assert CONFIG.topic.filter_of(["Theory"], []) == {"terms": {"topic_area": ["Theory"]}}
    assert CONFIG.topic.filter_of([], []) is None


def test_facets_are_disjunctive():
    params = SearchParams(areas=["Theory"], filters={"year": ["2020", "2021"]})
    body = bodies.search_body(parse_query("graph"), params, CONFIG)
    topic_f = {"terms": {"topic_area": ["Theory"]}}
    year_f = {"terms": {"year": ["2020", "2021"]}}
    assert body["post_filter"] == {"bool": {"filter": [topic_f, year_f]}}
    # each facet is counted under the other facets' filters only
    assert body["aggs"]["topic"]["filter"] == {"bool": {"filter": [year_f]}}
    assert body["aggs"]["year"]["filter"] == {"bool": {"filter": [topic_f]}}
    # filters never touch the scoring query (its one `terms` is the introduced name's lift, D-229)
    scoring = json.dumps(body["query"])
    assert '"topic_area"' not in scoring and '"year"' not in scoring


def test_venue_facet_and_year_range_come_from_the_config():
    params = SearchParams(filters={"venue": ["ICLR", "ICML"]}, ranges={"year_from": 2021, "year_to": 2023})
    filters = CONFIG.faceted.filters(params)
    any_case = [{"term": {"venue": {"value": v, "case_insensitive": True}}} for v in ("ICLR", "ICML")]
    assert filters == {"venue": {"bool": {"should": any_case, "minimum_should_match": 1}},
                       "year": {"range": {"year": {"gte": 2021, "lte": 2023}}}}
    both = CONFIG.faceted.filters(SearchParams(filters={"year": ["2020"]}, ranges={"year_from": 2019}))["year"]
    assert both == {"bool": {"filter": [{"terms": {"year": ["2020"]}}, {"range": {"year": {"gte": 2019}}}]}}
    aggs = CONFIG.faceted.aggregations(filters)
    assert aggs["venue"]["aggs"]["values"]["terms"] == {"field": "venue", "size": 30, "exclude": [""]}
    assert aggs["venue"]["filter"] == {"bool": {"filter": [filters["year"]]}}  # disjunctive
    assert aggs["year"]["aggs"]["span"] == {"stats": {"field": "year"}}  # the range inputs' placeholders
    assert "span" not in aggs["venue"]["aggs"]


def test_facet_values_and_range_from_buckets():
    params = SearchParams(filters={"year": ["2021"]}, ranges={"year_to": 2023})
    aggs = {"year": {"values": {"buckets": [{"key": 2020, "doc_count": 4}, {"key": 2023, "doc_count": 2}]},
                     "span": {"min": 2019.0, "max": 2024.0}},
            "venue": {"values": {"buckets": [{"key": "ICLR", "doc_count": 6}]}}}
    by_name = {f.name: f for f in CONFIG.faceted.read(aggs, params)}
    year = by_name["year"]
    assert [(v.value, v.count, v.selected) for v in year.values] == [("2023", 2, False), ("2021", 0, True),
                                                                      ("2020", 4, False)]
    assert year.range.model_dump() == {"param_from": "year_from", "param_to": "year_to", "low": None, "high": 2023,
                                       "min": 2019, "max": 2024}
    assert by_name["venue"].range is None and by_name["venue"].values[0].value == "ICLR"


def test_topic_aggregation_is_hierarchical():
    agg = CONFIG.faceted.aggregations({})["topic"]
    assert agg["filter"] == {"match_all": {}}
    areas = agg["aggs"]["values"]
    assert areas["terms"] == {"field": "topic_area", "size": 50}
    assert areas["aggs"]["children"]["terms"] == {"field": "topic_path", "size": 200}


# --- sort, paging, highlight, suggest -------------------------------------------------------------------


@pytest.mark.parametrize("sort", ["relevance", "year", "title"])
def test_sort_from_config(sort):
    body = bodies.search_body(parse_query("graph"), SearchParams(sort=sort), CONFIG)
    assert body["sort"] == CONFIG.sorts[sort]
    # Without words every paper scores the same: a score sort is its tie-breaks alone.
    browse = bodies.search_body(parse_query(""), SearchParams(sort=sort), CONFIG)
    assert browse["sort"] == [s for s in CONFIG.sorts[sort] if s != {"_score": "desc"}]


def test_page_count_stops_at_the_result_window():
    window = CONFIG.max_result_window
    assert SearchParams(size=10).page_count(43, window) == 5
    assert SearchParams(size=10).page_count(0, window) == 0
    assert SearchParams(size=25).page_count(10 * window, window) == window // 25
    assert SearchParams(page=3, size=25).offset == 50


def test_too_deep_only_where_there_are_results_beyond_the_window_else_past_the_last_page():
    """Issue 44.6: page 9999 of 690 results is past the last page (69), not "only the first 10,000 can be paged"."""
    window = CONFIG.max_result_window
    deep = SearchParams(q="diffusion", page=9999, size=10)
    assert deep.is_too_deep(window) and not deep.too_deep_for(690, window)  # no results there
    result = SearchResult(params=deep, total=690, took_ms=1, hits=[], facets=[],
                          page_count=deep.page_count(690, window), too_deep=deep.too_deep_for(690, window))
    assert (result.page_count, result.too_deep, result.past_last_page) == (69, False, True)
    beyond = SearchParams(page=window // 10 + 1, size=10)
    assert beyond.too_deep_for(window + 50, window) and beyond.too_deep_for(window, window, total_is_exact=False)
    assert not SearchParams(page=window // 10, size=10).too_deep_for(window + 50, window)  # the last page
    # The last page holds whole pages only, so it is never itself beyond the window (size 7: 1428 pages, not 1429).
    last = SearchParams(size=7).page_count(window + 50, window)
    assert last == window // 7 and not SearchParams(page=last, size=7).is_too_deep(window)


def test_pagination_and_exact_totals():
    body = bodies.search_body(parse_query("x"), SearchParams(page=3, size=25), CONFIG)
    assert (body["from"], body["size"], body["track_total_hits"]) == (50, 25, True)
    assert body["highlight"]["encoder"] == "html" and body["highlight"]["pre_tags"] == ["<mark>"]


def test_too_deep_asks_for_counts_only():
    params = SearchParams(page=CONFIG.max_result_window // 10 + 1, size=10)
    assert params.is_too_deep(CONFIG.max_result_window)
    body = bodies.search_body(parse_query("x"), params, CONFIG)
    assert (body["from"], body["size"]) == (0, 0) and "highlight" not in body and body["aggs"]
    assert not SearchParams(page=CONFIG.max_result_window // 10, size=10).is_too_deep(CONFIG.max_result_window)


def test_spelling_check_only_for_latin_words_and_only_in_its_own_round():
    words = bodies.searched(parse_query("大语言模型 gan GPT-4 Diffsuion diffsuion")).words
    assert words.spelling_words == ("diffsuion",)
    s = bodies.searched(parse_query("diffsuion 模型"), SearchParams(q="diffsuion 模型"))
    first, _, spelling = s.as_typed()
    assert spelling is None and s.spelling_check(0) == Spelling(("diffsuion",))  # in its own round
    assert s.spelling_check(CONFIG.relaxation.below) is None  # enough papers: no check
    body = render.body(first, CONFIG)
    assert "suggest" not in body and set(body["aggs"]) == {f.name for f in CONFIG.facets}
    suggest, known = render.body(Spelling(("diffsuion",)), CONFIG)
    assert suggest["suggest"]["text"] == "diffsuion" and suggest["size"] == 0
    fields = {s["term"]["field"] for k, s in suggest["suggest"].items() if k != "text"}
    assert fields == set(CONFIG.spelling.fields)
    assert known["track_total_hits"] == CONFIG.spelling.rare_below and known["size"] == 0
    assert "fuzziness" not in json.dumps(known)
    assert bodies.searched(parse_query("diffsuion"), core=True).as_typed()[2] == Spelling(("diffsuion",))
    assert bodies.searched(parse_query("模型"), core=True).as_typed()[2] is None


def test_exists_body_includes_filters_and_counts_one_paper():
    params = SearchParams(filters={"year": ["2020"]})
    body = bodies.exists_body(parse_query("graph"), params, CONFIG)
    assert body["query"]["bool"]["filter"] == [{"terms": {"year": ["2020"]}}]
    assert (body["size"], body["track_total_hits"]) == (0, 1)


def test_completion_and_more_like_this():
    assert completion.completion_suggest("dif", 8, CONFIG) == {"paper": {"prefix": "dif", "completion": {
        "field": "suggest", "size": 8 * completion.OVERFETCH, "skip_duplicates": True}}}
    mlt = more_like_this("papers-v1", "p1", CONFIG)["more_like_this"]
    assert mlt["fields"] == CONFIG.similar.fields and mlt["like"] == [{"_index": "papers-v1", "_id": "p1"}]


def test_highlight_marks_what_the_words_matched_not_the_typo_fallback():
    parsed = parse_query('diffusion transformer "video generation"')
    body = bodies.search_body(parsed, SearchParams(q="diffusion transformer"), CONFIG)
    assert any("fuzziness" in node for node in walk(body["query"]))
    highlight_query = body["highlight"]["highlight_query"]
    assert not any("fuzziness" in node for node in walk(highlight_query))
    # A lean query: the words on the highlighted fields, the phrase; no cross-field, closeness or concept clauses.
    words, phrase = highlight_query["bool"]["should"]
    assert words == {"multi_match": {"query": "diffusion transformer", "fields": render.highlighted_fields(CONFIG)}}
    assert phrase["multi_match"]["type"] == "phrase" and phrase["multi_match"]["query"] == "video generation"
    assert set(render.highlighted_fields(CONFIG)) >= set(CONFIG.highlight.fields)
    assert body["highlight"]["encoder"] == "html"
