"""SearchService against the real node, queries: what typed text finds (words, phrases, clauses, Chinese and
mixed text, partial matches), highlighting, spelling corrections and suggestions, readiness and the time budget
of a search.

The sample papers plus a few crafted ones (search_service_support.CRAFTED), loaded by the real indexer behind an
alias once per module and analysis profile (tests/integration/conftest.py), searched with the read-only web
identity.
"""

from __future__ import annotations

import pytest
from elasticsearch import Elasticsearch
from search_service_support import _records, big, ids, search

from papersearch import meaning
from papersearch.taxonomy import Taxonomy
from webapp.domain import SearchParams, SearchUnavailable
from webapp.services.search import SearchService

# --- text queries -------------------------------------------------------------------------------------


def test_browse_all_is_exact_total(service):
    result = service.search(big())
    assert result.total == len(_records())
    assert len(result.hits) == result.total
    assert result.page_count == 1 and not result.too_deep


def test_papers_with_every_word_come_first_then_partial_matches_flagged(service):
    # Fewer than relaxation.below papers say both words: the page also shows papers with one of them,
    # after the others, each naming the word it lacks.
    result = service.search(big(q="image deraining", xl=False))  # as typed: no glossary concepts
    with_both = [h for h in result.hits if "derain" in (h.title + h.abstract).lower()]
    assert 1 <= len(with_both) < service.config.relaxation.below
    assert result.partial_match is not None and result.partial_match.all_words == len(with_both)
    assert result.hits[:len(with_both)] == with_both and all(not h.missing for h in with_both)
    for hit in result.hits[len(with_both):]:
        assert hit.missing == ["deraining"] and "image" in (hit.title + hit.abstract).lower()
    assert all(h.score is not None and h.score < 1000 for h in result.hits)  # the tier bonus is not shown


def test_enough_papers_with_every_word_means_no_partial_matches(service):
    result = service.search(big(q="language models"))
    assert result.total >= service.config.relaxation.below and result.partial_match is None
    for hit in result.hits:
        text = " ".join([hit.title, hit.abstract, hit.topic_subarea or ""]).lower()
        assert "language" in text and "model" in text and not hit.missing


def test_no_empty_page_when_most_words_match(service):
    # "Interactino" (a typo at the start of a word fuzzy matching cannot repair) and a word no paper has
    result = service.search(big(q="Interactino zebra graphs molecules", xl=False))
    assert ids(result)[0] == "t-graph"
    assert result.partial_match is not None and result.partial_match.all_words == 0
    assert result.hits[0].missing == ["Interactino"]


def test_the_glossary_finds_the_concept_in_the_other_language(service):
    # With the glossary the concept image deraining also finds the Chinese paper (图像去雨).
    assert "t-cv-zh" in ids(service.search(big(q="image deraining")))


def test_inflections_match(service):
    # "model" finds a paper that only says "models" (stemming, or the fuzzy fallback on a core index)
    assert "t-graph" in ids(service.search(big(q="model")))
    assert "t-graph" in ids(service.search(big(q="molecule")))


def test_phrase_is_stricter_than_words(service):
    words = service.search(big(q="gradient descent"))
    phrase = service.search(big(q='"gradient descent"'))
    assert phrase.total >= 1
    assert set(ids(phrase)) <= set(ids(words))
    for hit in phrase.hits:
        assert "gradient descent" in (hit.title + " " + hit.abstract).lower()


def test_exclusion(service):
    base = service.search(big(q="graphs"))
    assert "t-graph" in ids(base)
    assert "t-graph" not in ids(service.search(big(q="graphs -zebra")))
    assert "t-graph" not in ids(service.search(big(q='graphs -"message passing"')))


def test_author_clause_and_folding(service):
    expected = {r["id"] for r in _records() if "Søren Hauberg" in r.get("authors", [])}
    assert len(expected) >= 2  # one sample paper and a crafted one
    for q in ('author:"Søren Hauberg"', 'author:"Soren Hauberg"', "author:hauberg", "author:Soren",
              'author:"hauberg soren"'):
        result = service.search(big(q=q))
        assert set(ids(result)) == expected, q
    assert service.search(big(q='author:"Soren Lovelace"')).total == 0  # parts of one name, not two
    hit = next(h for h in service.search(big(q='author:"Soren Hauberg"')).hits if h.id == "t-script")
    assert "<mark>" in hit.authors_html[0]
    assert hit.authors_html[1] == "Ada Lovelace"


def test_title_clause(service):
    assert ids(service.search(big(q="title:zebra"))) == ["t-graph"]
    assert "t-aardvark" in ids(service.search(big(q="convergence")))
    assert "t-aardvark" not in ids(service.search(big(q="title:convergence")))  # only in its abstract
    assert ids(service.search(big(q='title:"sparse models"'))) == ["t-graph"]
    assert "t-mixed" in ids(service.search(big(q="abstract:跨语言")))
    assert "t-llm-zh" in ids(service.search(big(q="topic:大语言模型")))


