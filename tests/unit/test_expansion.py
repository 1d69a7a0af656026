"""Cross-lingual expansion: which forms a typed query adds, and the shape of the query groups."""

from __future__ import annotations

import json
from pathlib import Path

import bodies
import pytest

from papersearch.concepts import ConceptMatcher, load
from webapp.services.bodies import clauses as wq
from webapp.services.bodies import text_query as text_clauses
from webapp.services.query import expansion as xp
from webapp.services.search_settings import search_config

FIXTURE = Path(__file__).parents[1] / "fixtures" / "concepts-small.tsv"
CONFIG = search_config()


@pytest.fixture(scope="module")
def matcher() -> ConceptMatcher:
    return ConceptMatcher(load(FIXTURE))


@pytest.fixture(scope="module")
def glossary() -> ConceptMatcher:
    """The project's own glossary, for what depends on its real forms (acronyms, taxonomy labels)."""
    return ConceptMatcher(load(Path(__file__).parents[2] / "config" / "concepts.tsv"))


def expand(terms: list[str], matcher: ConceptMatcher) -> list[xp.Expansion]:
    return xp.expansions(terms, matcher, max_forms=6, max_concepts=8)


def test_chinese_query_adds_the_english_forms(matcher) -> None:
    (e,) = expand(["对比学习"], matcher)
    assert e.ids == ("contrastive_learning",) and e.whole_terms
    assert e.en == ("contrastive learning", "contrastive representation learning")
    assert e.zh == ("對比學習",)  # the typed form is not searched twice
    assert e.shown == ("contrastive learning",)


def test_english_acronym_adds_the_long_form_and_chinese(matcher) -> None:
    (e,) = expand(["llm"], matcher)
    assert e.en == ("large language model",)
    assert e.zh[0] == "大语言模型"
    assert e.shown == ("large language model", "大语言模型")
    (e,) = expand(["large", "language", "models"], matcher)
    assert (e.first, e.last) == (0, 2) and e.en == ("LLM",) and e.shown == ("大语言模型",)


def test_traditional_or_synonym_shows_the_main_chinese_name(matcher) -> None:
    (e,) = expand(["大模型"], matcher)
    assert e.shown == ("大语言模型", "large language model")
    assert "大模型" not in e.zh and "大语言模型" in e.zh


def test_ambiguous_acronym_expands_to_each_meaning(matcher) -> None:
    (e,) = expand(["SAM"], matcher)
    assert e.ids == ("segment_anything", "sharpness_aware_minimization")
    assert set(e.en) == {"segment anything model", "sharpness-aware minimization"}


def test_max_forms_per_language_and_concept(matcher) -> None:
    (e,) = xp.expansions(["large", "language", "model"], matcher, max_forms=1, max_concepts=8)
    assert e.zh == ("大语言模型",)


def test_a_pasted_paragraph_expands_only_its_first_concepts(matcher) -> None:
    assert [e.ids for e in expand(["大语言模型的大语言模型"], matcher)] == [("large_language_model",)]  # once
    assert expand(["大语言模型的推理加速方法" * 40], matcher) == []  # a pasted paragraph: as typed
    terms = ["对比学习", "联邦学习", "知识蒸馏", "差分隐私", "图神经网络"]
    assert [e.typed for e in xp.expansions(terms, matcher, max_forms=6, max_concepts=3)] == terms[:3]


def test_a_concepts_words_are_one_clause_its_other_forms_searched_once(matcher) -> None:
    terms = ["contrastive", "learning", "for", "proteins"]
    found = expand(terms, matcher)
    as_typed = bodies.text_query(terms, found, CONFIG)
    group, proteins = as_typed["bool"]["should"]
    assert as_typed["bool"]["minimum_should_match"] == 2  # the concept's words, and proteins ("for" matches all)
    assert word(proteins["bool"]["should"][0]) == wq.term_clause("proteins", CONFIG, "text")
    (concept,) = group["bool"]["must"]
    words, tag = concept["bool"]["should"]
    typed, forms = words["dis_max"]["queries"]
    # every word as typed, or its topic labels in its place (scored beside, as a word's are: DECISIONS.md D-224)
    typed_words = [w["bool"]["should"] for w in typed["bool"]["must"]]
    assert [w[0] for w in typed_words] == [wq.term_clause(t, CONFIG, "text") for t in ("contrastive", "learning")]
    lifts = [wq.topic_lift(t, CONFIG) for t in ("contrastive", "learning")]
    assert [w[1] for w in typed_words] == [{"constant_score": {**lift["constant_score"], "boost": 0}} for lift in lifts]
    assert group["bool"]["should"] == lifts
    # the forms and the tag once, at the concept's whole weight
    assert "boost" not in forms["dis_max"] and tag["term"]["concepts"]["boost"] == CONFIG.cross_lingual.concept_boost
    assert json.dumps(as_typed).count("contrastive representation learning") == 1


