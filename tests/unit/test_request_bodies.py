"""Every request body the site sends, pinned: for representative searches, paper look-ups, suggestions and the
author and topic pages, the bodies the service makes (its plan and renderer, no node: tests/unit/
recorded_requests.py answers as a scripted index would) are compared with the snapshots in
__snapshots__/test_request_bodies/. A refactoring must leave them as they are; a change meant to alter what is
sent (ranking, facets) regenerates them with

    .venv/bin/python -m pytest tests/unit/test_request_bodies.py --snapshot-update

and the diff of the JSON files is the review of what changed. Each search also pins which rounds it took."""

from __future__ import annotations

import json
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension
from werkzeug.datastructures import MultiDict

from papersearch import meaning
from papersearch.taxonomy import Topic
from tests.unit.recorded_requests import RecordingClient, World
from webapp.controllers.params import RequestArgs
from webapp.domain import SearchParams
from webapp.services.pages.profiles import ProfileService
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

TYPO = World(counts={"transfomer": 0, "atention": 0},
             suggestions={"transfomer": [("transformer", 0.9, 500)], "atention": [("attention", 0.89, 800)]})
RARE = World(counts={"lanuguage": 2}, relaxed=60,
             suggestions={"lanuguage": [("language", 0.89, 900), ("lanuguages", 0.8, 1)]})
LARGE = World(papers=1_000_000, found=250_000)
# id → (the URL's parameters, the scripted index, the fallbacks the search must end with)
SEARCHES: dict[str, tuple[dict[str, Any], World, list[str]]] = {
    "english": ({"q": "diffusion models"}, World(), []),
    "english-page-2-by-year": ({"q": "diffusion models", "page": "2", "sort": "year", "size": "25"}, World(), []),
    "filters-and-facets": ({"q": "language models", "area": "Deep Learning", "year": ["2023", "2024"],
                            "venue": "ICLR"}, World(), []),
    "subarea-and-year-range": ({"q": "reinforcement learning", "subarea": "Deep Learning > Large Language Models",
                                "year_from": "2021", "year_to": "2023"}, World(), []),
    "chinese-concept": ({"q": "图神经网络"}, World(), []),
    "chinese-terms": ({"q": "深度学习 方法 研究"}, World(), []),
    "traditional-chinese": ({"q": "深度學習"}, World(), []),
    "mixed-script": ({"q": "Transformer模型"}, World(), []),
    "acronym": ({"q": "LLM"}, World(), []),
    "as-typed-only": ({"q": "contrastive learning", "xl": "0"}, World(), []),
    "author-field": ({"q": "author:hinton"}, World(), []),
    "author-phrase": ({"q": 'author:"Søren Hauberg"'}, World(), []),
    "title-field": ({"q": "title:diffusion models"}, World(), []),
    "phrase-and-exclusion": ({"q": 'graph neural networks "message passing" -vision'}, World(), []),
    "stop-words": ({"q": "the of and"}, World(), []),
    "question-relaxed": ({"q": "how to make diffusion models sample faster"}, World(found=3, relaxed=40), ["relaxed"]),
    "typo-corrected": ({"q": "transfomer atention"}, TYPO, ["corrected"]),
    "rare-word-did-you-mean": ({"q": "lanuguage models"}, RARE, ["relaxed", "did_you_mean"]),
    "nothing-matches": ({"q": "qwxzv"}, World(counts={"qwxzv": 0}), []),
    "core-profile": ({"q": "diffusion models"}, World(profile="core"), []),
    "core-profile-typo": ({"q": "transfomer atention"}, World(profile="core", counts=TYPO.counts,
                                                             suggestions=TYPO.suggestions), ["corrected"]),
    "large-index-sampled-facets": ({"q": "learning"}, LARGE, []),
    "large-index-exact-facets": ({"q": "graph neural networks"}, World(papers=1_000_000, found=300), []),
    "browse": ({}, World(), []),
    "browse-filtered": ({"area": "Deep Learning", "sort": "year"}, World(), []),
    "past-the-window": ({"q": "learning", "page": "1001"}, World(), []),
}


# Search by meaning (DECISIONS.md D-198): on an index with this model's vectors, a search asks for the words' ranks
# and the nearest papers after its ladder; the query's vector is a stand-in here (the encoder is no part of a body).
BY_MEANING: dict[str, tuple[dict[str, Any], World, list[str]]] = {
    "by-meaning": ({"q": "根据文字描述生成图片的模型"}, World(meaning=meaning.MODEL), []),
    "by-meaning-filtered-phrase-exclusion": ({"q": 'text to image "diffusion" -video author:hinton', "year": "2023",
                                              "venue": "ICLR"}, World(meaning=meaning.MODEL), []),
    "by-meaning-nothing-matches": ({"q": "qwxzv"}, World(counts={"qwxzv": 0}, meaning=meaning.MODEL), []),
    "by-meaning-sorted-by-year": ({"q": "diffusion models", "sort": "year"}, World(meaning=meaning.MODEL), []),
    "by-meaning-other-model": ({"q": "diffusion models"}, World(meaning="another model"), []),
}