def test_chinese_topic_query_finds_llm_papers(service):
    llm = {r["id"] for r in _records() if r.get("topic_subarea") == "Large Language Models"}
    result = service.search(big(q="大语言模型"))
    assert llm <= set(ids(result))  # English-only papers too, through their topic's Chinese label
    assert ids(result)[0] == "t-llm-zh"  # the title match ranks first
    assert "<mark>" in result.hits[0].heading_html


def test_chinese_computer_vision(service):
    cv = {r["id"] for r in _records() if r.get("topic_subarea") == "Computer Vision"}
    assert cv <= set(ids(service.search(big(q="计算机视觉"))))


def test_mixed_query(service):
    result = service.search(big(q="retrieval 多语言"))
    assert ids(result)[:1] == ["t-mixed"]
    assert "t-mixed" in ids(service.search(big(q="论文 retrieval")))


def test_punctuation_and_unbalanced_quotes_are_text(service):
    assert service.search(big(q='"zebra graphs')).hits[0].id == "t-graph"
    assert service.search(big(q="&& || ! ( ) zebra")).hits[0].id == "t-graph"


# --- highlighting ---------------------------------------------------------------------------------------


def test_highlight_is_escaped(service):
    hit = search(service, q="alert").hits[0]
    assert hit.id == "t-script"
    assert "<script>" not in hit.snippet_html
    assert "&lt;script&gt;<mark>alert</mark>(1)&lt;" in hit.snippet_html
    # the only tags are our marks
    assert hit.snippet_html.replace("<mark>", "").replace("</mark>", "").count("<") == 0
    two = search(service, q="script harmless").hits[0]  # words in and next to the markup
    assert two.id == "t-script" and "<script>" not in two.snippet_html and "<mark>" in two.snippet_html


def test_unhighlighted_fields_are_escaped(service):
    hit = search(service, q="author:Lovelace").hits[0]
    assert hit.id == "t-script"
    assert "&lt;script&gt;" in hit.snippet_html and "<script>" not in hit.snippet_html
    assert hit.heading_html == "Robust parsing of untrusted markup"


def test_chinese_snippet_and_heading(service):
    hit = search(service, q="解码策略").hits[0]
    assert hit.id == "t-llm-zh"
    assert hit.heading == "大语言模型的推理加速方法"
    assert "<mark>" in hit.snippet_html
    assert hit.topic_area_zh == Taxonomy.load().areas["Deep Learning"]


# --- did you mean, suggest ----------------------------------------------------------------------------


def test_did_you_mean(service):
    # No paper has the word: the corrected query's results, saying so ("Showing results for"); spell=0: the
    # words as typed (relaxed, typo-tolerant) and the correction offered.
    result = search(service, q="diffsuion")
    if service.live_index().profile == "core":  # typo-tolerant from the first request: it finds the papers
        assert result.did_you_mean == "diffusion" and result.showing_for is None and result.hits
    else:
        assert result.showing_for == "diffusion" and result.did_you_mean is None and "corrected" in result.fallbacks
        assert result.hits and result.total == search(service, q="diffusion").total
    result = search(service, q="diffsuion", spell=False)
    assert result.did_you_mean == "diffusion" and result.showing_for is None
    assert search(service, q="diffusion").did_you_mean is None
    assert search(service, q="hauberg").did_you_mean is None  # a word only in author names is no typo
    # A typo in the first letter is corrected too (the suggesters' prefix_length 0).
    typo = search(service, q="idffusion")
    assert "diffusion" in (typo.showing_for, typo.did_you_mean)


def test_did_you_mean_keeps_the_rest_of_the_query(service):
    result = search(service, q='deraning "image" -zebra', spell=False)
    assert result.did_you_mean == 'deraining "image" -zebra'
    fixed = search(service, q='deraning "image" -zebra')
    assert 'deraining "image" -zebra' in (fixed.showing_for, fixed.did_you_mean)


def test_the_spelling_check_only_when_too_few_and_the_did_you_mean_check_with_the_relaxed_request(service,
                                                                                                 monkeypatch):
    """A search that finds enough sends one request; one that finds too few checks its words' spelling in one
    _msearch, then, when nothing has the words and a correction exists, the corrected query's page (on a core
    index the spelling check goes with the first request)."""
    monkeypatch.setattr(meaning, "enabled", lambda: False)  # the ladder's rounds alone: meaning's is one more
    sent: list[str] = []
    forward = service.client.perform_request

    def record(method: str, path: str, **kwargs):  # passes every request on to the node
        sent.append(path.rsplit("/", 1)[-1])
        return forward(method, path, **kwargs)

    service.client.perform_request = record
    try:
        found = search(service, q="learning")
        enough = [p for p in sent if p not in ("_mapping", "_count")]  # the live index's look-up, once a minute
        sent.clear()
        result = search(service, q="diffsuion")
    finally:
        del service.client.perform_request
    assert found.total >= service.config.relaxation.below and found.did_you_mean is None
    assert "diffusion" in (result.did_you_mean, result.showing_for)
    requests = [p for p in sent if p not in ("_mapping", "_count")]
    if service.live_index().profile == "core":
        # Typo-tolerant from the first request, which may find enough for a misspelt word: the spelling check
        # rides with it; nothing to relax, the correction is checked alone.
        assert enough == ["_msearch"]
    else:
        assert enough == ["_search"]
    assert result.fallbacks == (["did_you_mean"] if service.live_index().profile == "core" else ["corrected"])
    assert requests == (["_msearch", "_search"] if service.live_index().profile == "core"
                        else ["_search", "_msearch", "_search"])