def word_clause(term: str) -> dict:
    """A word's whole clause beside others (its text, its typo fallback, its topic labels), no concept in it."""
    return {"bool": {"should": [wq.term_clause(term, CONFIG, "text"), wq.topic_lift(term, CONFIG)],
                     "minimum_should_match": 1}}


def word(clause: dict) -> dict:
    """A word's clause without its topic lifts, {"bool": {"should": [clause, lift, …]}} (one per spelling searched;
    a concept group of the other language has none)."""
    inner = [c for c in clause["bool"]["should"] if "constant_score" not in c]
    return inner[0] if len(inner) == 1 < len(clause["bool"]["should"]) else clause


def concept_part(clause: dict) -> dict:
    """The concept's other forms in a word's clause:
    {"bool": {"should": [{"dis_max": {"queries": [typed, {"dis_max": forms}]}}, tag]}}."""
    words, _tag = word(clause)["bool"]["should"]
    _typed, forms = words["dis_max"]["queries"]
    return forms["dis_max"]


def concept_tag(clause: dict) -> dict:
    return word(clause)["bool"]["should"][-1]


def test_a_concept_adds_the_best_of_its_other_forms_and_its_tag_to_the_words_as_typed(matcher) -> None:
    (e,) = expand(["对比学习"], matcher)
    clause = bodies.text_query(["对比学习"], [e], CONFIG)
    typed = word(clause)["bool"]["should"][0]["dis_max"]["queries"][0]
    assert typed == wq.term_clause("对比学习", CONFIG, unit=True)
    # a Chinese concept is matched as one run, not 对比 … 学习: in the Chinese fields, and in the Latin-script ones
    # (Chinese author keywords there are single characters) at other_script_weight
    own, latin = (q["multi_match"] for q in typed["dis_max"]["queries"])
    assert own["type"] == latin["type"] == "phrase" and latin["boost"] == CONFIG.other_script_weight
    assert word(clause)["bool"]["minimum_should_match"] == 1  # the words or the tag let the paper in; scores add up
    concept = concept_part(clause)
    weighted, *phrases = concept["queries"]
    settings = CONFIG.cross_lingual
    assert weighted["bool"].get("boost", 1) == settings.other_language_weight["zh"]
    name = weighted["bool"]["must"][0] if "boost" in weighted["bool"] else weighted
    # Its English name scores as typed English words: each word across the fields
    assert name["bool"]["must"] == [wq.term_clause("contrastive", CONFIG), wq.term_clause("learning", CONFIG)]
    # … and the name as a phrase, or its words as written close together in any order, let a paper in (D-170)
    rule = {"match": {"query": "contrastive learning", "max_gaps": CONFIG.cross_lingual.name_gaps, "ordered": False}}
    assert name["bool"]["filter"][0]["bool"]["should"] == [
        wq.phrase_clause("contrastive learning", {"title": 6, "keywords": 6, "abstract": 1}),
        *({"intervals": {f: rule}} for f in ("title.exact", "abstract.exact"))]
    phrases = [a["multi_match"] for a in phrases]
    assert [p["query"] for p in phrases] == ["contrastive representation learning", "對比學習"]
    assert all(p["type"] == "phrase" for p in phrases)
    # A synonym in the other language at form_weight of its name, a form in the typed language at same_language_weight
    assert phrases[0].get("boost", 1) == settings.form_weight["en"] * settings.other_language_weight["zh"]
    assert phrases[1].get("boost", 1) == settings.same_language_weight
    english_fields = {f.split("^")[0] for f in phrases[0]["fields"]}
    assert "title" in english_fields and "abstract" in english_fields
    assert not any(wq.is_chinese_field(f) for f in english_fields) and "authors" not in english_fields
    assert all(wq.is_chinese_field(f.split("^")[0]) for f in phrases[1]["fields"])
    # The tag, scored by the concept's rarity (a term query on a keyword field: idf × concept_boost)
    assert concept_tag(clause) == {"term": {"concepts": {"value": "contrastive_learning",
                                                         "boost": CONFIG.cross_lingual.concept_boost}}}
    assert "boost" not in concept  # one word carries the whole concept


