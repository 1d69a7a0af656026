"""SearchService against the real node: the sample papers plus a few crafted ones, loaded once by the
real indexer behind an alias, searched with the read-only web identity."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from support import SAMPLE, loaded_alias, write_jsonl

from papersearch.taxonomy import Taxonomy
from webapp.domain import BadQuery, SearchParams, SearchUnavailable
from webapp.services.search import SearchService

CRAFTED = [
    {"id": "t-script", "title": "Robust parsing of untrusted markup",
     "abstract": "We show that <script>alert(1)</script> payloads in abstracts are harmless once escaped.",
     "authors": ["Søren Hauberg", "Ada Lovelace"], "year": 2021, "venue": "ICLR",
     "topic_area": "Social Aspects", "topic_subarea": "Security"},
    {"id": "t-llm-zh", "title_zh": "大语言模型的推理加速方法",
     "abstract_zh": "本文研究大语言模型在推理阶段的加速，提出一种新的解码策略。",
     "authors": ["李明", "王芳"], "year": 2024,
     "topic_area": "Deep Learning", "topic_subarea": "Large Language Models"},
    {"id": "t-cv-zh", "title_zh": "基于计算机视觉的图像去雨方法",
     "abstract_zh": "我们提出一种用于单幅图像去雨的网络。", "authors": ["张伟"], "year": 2023,
     "topic_area": "Applications", "topic_subarea": "Computer Vision"},
    {"id": "t-graph", "title": "Zebra graphs as sparse models of molecules",
     "abstract": "Sparse graphs describe molecules well; we fit such models with a message passing network.",
     "authors": ["Grace Hopper"], "year": 2019, "venue": "NeurIPS", "topic_area": "Deep Learning",
     "topic_subarea": "Attention Mechanisms"},
    {"id": "t-mixed", "title": "Multilingual retrieval benchmark", "title_zh": "多语言检索基准",
     "abstract": "We evaluate retrieval of academic papers across languages.",
     "abstract_zh": "我们评估跨语言的学术论文检索。", "authors": ["Alan Turing"], "year": 2022, "venue": "ICLR",
     "topic_area": "General Machine Learning", "topic_subarea": "Evaluation"},
    {"id": "t-aardvark", "title": "Aardvark: an alphabetically early title about optimisation",
     "abstract": "A note on convergence of gradient descent.", "authors": ["Grace Hopper"], "year": 2020,
     "venue": "ICML",
     "topic_area": "Optimization"},
]


def _records() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()] + CRAFTED


# Every test runs on both analysis profiles: "auto" (our plugin when the node has it) and the core-only
# fallback, which has no stemming and no folding, so the service must not depend on either.
@pytest.fixture(scope="module", params=["auto", "core"])
def papers_alias(request, cluster, admin: Elasticsearch, tmp_path_factory) -> Iterator[str]:
    """Sample + crafted papers through the real indexer (like conftest's load_papers, but once per module)."""
    path = write_jsonl(tmp_path_factory.mktemp("papers") / "crafted.jsonl", CRAFTED)
    with loaded_alias(cluster, "paperstest_search", [SAMPLE, path],
                      PAPERSEARCH_ANALYSIS_PROFILE=request.param) as (name, _):
        yield name


@pytest.fixture(scope="module")
def service(cluster, papers_alias: str) -> SearchService:
    return SearchService(cluster.client("web"), papers_alias)


def search(service: SearchService, **kwargs):
    return service.search(SearchParams(**kwargs))


def ids(result) -> list[str]:
    return [h.id for h in result.hits]


def big(**kwargs) -> SearchParams:
    return SearchParams(size=100, **kwargs)


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
    assert 1 <= len(with_both) < service.config["relaxation"]["below"]
    assert result.partial_match is not None and result.partial_match.all_words == len(with_both)
    assert result.hits[:len(with_both)] == with_both and all(not h.missing for h in with_both)
    for hit in result.hits[len(with_both):]:
        assert hit.missing == ["deraining"] and "image" in (hit.title + hit.abstract).lower()
    assert all(h.score is not None and h.score < 1000 for h in result.hits)  # the tier bonus is not shown


def test_enough_papers_with_every_word_means_no_partial_matches(service):
    result = service.search(big(q="language models"))
    assert result.total >= service.config["relaxation"]["below"] and result.partial_match is None
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


# --- facets and filters -------------------------------------------------------------------------------


def _facet(result, name):
    return next(f for f in result.facets if f.name == name)


def test_topic_facet_counts_and_labels(service):
    result = service.search(big())
    topic = _facet(result, "topic")
    expected: dict[str, int] = {}
    for r in _records():
        if r.get("topic_area"):
            expected[r["topic_area"]] = expected.get(r["topic_area"], 0) + 1
    assert {v.value: v.count for v in topic.values} == expected
    dl = next(v for v in topic.values if v.value == "Deep Learning")
    assert dl.label_zh == Taxonomy.load().areas["Deep Learning"]
    llm = next(c for c in dl.children if c.value == "Deep Learning > Large Language Models")
    assert llm.label == "Large Language Models" and llm.label_zh == "大语言模型"
    assert llm.count == sum(1 for r in _records() if r.get("topic_subarea") == "Large Language Models")


def test_area_filter_is_disjunctive(service):
    result = service.search(big(areas=["Applications"]))
    n_apps = sum(1 for r in _records() if r.get("topic_area") == "Applications")
    assert result.total == n_apps
    assert all(h.topic_area == "Applications" for h in result.hits)
    topic = _facet(result, "topic")
    # other areas still show their counts, so the user can add them
    assert len(topic.values) > 1
    assert next(v for v in topic.values if v.value == "Applications").selected
    both = service.search(big(areas=["Applications", "Optimization"]))
    n_opt = sum(1 for r in _records() if r.get("topic_area") == "Optimization")
    assert both.total == n_apps + n_opt
    # the year facet is computed under the topic filter
    years = _facet(result, "year")
    assert sum(v.count for v in years.values) == sum(
        1 for r in _records() if r.get("topic_area") == "Applications" and r.get("year"))


def test_subarea_filter(service):
    path = "Deep Learning > Large Language Models"
    result = service.search(big(areas=["Deep Learning"], subareas=[path]))
    assert result.total == sum(1 for r in _records() if r.get("topic_subarea") == "Large Language Models")
    assert {h.topic_path for h in result.hits} == {path}
    assert all(h.topic_subarea_zh == "大语言模型" for h in result.hits)


def test_year_filter_and_facet(service):
    result = service.search(big(filters={"year": ["2021", "2022"]}))
    assert sorted(ids(result)) == ["t-mixed", "t-script"]
    years = _facet(result, "year")
    values = [v.value for v in years.values]
    assert values == sorted(values, reverse=True)
    assert {v.value for v in years.values if v.selected} == {"2021", "2022"}
    assert {v.value for v in years.values} >= {"2019", "2020", "2023", "2024"}  # disjunctive


def test_venue_facet_is_disjunctive(service):
    result = service.search(big(filters={"venue": ["ICLR"]}))
    assert sorted(ids(result)) == ["t-mixed", "t-script"]
    venues = {v.value: (v.count, v.selected) for v in _facet(result, "venue").values}
    assert venues == {"ICLR": (2, True), "NeurIPS": (1, False), "ICML": (1, False)}  # the others stay, counted
    both = service.search(big(filters={"venue": ["ICLR", "ICML"]}))
    assert sorted(ids(both)) == ["t-aardvark", "t-mixed", "t-script"]
    # the other facets are counted under the venue filter
    assert {v.value: v.count for v in _facet(both, "year").values} == {"2022": 1, "2021": 1, "2020": 1}


def test_year_range(service):
    result = service.search(big(ranges={"year_from": 2020, "year_to": 2022}))
    assert sorted(ids(result)) == ["t-aardvark", "t-mixed", "t-script"]
    year = _facet(result, "year")
    assert (year.range.low, year.range.high) == (2020, 2022)
    assert (year.range.min, year.range.max) == (2019, 2024)  # the span without the year filter
    assert sorted(ids(service.search(big(ranges={"year_from": 2023})))) == ["t-cv-zh", "t-llm-zh"]
    assert ids(service.search(big(ranges={"year_to": 2019}))) == ["t-graph"]
    # a range and chosen years both apply
    assert ids(service.search(big(filters={"year": ["2019", "2021"]}, ranges={"year_from": 2020}))) == ["t-script"]


def test_selected_value_without_hits_stays_visible(service):
    result = service.search(big(q="zebra", areas=["Applications"]))
    assert result.total == 0
    assert next(v for v in _facet(result, "topic").values if v.value == "Applications").selected


# --- sorting and paging -------------------------------------------------------------------------------


def test_sort_by_year(service):
    result = service.search(big(sort="year"))
    years = [h.year for h in result.hits if h.year is not None]
    assert years == sorted(years, reverse=True) and years[0] == 2024
    assert result.hits[-1].year is None  # missing years last


def test_sort_by_title(service):
    result = service.search(big(sort="title"))
    headings = [h.heading.casefold() for h in result.hits]
    assert [h for h in headings if h.isascii()] == sorted(h for h in headings if h.isascii())
    assert ids(result).index("t-aardvark") < ids(result).index("t-graph")  # Aardvark … < Zebra …


def test_pagination_and_too_deep(service):
    first = search(service, page=1, size=10)
    second = search(service, page=2, size=10)
    assert len(first.hits) == 10 and not set(ids(first)) & set(ids(second))
    assert first.page_count == -(-first.total // 10)
    last = search(service, page=first.page_count, size=10)
    assert len(last.hits) == first.total - 10 * (first.page_count - 1)
    deep = search(service, page=1001, size=10)
    assert deep.too_deep and deep.hits == [] and deep.total == first.total
    assert deep.facets  # facets still there, for narrowing down


def test_too_many_words(service):
    with pytest.raises(BadQuery):
        search(service, q=" ".join(f"w{i}" for i in range(40)))


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


# --- did you mean, suggest, similar, single paper ---------------------------------------------------------


def test_did_you_mean(service):
    result = search(service, q="diffsuion")
    assert result.did_you_mean == "diffusion"
    assert search(service, q="diffusion").did_you_mean is None
    assert search(service, q="hauberg").did_you_mean is None  # a word only in author names is no typo


def test_did_you_mean_keeps_the_rest_of_the_query(service):
    result = search(service, q='deraning "image" -zebra')
    assert result.did_you_mean == 'deraining "image" -zebra'


def test_the_spelling_check_only_when_too_few_and_the_did_you_mean_check_with_the_relaxed_request(service):
    """A search that finds enough sends one request; one that finds too few checks its words' spelling in one
    _msearch, then sends the relaxed search and the check that the correction finds something in another
    (on a core index the spelling check goes with the first request)."""
    sent: list[str] = []
    forward = service.client.perform_request

    def record(method: str, path: str, **kwargs):  # passes every request on to the node
        sent.append(path.rsplit("/", 1)[-1])
        return forward(method, path, **kwargs)

    service.client.perform_request = record
    try:
        found = search(service, q="diffusion")
        enough = [p for p in sent if p != "_mapping"]  # the analysis profile look-up, once a minute
        sent.clear()
        result = search(service, q="diffsuion")
    finally:
        del service.client.perform_request
    assert found.total >= 3 and found.did_you_mean is None
    assert result.did_you_mean == "diffusion"
    requests = [p for p in sent if p != "_mapping"]
    if service.live_index().profile == "core":
        # Typo-tolerant from the first request, which may find enough for a misspelt word: the spelling check
        # rides with it; nothing to relax, the correction is checked alone.
        assert enough == ["_msearch"]
        assert "relaxed" not in result.fallbacks and requests == ["_msearch", "_search"]
    else:
        assert enough == ["_search"]
        assert "relaxed" in result.fallbacks and requests == ["_search", "_msearch", "_msearch"]


def test_suggest(service):
    titles = service.suggest("zeb")
    assert [(s.text, s.kind, s.id) for s in titles] == [("Zebra graphs as sparse models of molecules", "title",
                                                         "t-graph")]
    authors = service.suggest("grace")
    assert [(s.text, s.kind) for s in authors] == [("Grace Hopper", "author")]  # two papers, one suggestion
    assert service.suggest("") == []
    chinese = service.suggest("大语言")
    assert [s.text for s in chinese if s.kind == "title"] == ["大语言模型的推理加速方法"]
    assert (chinese[0].text, chinese[0].kind) == ("大语言模型", "concept")  # glossary concepts come first


def test_similar(service):
    llm_ids = [r["id"] for r in _records() if r.get("topic_subarea") == "Computer Vision" and r.get("abstract")]
    similar = service.similar(llm_ids[0], size=5)
    assert similar and llm_ids[0] not in ids_of(similar)
    assert service.similar("no-such-paper") == []


def test_paper_page_looks_up_once_what_get_paper_and_similar_give(service):
    paper_id = next(r["id"] for r in _records() if r.get("topic_subarea") == "Computer Vision" and r.get("abstract"))
    paper, similar = service.paper_and_similar(paper_id, size=5)
    assert paper == service.get_paper(paper_id)
    assert ids_of(similar) == ids_of(service.similar(paper_id, size=5)) and similar
    assert service.paper_and_similar("no-such-paper") == (None, [])


def ids_of(hits) -> list[str]:
    return [h.id for h in hits]


def test_get_paper(service):
    paper = service.get_paper("t-script")
    assert paper is not None
    assert paper.authors == ["Søren Hauberg", "Ada Lovelace"]
    assert paper.snippet_html.startswith("We show that &lt;script&gt;")
    assert "<mark>" not in paper.snippet_html
    assert paper.topic_subarea_zh == Taxonomy.load().subareas[("Social Aspects", "Security")]
    assert service.get_paper("no-such-paper") is None


def test_ready(cluster, service, alias):
    assert service.ready()
    missing = SearchService(cluster.client("web"), alias)
    assert not missing.ready()
    with pytest.raises(SearchUnavailable):
        missing.search(SearchParams(q="x"))
    with pytest.raises(SearchUnavailable):
        missing.get_paper("x")


def test_unreachable_cluster():
    dead = SearchService(Elasticsearch("http://127.0.0.1:9", request_timeout=1, max_retries=0), "papers")
    assert not dead.ready()
    with pytest.raises(SearchUnavailable):
        dead.search(SearchParams(q="x"))


def test_one_time_budget_for_all_of_a_search(cluster, papers_alias: str):
    """The webapp gives a whole search one budget: requests are sent with what is left of it as their timeout,
    and none once it is spent (a frozen cluster costs a visitor one budget, not one per round trip)."""
    generous = SearchService(cluster.client("web"), papers_alias, budget=30.0)
    assert generous.search(SearchParams(q="diffsuion")).did_you_mean == "diffusion"  # several round trips fit
    spent = SearchService(cluster.client("web"), papers_alias, budget=0.01)
    with pytest.raises(SearchUnavailable):
        spent.search(SearchParams(q="diffusion"))