def test_suggest(service):
    titles = service.papers.suggest("zeb")
    assert [(s.text, s.kind, s.id) for s in titles] == [("Zebra graphs as sparse models of molecules", "title",
                                                         "t-graph")]
    authors = service.papers.suggest("grace")
    assert [(s.text, s.kind) for s in authors] == [("Grace Hopper", "author")]  # two papers, one suggestion
    assert service.papers.suggest("") == []
    chinese = service.papers.suggest("大语言")
    assert [s.text for s in chinese if s.kind == "title"] == ["大语言模型的推理加速方法"]
    assert (chinese[0].text, chinese[0].kind) == ("大语言模型", "concept")  # glossary concepts come first


def test_every_misspelt_word_is_corrected_names_to_authors_in_the_casing_typed(service):
    # Issue 44.8: "reinforcment" was counted on the stemmed fields (as many papers as "reinforcement"), so it
    # stayed; Hintn went to the commoner "hints"; corrections came back lowercased.
    both = search(service, q="reinforcment lerning")
    assert "reinforcement learning" in (both.showing_for, both.did_you_mean)
    name = search(service, q="Hintn")
    assert "Hinton" in (name.showing_for, name.did_you_mean)
    assert "Wombat" in (search(service, q="Wombta").showing_for, search(service, q="Wombta").did_you_mean)


def test_or_finds_either_word(service):
    assert search(service, q="quokka zebra").partial_match  # no paper has both: most of the words
    either = service.search(big(q="quokka OR zebra"))
    assert either.partial_match is None and {"t-math", "t-graph"} <= set(ids(either))


def test_greek_letters_and_norms_match_the_papers_tex(service):
    # Issue 44.4: the paper writes $\ell_1$ and $\alpha$-divergence.
    for q in ("ℓ1 quokka", "l1 quokka", "L1 quokka", "α-divergence quokka", "alpha-divergence quokka"):
        result = search(service, q=q)
        every_word = result.partial_match is None or result.partial_match.all_words >= 1
        assert every_word and ids(result)[0] == "t-math", q  # the paper has every word, as it writes them


def test_a_long_query_is_searched_cut_and_says_so(service):
    # Issue 44.4: a pasted 33-word sentence was refused (400).
    words = "wombat keepers " + " ".join(["hints"] * 40)
    result = search(service, q=words)
    assert result.searched and result.searched.startswith("wombat keepers") and "t-hints" in ids(result)
    assert search(service, q="wombat keepers").searched is None


def test_concept_completions_most_papers_first(service):
    # Issue 44.8: 强化 offered 强化传热 (no paper) before 强化学习.
    concepts = [s.text for s in service.papers.suggest("强化") if s.kind == "concept"]
    assert concepts[0] == "强化学习"


# --- readiness, time budget ---------------------------------------------------------------------------


def test_ready(cluster, service, alias):
    assert service.access.ready()
    missing = SearchService(cluster.client("web"), alias)
    assert not missing.access.ready()
    with pytest.raises(SearchUnavailable):
        missing.search(SearchParams(q="x"))
    with pytest.raises(SearchUnavailable):
        missing.papers.get_paper("x")


def test_unreachable_cluster():
    dead = SearchService(Elasticsearch("http://127.0.0.1:9", request_timeout=1, max_retries=0), "papers")
    assert not dead.access.ready()
    with pytest.raises(SearchUnavailable):
        dead.search(SearchParams(q="x"))


def test_one_time_budget_for_all_of_a_search(cluster, papers_alias: str):
    """The webapp gives a whole search one budget: requests are sent with what is left of it as their timeout,
    and none once it is spent (a frozen cluster costs a visitor one budget, not one per round trip)."""
    generous = SearchService(cluster.client("web"), papers_alias, budget=30.0)
    fixed = generous.search(SearchParams(q="diffsuion"))
    assert "diffusion" in (fixed.showing_for, fixed.did_you_mean)  # several round trips fit
    spent = SearchService(cluster.client("web"), papers_alias, budget=0.01)
    with pytest.raises(SearchUnavailable):
        spent.search(SearchParams(q="diffusion"))