def test_an_english_concept_has_its_chinese_name_as_a_chinese_word_at_the_other_language_weight(matcher) -> None:
    (e,) = expand(["federated", "learning"], matcher)
    assert (e.zh_words, e.en_words) == ("联邦学习", "")
    group = bodies.text_query(["federated", "learning"], [e], CONFIG)["bool"]["must"][0]
    name = group["bool"]["should"][0]["dis_max"]["queries"][1]["dis_max"]["queries"][0]
    weight = CONFIG.cross_lingual.other_language_weight["en"]
    # as one run, on the Chinese papers' titles and abstracts (not their keyword lists: DECISIONS.md D-142)
    chinese = text_clauses.form_fields(CONFIG, "zh")
    assert name == {"bool": {"must": [wq.phrase_clause("联邦学习", chinese)], "boost": weight}}


def test_an_acronym_is_weighed_as_a_form_and_a_typed_acronym_keeps_its_words_whole(glossary) -> None:
    (e,) = expand(["强化学习"], glossary)
    assert e.en_words == "Reinforcement Learning"
    forms = {q["multi_match"]["query"]: q["multi_match"].get("boost", 1)
             for q in concept_part(bodies.text_query(["强化学习"], [e], CONFIG))["queries"] if "multi_match" in q}
    settings = CONFIG.cross_lingual
    # RL must not outscore the words it stands for
    assert forms["RL"] == settings.form_weight["en"] * settings.other_language_weight["zh"] < 1
    (typed,) = expand(["RL"], glossary)
    forms = {q["multi_match"]["query"]: q["multi_match"].get("boost", 1)
             for q in concept_part(bodies.text_query(["RL"], [typed], CONFIG))["queries"] if "multi_match" in q}
    assert forms["Reinforcement Learning"] == 1


def first_query(clause: dict | list) -> str:
    """The text of the first match query inside a clause."""
    items = clause.values() if isinstance(clause, dict) else clause
    if isinstance(clause, dict) and isinstance(clause.get("query"), str):
        return clause["query"]
    return next(q for q in (first_query(v) for v in items if isinstance(v, dict | list)) if q)


def test_a_variant_spelling_of_the_typed_name_weighs_less_but_a_typed_variant_finds_the_name(glossary) -> None:
    def forms(typed: str) -> dict[str, tuple[str, float]]:
        (e,) = expand([typed], glossary)
        out = {}
        for q in concept_part(bodies.text_query([typed], [e], CONFIG))["queries"]:
            if "multi_match" in q:
                out[q["multi_match"]["query"]] = ("phrase", q["multi_match"].get("boost", 1))
            else:  # {"bool": {"must": [a word's clause], "boost": …}}
                out[first_query(q)] = ("word", q["bool"]["boost"])
        return out
    settings = CONFIG.cross_lingual
    # optimisation is rarer, so higher in idf: at full weight its few titles came before every Optimization one;
    # as a phrase per field its title idf still did at 0.3: it scores as the typed word does (D-174)
    typed_name = forms("optimization")
    assert typed_name["optimisation"] == ("word", settings.variant_of_name_weight)
    assert settings.variant_of_name_weight < 1
    assert typed_name["optimisation"] != ("phrase", settings.variant_of_name_weight)
    assert forms("optimisation")["Optimization"] == ("phrase", settings.same_language_weight)


def test_a_form_that_contains_what_was_typed_is_not_searched_again(glossary) -> None:
    (e,) = expand(["transformer"], glossary)
    longer = [f for f in glossary.concepts["transformer"].en if f.casefold() != "transformer"]
    assert longer and all("transformer" in f.casefold() for f in longer)  # "Transformer Architecture" …
    assert e.en == ()  # … would outscore the papers titled with the word typed