@pytest.fixture
def snapshot_json(snapshot: Any) -> Any:
    return snapshot.use_extension(JSONSnapshotExtension)


@pytest.fixture(autouse=True)
def meaning_on(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Meaning is on where a case says so (its bodies are pinned apart); every other body is the words' alone."""
    case = getattr(request.node, "callspec", None)
    on = bool(case and "meaning" in str(case.params.get("case", "")))
    monkeypatch.setattr(meaning, "enabled", lambda: on)
    monkeypatch.setattr(meaning, "query_vector", lambda text: [0.25, 0.5])


def service(world: World) -> tuple[SearchService, RecordingClient]:
    client = RecordingClient(world)
    return SearchService(client, "papers", search_config()), client  # type: ignore[arg-type]


def params(url: dict[str, Any]) -> SearchParams:
    pairs = [(k, v) for k, values in url.items() for v in (values if isinstance(values, list) else [values])]
    return RequestArgs(search_config()).search(MultiDict(pairs), api=True)


def pinned(value: Any) -> Any:
    """Key order is no part of a body: sorted, so a refactoring that builds a dict in another order passes."""
    return json.loads(json.dumps(value, sort_keys=True, ensure_ascii=False))


@pytest.mark.parametrize("case", SEARCHES)
def test_search_bodies(case: str, snapshot_json: Any) -> None:
    url, world, fallbacks = SEARCHES[case]
    search, client = service(world)
    result = search.search(params(url))
    assert result.fallbacks == fallbacks  # the scripted index took the search through the rounds named
    outcome = {"fallbacks": result.fallbacks, "did_you_mean": result.did_you_mean, "showing_for": result.showing_for}
    assert pinned({"outcome": outcome, "requests": client.sent}) == snapshot_json


@pytest.mark.parametrize("case", BY_MEANING)
def test_search_bodies_by_meaning(case: str, snapshot_json: Any) -> None:
    url, world, fallbacks = BY_MEANING[case]
    search, client = service(world)
    result = search.search(params(url))
    assert result.fallbacks == fallbacks
    outcome = {"by_meaning": result.by_meaning, "meaning_unavailable": result.meaning_unavailable}
    assert pinned({"outcome": outcome, "requests": client.sent}) == snapshot_json


LOOKUPS = {
    "paper": lambda s: s.papers.get_paper("p1"),
    "paper-and-similar": lambda s: s.papers.paper_and_similar("p1"),
    "similar": lambda s: s.papers.similar("p1", size=5),
    "suggest-title": lambda s: s.papers.suggest("gra"),
    "suggest-author": lambda s: s.papers.suggest("Bengio"),
    "suggest-chinese": lambda s: s.papers.suggest("图神经"),
    "paper-and-similar-by-meaning": lambda s: s.papers.paper_and_similar("p1"),
    "similar-by-meaning": lambda s: s.papers.similar("p1", size=5),
}


@pytest.mark.parametrize("case", LOOKUPS)
def test_lookup_bodies(case: str, snapshot_json: Any) -> None:
    search, client = service(World(meaning=meaning.MODEL if "meaning" in case else None))
    LOOKUPS[case](search)
    assert pinned(client.sent) == snapshot_json


PAGES = {
    "author": (World(), lambda p: p.author("Ada Lovelace", params({}))),
    "author-with-words": (World(), lambda p: p.author("Ada Lovelace", params({"q": "graph neural networks"}))),
    "author-filtered": (World(), lambda p: p.author("Ada Lovelace", params({"year": "2024", "page": "2"}))),
    "topic-area": (World(), lambda p: p.topic(Topic("Deep Learning"))),
    "topic-subarea": (World(), lambda p: p.topic(Topic("Deep Learning", "Large Language Models"))),
    "topic-large-index": (World(papers=1_000_000, found=200_000), lambda p: p.topic(Topic("Deep Learning"))),
    "topics-with-papers": (World(), lambda p: p.topics_with_papers()),
}


@pytest.mark.parametrize("case", PAGES)
def test_profile_page_bodies(case: str, snapshot_json: Any) -> None:
    world, page = PAGES[case]
    search, client = service(world)
    page(ProfileService(search))
    assert pinned(client.sent) == snapshot_json
