"""webapp/services/plan/ladder.py: the search plan and the bodies its one renderer (webapp/services/bodies/render.py)
makes of it; no sender, no node.

The ladder as the plan runs it (plan.Search.rounds): each round's requests out, their readings in, and the outcome
the plan decides. The plan's requests as rendered. The relaxation ladder as pure functions: when to relax, the
relaxed request, and reading its hits."""

from __future__ import annotations

import json
from typing import Any

import bodies
import pytest

from papersearch import concepts
from webapp.domain import SearchParams
from webapp.services.bodies import clauses as cl
from webapp.services.bodies import render
from webapp.services.bodies import text_query as tc
from webapp.services.es_syntax import named
from webapp.services.plan import ladder as plan
from webapp.services.plan.describe import describe
from webapp.services.plan.requests import Found, Live, Option, Reading, Spelled, Spelling, may_fail
from webapp.services.query import expansion as xp
from webapp.services.query.parser import Clause, ParsedQuery, parse_query
from webapp.services.results.hits import missing_words, relevance_score
from webapp.services.search_settings import WebSearchConfig, search_config

# --- the rounds the ladder takes (plan.Search.rounds) ------------------------------------------------------------

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


def searched_live(q: str, **live: Any) -> plan.Search:
    return plan.Search(parse_query(q), SearchParams(q=q), CONFIG, (), Live(**live))


def test_nothing_has_the_words_the_corrected_querys_results_are_shown():
    names, outcome = run(searched_live("atention", profile="plugin"), [Found(0, True)], [ATTENTION],
                         [Found(7, True, "answer")])
    assert names == ["as_typed", "spelling_check", "corrected"]
    assert (outcome.showing_for, outcome.did_you_mean, outcome.fallbacks) == ("attention", None, ("corrected",))
    assert outcome.shown.answer == "answer" and outcome.page.text.words[0].text == "attention"


def test_the_corrected_query_finding_nothing_falls_back_to_the_relaxed_page():
    names, outcome = run(searched_live("atention", profile="plugin"), [Found(0, True)], [ATTENTION], [Found(0, True)],
                         [Found(3, True, "relaxed")])
    assert names == ["as_typed", "spelling_check", "corrected", "relaxed"]
    assert outcome.fallbacks == ("relaxed",) and outcome.showing_for is None and outcome.did_you_mean is None
    assert outcome.partial.all_words == 0 and outcome.page.tier == "relaxed" and outcome.shown.total == 3


def test_a_refused_relaxed_page_keeps_the_words_as_typed_and_still_offers_the_correction():
    rare = Spelled({"lanuguage": 2, "models": 5000}, {"lanuguage": [Option("language", 0.89, 900)]})
    names, outcome = run(searched_live("lanuguage models", profile="plugin"), [Found(2, True, "typed")], [rare],
                         [None, Found(1, True)])
    assert names == ["as_typed", "spelling_check", "relaxed"]
    assert outcome.shown.answer == "typed" and outcome.page.tier == "as_typed" and outcome.partial is None
    assert (outcome.did_you_mean, outcome.fallbacks) == ("language models", ("did_you_mean",))


def test_enough_papers_end_the_ladder_a_large_index_asks_for_its_facets_apart():
    names, outcome = run(searched_live("diffusion models", papers=1_000_000), [Found(500, True)], [{"year": {}}])
    assert names == ["as_typed", "facets"] and outcome.fallbacks == ()
    assert outcome.facets and outcome.facets.probability == 1.0 and outcome.aggregations == {"year": {}}


def test_which_failures_only_cost_a_suggestion():
    s = searched_live("lanuguage models")
    page, _, _ = s.as_typed()
    relaxed, check = s.relaxed(True), s.check(parse_query("language models"))
    assert may_fail(Spelling(("lanuguage",)), refused=False) and may_fail(check, refused=False)
    assert may_fail(relaxed, refused=True) and not may_fail(relaxed, refused=False)
    assert not may_fail(page, refused=True)


# --- the plan's requests, rendered --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def matcher() -> concepts.ConceptMatcher:
    return concepts.matcher()


def searched(q: str, matcher=None, **params) -> plan.Search:
    parsed = parse_query(q)
    xl = CONFIG.cross_lingual
    found = xp.expansions(parsed.terms, matcher, xl.max_forms, xl.max_concepts) if matcher else []
    return bodies.searched(parsed, SearchParams(q=q, **params), CONFIG, found)