def test_the_name_spelt_by_the_concept_id_is_preferred_to_a_taxonomy_label(glossary) -> None:
    (e,) = expand(["非凸优化"], glossary)
    assert e.en_words == "nonconvex optimization"  # not the taxonomy's "Non-Convex"
    assert "nonconvex optimization" in e.shown  # what the page (and the API) says was also searched


def test_relaxed_the_words_of_a_concept_share_its_weight(matcher) -> None:
    """Relaxed, each word is a clause of its own (which of them a paper has is counted): the concept's forms are
    in each, at its share."""
    terms = ["large", "language", "models"]
    named = bodies.text_query(terms, expand(terms, matcher), CONFIG, relaxed=True)["bool"]["should"]
    slots = [s["function_score"]["query"] for s in named]
    assert [concept_part(s)["boost"] for s in slots] == [0.3333] * 3
    boost = round(CONFIG.cross_lingual.concept_boost / 3, 4)
    assert [concept_tag(s)["term"]["concepts"]["boost"] for s in slots] == [boost] * 3


def test_concepts_inside_a_longer_chinese_term_give_it_a_second_way_to_match(matcher) -> None:
    terms = ["基于对比学习的图像分类"]
    found = expand(terms, matcher)
    assert [e.typed for e in found] == ["对比学习", "图像分类"] and not any(e.whole_terms for e in found)
    clause = bodies.text_query(terms, found, CONFIG)
    as_typed, by_concepts = word(clause)["bool"]["should"]
    assert as_typed == wq.term_clause(terms[0], CONFIG)
    assert [g["bool"]["should"][0]["dis_max"]["queries"][0]["dis_max"]["queries"][0]["multi_match"]["query"]
            for g in by_concepts["bool"]["must"]] == \
        ["对比学习", "图像分类"]


def test_no_concept_means_the_query_of_today(matcher) -> None:
    terms = ["zebra", "graphs"]
    assert bodies.text_query(terms, expand(terms, matcher), CONFIG) == bodies.text_query(terms, [], CONFIG)
    assert bodies.text_query([], [], CONFIG) is None


def test_user_text_only_reaches_match_type_queries(matcher) -> None:
    terms = ['"contrastive', "learning", "OR", "title:*"]
    clause = bodies.text_query(terms, expand(terms, matcher), CONFIG)
    assert "query_string" not in str(clause) and "simple_query_string" not in str(clause)


def test_papers_in_the_other_language_need_only_match_the_concepts(matcher) -> None:
    terms = ["contrastive", "learning", "for", "proteins"]
    query = bodies.text_query(terms, expand(terms, matcher), CONFIG)["bool"]
    group, proteins = query["should"]
    assert query["minimum_should_match"] == 2  # "for", a stop word, matches every paper
    # the concept (its words or its forms, searched once: D-225) in every paper; proteins, or a paper written in
    # Chinese, where it is scored if it is there but not required
    in_zh = {"constant_score": {"filter": {"term": {"languages": "zh"}}, "boost": 0}}
    assert proteins["bool"]["should"] == [word_clause("proteins"), in_zh]
    assert "languages" not in json.dumps(group)
    assert json.dumps(query).count("contrastive representation learning") == 1
    chinese = ["图神经网络", "药物"]
    _, other = bodies.text_query(chinese, expand(chinese, matcher), CONFIG)["bool"]["should"]
    assert other["bool"]["should"][-1]["constant_score"]["filter"] == {"term": {"languages": "en"}}
    # relaxed, each word is counted apart: papers in the other language are a branch of their own
    _, relaxed_other = bodies.text_query(terms, expand(terms, matcher), CONFIG, relaxed=True)["bool"]["should"]
    assert relaxed_other["bool"]["filter"] == [{"term": {"languages": "zh"}}]
    assert relaxed_other["bool"]["should"] == [wq.term_clause("proteins", CONFIG)]
    mixed = ["graph", "neural", "network", "药物", "design"]
    words_alone = CONFIG.model_copy(update={"glosses": CONFIG.glosses.model_copy(update={"enabled": False})})
    assert "languages" not in str(bodies.text_query(mixed, expand(mixed, matcher), words_alone))
    # 药物 is no concept: its CC-CEDICT glosses are English papers' other way to match it (D-217), not a branch
    assert "'languages': 'zh'" not in str(bodies.text_query(mixed, expand(mixed, matcher), CONFIG))