def planned(q: str, matcher=None, **params) -> plan.Page:
    return searched(q, matcher, **params).as_typed()[0]


def with_rescore(window: int) -> WebSearchConfig:
    return CONFIG.model_copy(update={"rescore": CONFIG.rescore.model_copy(update={"window": window})})


def test_describe_shows_words_concepts_closeness_and_filters(matcher):
    page, count, _ = searched("图神经网络 方法", matcher, filters={"year": ["2024"]}).as_typed()
    text = describe(page)
    assert text.startswith("as_typed: sort relevance, page 1 x 10, filters year=2024")
    assert "0: '图神经网络' or concept graph_neural_network" in text and "1: '方法'" in text
    assert "only the concepts graph_neural_network" in text  # English papers need only the concept
    assert "closeness of 图神经网络 方法 rewarded" in text and "2 of 2 required" in text
    assert describe(count).startswith("count: the words as typed, in their own language, up to 10 papers")
    relaxed = bodies.searched(parse_query("stochastik optimisation")).relaxed(True)
    assert "relaxed" in describe(relaxed) and "~typos (text)" in describe(relaxed)


def test_the_as_typed_count_stops_at_the_ladder_threshold_under_the_filters(matcher):
    _, counted, _ = searched("图神经网络 方法", matcher, filters={"year": ["2024"]}).as_typed()
    count = render.body(counted, CONFIG)
    assert count["size"] == 0 and count["track_total_hits"] == CONFIG.relaxation.below
    as_typed, year = count["query"]["bool"]["filter"]
    assert year == {"terms": {"year": ["2024"]}}
    assert "languages" not in json.dumps(as_typed)  # the words in their own language only
    assert searched("diffusion", matcher).as_typed()[1] is None  # nothing to count apart


def test_closeness_is_a_rescore_of_the_first_results_when_sorted_by_score():
    config = with_rescore(100)
    body = render.body(planned("graph neural networks"), config)
    assert "sort" not in body  # Elasticsearch takes no sort beside a rescore
    assert body["rescore"]["window_size"] == 100
    assert body["rescore"]["query"]["rescore_query"] == cl.proximity_boost(["graph", "neural", "networks"], config)
    assert "phrase" not in json.dumps(body["query"])  # the closeness clauses left the query
    by_year = render.body(planned("graph neural networks", sort="year"), config)
    assert "rescore" not in by_year and by_year["sort"] == config.sorts["year"]
    assert "phrase" in json.dumps(by_year["query"])
    assert "rescore" not in render.body(planned("graph"), config)  # one word: nothing to reward
    off = render.body(planned("graph neural networks"), with_rescore(0))
    assert "rescore" not in off and off["sort"] == CONFIG.sorts["relevance"]


def test_only_requests_without_words_are_cached():
    assert planned("").cacheable and planned("", areas=["Deep Learning"]).cacheable
    assert not planned("graph").cacheable and not planned("-graph").cacheable
    assert not planned('author:"Søren Hauberg"').cacheable


def test_first_pages_ask_for_the_request_cache_deeper_ones_only_without_words():
    within = CONFIG.result_cache.within
    assert planned("graph", size=10).worth_caching(CONFIG)
    assert planned("graph", size=10, page=within // 10).worth_caching(CONFIG)  # ends at `within`
    assert not planned("graph", size=10, page=within // 10 + 1).worth_caching(CONFIG)
    assert planned("", size=10, page=within // 10 + 1).worth_caching(CONFIG)  # the browse page, at any depth


def test_the_did_you_mean_check_counts_without_scoring_clauses():
    check = render.body(searched("graph networks").check(parse_query("graph networks")), CONFIG)
    assert check["size"] == 0 and check["track_total_hits"] == 1
    assert "phrase" not in json.dumps(check)  # closeness only orders; a count needs none


def test_highlight_marks_the_concepts_other_forms_on_the_highlighted_fields(matcher):
    p = planned("对比学习", matcher)
    should = render.highlight_query(p.highlight, CONFIG)["bool"]["should"]
    forms = [c["multi_match"] for c in should if c["multi_match"].get("type") == "phrase"]
    assert any(f["query"].casefold() == "contrastive learning" for f in forms)
    assert all(set(f["fields"]) <= set(render.highlighted_fields(CONFIG)) for f in forms)
    assert not any("authors" in f["fields"] for f in forms)


def test_or_makes_one_word_of_alternatives():
    # "diffusion OR GAN": one clause that either word satisfies, not both words required (issue 44.5).
    text = planned("diffusion OR GAN model").text
    assert [w.text for w in text.words] == ["diffusion", "model"] and text.required == 2
    assert [a.text for a in text.words[0].alternatives] == ["GAN"]
    body = json.dumps(render.body(planned("diffusion OR GAN"), CONFIG), ensure_ascii=False)
    assert '"query": "GAN"' in body and '"query": "diffusion"' in body and "OR" not in body.replace('"or"', "")


def test_a_greek_letter_is_searched_in_each_spelling():
    word, = planned("α-divergence").text.words
    assert [a.text for a in word.alternatives] == ["alpha-divergence"]


def test_a_british_spelling_is_searched_as_the_american_one_too():
    # normalisation found 9 papers: the papers spell it normalization (issue 42.3)
    word, = planned("normalisation").text.words
    assert [a.text for a in word.alternatives] == ["normalization"]
    assert not planned("normalization").text.words[0].alternatives


def test_the_function_words_of_a_question_are_no_words_to_match():
    # "when" is in no topic: required, it kept only papers that happen to say it (D-173)
    text = planned("exploration when rewards are sparse").text
    assert [w.text for w in text.words] == ["exploration", "rewards", "sparse"] and text.required == 3
    assert [w.text for w in planned("how").text.words] == ["how"]  # all there is: searched


def test_a_name_like_word_is_corrected_to_an_author():
    # Hintn: hints (abstracts) and Hinton (authors) are as close; typed as a name, it is the name (issue 44.8).
    options = {"hintn": [Option("hints", 0.8, 7), Option("hinton", 0.8, 5, author=True)]}
    _, fixed = searched("Hintn").corrections({"hintn": 0}, options)
    assert fixed is not None and fixed.to_string() == "Hinton"
    _, fixed = searched("hintn").corrections({"hintn": 0}, options)
    assert fixed is not None and fixed.to_string() == "hints"


def test_a_capitalised_word_of_a_title_is_not_corrected_to_a_farther_name():
    # A pasted title capitalises every word: Neurl is one edit from neural and two from the author Neil (D-219).
    options = {"neurl": [Option("neil", 0.6, 12, author=True), Option("neural", 0.8, 900)]}
    _, fixed = searched("Modeling Neurl Collapse").corrections({"neurl": 0}, options)
    assert fixed is not None and fixed.to_string() == "Modeling Neural Collapse"


# --- relaxation ----------------------------------------------------------------------------------------------------

BELOW = CONFIG.relaxation.below
BOOST = CONFIG.relaxation.all_words_boost


@pytest.mark.parametrize(("terms", "typo", "expected"), [
    (["gan"], False, False),  # one short word: nothing to relax
    (["gan", "vae"], False, True),  # several words: most of them
    (["diffusion"], True, True),  # a typo-tolerant form exists
    (["gpt-4"], False, True),  # two tokens in one word
    (["大豆制浆"], False, True),  # a Chinese run of several bigrams
    (["模型"], False, False),
    ([], False, False),
])
def test_can_relax(terms, typo, expected):
    assert bodies.searched(ParsedQuery(tuple(Clause(t) for t in terms))).words.can_relax(typo) is expected


def test_relax_only_below_the_threshold():
    s = bodies.searched(parse_query("a b"))
    assert s.too_few(BELOW - 1) and s.too_few(0) and not s.too_few(BELOW)
    third = s.fallback(BELOW - 1, frozenset(), None)
    assert third.relaxed and third.relaxed.tier == "relaxed" and third.check is None
    assert s.fallback(BELOW, frozenset(), None) == plan.Fallback()


@pytest.mark.parametrize(("words", "required"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 3), (8, 4)])
def test_the_relaxed_share_of_words_is_a_number(words, required):
    s = bodies.searched(parse_query(" ".join(f"w{i}" for i in range(words))))
    assert s.words.text(relaxed=True).required == required  # "1<-1 3<50%", as Elasticsearch reads it
    assert s.words.text().required == words


def test_relaxed_body_ranks_papers_with_every_word_first():
    parsed = parse_query('Lookaheda-Bounded Q-learning "q learning" -zebra')
    params = SearchParams(q=parsed.to_string(), filters={"year": ["2020"]})
    body = bodies.search_body(parsed, params, CONFIG, fuzzy=frozenset({"lookaheda-bounded"}), relaxed=True)
    relaxed, = body["query"]["bool"]["must"]
    tier, typo_tier = body["query"]["bool"]["should"]
    as_typed = bodies.text_query(parsed.terms, [], CONFIG, fuzzy=False)
    assert tier == {"constant_score": {"filter": as_typed, "boost": BOOST, "_name": render.ALL_WORDS_QUERY}}
    # then every word once the unknown one is forgiven its typo, above the papers with some of the words
    forgiven = bodies.text_query(parsed.terms, [], CONFIG, fuzzy=frozenset({"lookaheda-bounded"}))
    assert typo_tier == {"constant_score": {"filter": forgiven, "boost": CONFIG.relaxation.all_words_typos_boost,
                                            "_name": render.ALL_WORDS_TYPOS_QUERY}}
    assert 0 < typo_tier["constant_score"]["boost"] < BOOST
    wider = bodies.searched(parsed, params).relaxed(frozenset({"lookaheda-bounded"}))
    assert relaxed == render.scoring_query(wider, CONFIG, closeness=False)  # closeness: the rescore's
    assert body["rescore"]["query"]["rescore_query"] == cl.proximity_boost(parsed.terms, CONFIG)
    assert body["post_filter"] == {"bool": {"filter": [{"terms": {"year": ["2020"]}}]}}
    # highlighting marks any of the words (a partial match has only some), and the phrase; never the typo
    # fallback nor the excluded word
    highlight = json.dumps(body["highlight"]["highlight_query"])
    assert "fuzziness" not in highlight and "zebra" not in highlight and "q learning" in highlight
    words = body["highlight"]["highlight_query"]["bool"]["should"][0]["multi_match"]
    assert words["query"] == "Lookaheda-Bounded Q-learning" and "operator" not in words


def test_typo_tolerance_only_for_unknown_words():
    relaxed = bodies.text_query(["lookaheda", "bounded"], [], CONFIG, fuzzy=frozenset({"lookaheda"}), relaxed=True)
    first, second = relaxed["bool"]["should"]
    # each has its surface clause (issue 57.6); only the unknown word its typo fallback besides
    assert json.dumps(first).count("fuzziness") == 2 and json.dumps(second).count("fuzziness") == 1
    s = bodies.searched(parse_query("Lookaheda bounded Q-learning GAN"))
    assert s.words.typo_words(frozenset({"lookaheda", "gan"})) == frozenset({"lookaheda"})  # GAN: too short for typos


def test_strict_body_has_no_tier():
    body = bodies.search_body(parse_query("graph networks"), SearchParams(), CONFIG)
    assert render.ALL_WORDS_QUERY not in json.dumps(body)
    words, introduced = body["query"]["bool"]["must"][0], body["query"]["bool"]["should"][0]
    assert words["bool"]["minimum_should_match"] == 2  # both words; closeness is the rescore's
    assert introduced["terms"]["introduces"] == ["graph networks"]  # D-210, D-229


def test_named_keeps_the_query():
    assert named({"multi_match": {"query": "x"}}, "word:3") == {"multi_match": {"query": "x", "_name": "word:3"}}


def test_missing_words_from_matched_queries():
    terms = list(enumerate(["interactino", "grounded", "learning"]))
    assert missing_words(["word:1", "word:2"], terms) == ["interactino"]
    assert missing_words([render.ALL_WORDS_QUERY, "word:0", "word:1", "word:2"], terms) == []
    assert missing_words([], terms) == [t for _, t in terms]
    assert missing_words(["word:2"], [(0, "noisy"), (2, "labels")]) == ["noisy"]  # a stop word between: no Word


def test_score_without_the_tier_bonus():
    assert relevance_score(BOOST + 12.5, [render.ALL_WORDS_QUERY], CONFIG) == 12.5
    word = CONFIG.relaxation.word_boost  # for each word a relaxed hit has (issue 57.6)
    assert relevance_score(word + 7.0, ["word:0"], CONFIG) == 7.0
    assert relevance_score(BOOST + 2 * word + 1.5, [render.ALL_WORDS_QUERY, "word:0", "word:1"], CONFIG) == 1.5
    assert relevance_score(None, [], CONFIG) is None


def test_without_typos_there_is_one_tier_and_the_score_shown_drops_every_bonus():
    parsed = parse_query("graph neural network")
    body = bodies.search_body(parsed, SearchParams(q=parsed.to_string()), CONFIG, fuzzy=False, relaxed=True)
    assert [t["constant_score"]["_name"] for t in body["query"]["bool"]["should"]] == [render.ALL_WORDS_QUERY]
    typo_boost = CONFIG.relaxation.all_words_typos_boost
    both = [render.ALL_WORDS_QUERY, render.ALL_WORDS_TYPOS_QUERY]
    assert relevance_score(BOOST + typo_boost + 2.5, both, CONFIG) == 2.5
    word = CONFIG.relaxation.word_boost
    assert relevance_score(typo_boost + word + 2.5, [render.ALL_WORDS_TYPOS_QUERY, tc.word_name(0)], CONFIG) == 2.5
    assert missing_words([render.ALL_WORDS_TYPOS_QUERY], [(0, "a"), (1, "b")]) == []


def test_corrections_fix_likely_typos_and_never_offer_a_rarer_word():
    s = bodies.searched(parse_query("transfomer atention qwxzv deraning learning"))
    options = {"transfomer": [Option("transformer", 0.9, 800)], "atention": [Option("attention", 0.88, 1500)],
               "qwxzv": [Option("qxcv", 0.6, 1)], "deraning": [Option("deraining", 0.875, 1)],
               "learning": [Option("leaning", 0.85, 90)]}
    counts = {"transfomer": 1, "atention": 0, "qwxzv": 0, "deraning": 0, "learning": 5000}
    unknown, corrected = s.corrections(counts, options)
    assert unknown == frozenset({"atention", "qwxzv", "deraning", "transfomer"})  # and corrected: issue 57.5
    # a word of one paper is still a likely typo when its neighbour is far commoner; a far neighbour of one
    # paper is no correction; a close one is, however rare; a common word is never corrected
    assert corrected.to_string() == "transformer attention qwxzv deraining learning"
    assert s.corrections({"transfomer": 2}, {"transfomer": [Option("transformer", 0.9, 19)]})[1] is None
    assert s.corrections({"qwxzv": 0}, {"qwxzv": [Option("qxcv", 0.6, 1)]}) == (frozenset({"qwxzv"}), None)
    # a first-letter typo of a word no paper has is corrected; a rare word that papers have keeps its first letter
    s = bodies.searched(parse_query("edployment healing"))
    assert s.corrections({"edployment": 0}, {"edployment": [Option("deployment", 0.9, 40)]})[1].to_string() \
        == "deployment healing"
    assert s.corrections({"healing": 2}, {"healing": [Option("dealing", 0.86, 60)]})[1] is None


def test_the_corrected_query_is_shown_only_when_nothing_has_the_words():
    s = bodies.searched(parse_query("atention"))
    fixed = parse_query("attention")
    assert s.fallback(0, frozenset({"atention"}), fixed) == plan.Fallback(corrected=fixed)
    third = s.fallback(2, frozenset(), fixed)  # two papers have the word: they are shown, the correction offered
    assert third.corrected is None and third.check and third.check.tier == "check"
    as_typed = bodies.searched(parse_query("atention"), SearchParams(q="atention", spell=False))
    assert as_typed.fallback(0, frozenset({"atention"}), fixed).corrected is None  # spell=0: never


def test_a_relaxed_word_is_matched_in_its_own_scripts_fields_as_the_strict_one_is():
    """A Chinese word of a pasted fragment is not let into the Latin-script fields as its characters (情 况 in an
    English keyword field outscored the pasted abstract itself: DECISIONS.md D-175)."""
    strict, relaxed = (cl.term_clause("情况下", CONFIG, relaxed=r)["dis_max"]["queries"] for r in (False, True))
    own, foreign = relaxed
    assert all(cl.is_chinese_field(f) for f in own["multi_match"]["fields"])
    assert own["multi_match"]["operator"] == "or"
    assert own["multi_match"]["minimum_should_match"] == CONFIG.relaxation.term_minimum_should_match
    assert foreign == strict[1]  # the run in order, at other_script_weight
    latin_own, latin_foreign = cl.term_clause("nylamine", CONFIG, relaxed=True)["dis_max"]["queries"]
    (latin_own,), (surface,) = latin_own["bool"]["must"], latin_own["bool"]["filter"]
    assert not any(cl.is_chinese_field(f) for f in latin_own["multi_match"]["fields"])
    # and as written, or near it, on the unstemmed fields: not its stem alone (issue 57.6)
    assert surface == cl.surface_clause("nylamine", CONFIG)
    assert "abstract.exact" in surface["multi_match"]["fields"] and "abstract" not in surface["multi_match"]["fields"]
    assert latin_foreign["multi_match"]["boost"] == CONFIG.other_script_weight
