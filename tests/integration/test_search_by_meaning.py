"""Search by meaning against the real node (issue 55, DECISIONS.md D-196..D-199): papers embedded by the real
indexer, a Chinese question with no glossary word finding the English paper that answers it, a Chinese paper's
similar list holding English papers, and an encoder that fails leaving a working page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support import loaded_alias, write_jsonl

from papersearch import concepts, meaning
from webapp import create_app
from webapp.domain import SearchParams
from webapp.services import by_meaning
from webapp.services.query import expansion as xp
from webapp.services.query import glosses
from webapp.services.query.parser import parse_query
from webapp.services.search import SearchService


def paper(pid: str, **fields: Any) -> dict[str, Any]:
    return {"id": pid, "authors": ["Ada Example"], "year": 2023, "venue": "ICLR", **fields}


PAPERS = [
    paper("en-t2i", title="Photorealistic Image Synthesis from Natural Language Prompts",
          abstract="We present a text-to-image diffusion model that generates high-resolution pictures from a "
                   "written description. A frozen language encoder conditions the image generator, and "
                   "classifier-free guidance improves how well the generated images follow the caption."),
    paper("en-noisy", title="Robust Training When Annotations Are Wrong",
          abstract="Real datasets contain mislabeled examples. We study learning with noisy labels and propose a "
                   "sample selection method that separates clean from corrupted annotations during training."),
    paper("en-robot", title="Imitating Human Videos for Dexterous Robot Hands",
          abstract="A robot learns manipulation skills such as grasping and pouring by watching demonstrations "
                   "performed by people, transferring the motion to a multi-fingered robot hand."),
    paper("en-memory", title="Compressing the Key-Value Cache of Large Language Models",
          abstract="Serving large language models is limited by the GPU memory of the attention cache. We quantize "
                   "and evict cache entries, cutting inference memory by four times with little loss."),
    paper("en-rice", title="Estimating Rice Yield from Satellite Imagery",
          abstract="We predict paddy rice yield per field from multispectral satellite images with a temporal "
                   "convolutional network trained on county statistics."),
    paper("zh-t2i", title_zh="基于扩散模型的文本生成图像方法",
          abstract_zh="提出一种根据自然语言描述生成高分辨率图像的扩散模型，利用预训练语言编码器对图像生成过程"
                      "进行条件控制，生成的图片与文字描述高度一致。", venue="计算机科学", year=2022),
    paper("zh-law", title_zh="论合同解除权的行使期限",
          abstract_zh="合同解除权是形成权，其行使应受期限限制。本文分析我国民法典关于解除权行使期限的规定及其适用。",
          venue="法学", year=2021),
    paper("zh-aircraft", title_zh="战斗机气动建模与飞行仿真",
          abstract_zh="建立战斗机六自由度气动模型，并在大迎角机动条件下进行飞行仿真验证。", venue="航空", year=2020),
]
QUESTION = "根据文字描述生成图片的模型"  # "models that generate pictures from a text description": no glossary word


@pytest.fixture(scope="module")
def alias(cluster, tmp_path_factory) -> Iterator[str]:
    source = write_jsonl(tmp_path_factory.mktemp("meaning") / "papers.jsonl", PAPERS)
    with loaded_alias(cluster, "paperstest_meaning", [source]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def service(cluster, alias: str) -> SearchService:
    return SearchService(cluster.client("web"), alias)


@pytest.fixture
def client(cluster, alias: str):
    return create_app(cluster.settings(alias), rate_limit="off").test_client()


def test_every_paper_has_a_vector_and_the_index_names_its_model(cluster, alias: str) -> None:
    es = cluster.client("admin")
    index = next(iter(es.indices.get_alias(name=alias)))
    assert es.indices.get_mapping(index=index)[index]["mappings"]["_meta"]["meaning_model"] == meaning.MODEL
    field = meaning.search_config().meaning.field
    assert es.count(index=alias, query={"exists": {"field": field}})["count"] == len(PAPERS)


@pytest.fixture
def without_dictionary(monkeypatch) -> None:
    """Meaning alone: CC-CEDICT's glosses (D-217) let the words find en-t2i too (描述 description, 图片 picture)."""
    monkeypatch.setattr(glosses, "dictionary", lambda: {})


@pytest.mark.usefixtures("without_dictionary")
def test_a_chinese_question_without_glossary_words_finds_the_english_paper_that_answers_it(service) -> None:
    parsed = parse_query(QUESTION)
    assert xp.expansions(parsed.terms, concepts.matcher(), 8, 8, 64) == []  # no concept crosses the line here
    result = service.search(SearchParams(q=QUESTION))
    found = [h.id for h in result.hits]
    assert "en-t2i" in found[:2], found
    hit = next(h for h in result.hits if h.id == "en-t2i")
    assert hit.by_meaning and "<mark>" not in hit.snippet_html + hit.heading_html  # no word pretends to match
    assert result.by_meaning >= 1 and not result.meaning_unavailable


def test_an_english_question_finds_the_chinese_paper_too(service) -> None:
    found = [h.id for h in service.search(SearchParams(q="generate a picture from a written description")).hits]
    assert {"en-t2i", "zh-t2i"} <= set(found[:3]), found


def test_word_matches_come_first_and_filters_apply_to_meaning(service) -> None:
    result = service.search(SearchParams(q="noisy labels"))
    assert result.hits[0].id == "en-noisy" and not result.hits[0].by_meaning
    filtered = service.search(SearchParams(q=QUESTION, filters={"venue": ["计算机科学"]}))
    assert [h.id for h in filtered.hits] == ["zh-t2i"]


def test_a_chinese_papers_similar_list_holds_the_english_paper_about_the_same_thing(service) -> None:
    _, similar = service.papers.paper_and_similar("zh-t2i")
    assert "en-t2i" in [h.id for h in similar[:2]], [h.id for h in similar]


@pytest.mark.usefixtures("without_dictionary")
def test_the_page_marks_a_paper_found_by_meaning(client) -> None:
    page = client.get("/", query_string={"q": QUESTION, "lang": "zh"}).get_data(as_text=True)
    assert "按语义找到" in page and 'id="by-meaning"' in page
    api = client.get("/api/search", query_string={"q": QUESTION}).get_json()
    assert any(h["id"] == "en-t2i" and h["by_meaning"] for h in api["hits"])


class BrokenEncoder:
    def encode(self, texts: list[str]) -> Any:
        raise RuntimeError("the encoder broke")


def test_an_encoder_that_fails_leaves_a_working_page(client, monkeypatch) -> None:
    monkeypatch.setattr(meaning, "_encoder", lambda: BrokenEncoder())
    meaning._query_vector.cache_clear()
    response = client.get("/", query_string={"q": "diffusion image generation", "lang": "en"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "en-t2i" in page  # the words still answer
    assert 'id="meaning-unavailable"' in page
    api = client.get("/api/search", query_string={"q": "robot demonstrations"}).get_json()
    assert api["meaning_unavailable"] is True and [h["id"] for h in api["hits"]] == ["en-robot"]



def test_a_glossed_question_keeps_its_own_language_matches_and_lets_meaning_order_the_rest(service) -> None:
    """With CC-CEDICT the question's words reach the English papers through glosses (D-217): its Chinese match keeps
    the words' place, and the English paper the glosses and meaning both find comes next (D-219)."""
    result = service.search(SearchParams(q=QUESTION))
    assert result.fallbacks == () or result.fallbacks is not None
    found = [h.id for h in result.hits]
    assert found[:2] == ["zh-t2i", "en-t2i"], found
    assert not result.hits[1].by_meaning and "<mark>" in result.hits[1].snippet_html + result.hits[1].heading_html


def test_a_word_match_the_fusion_moves_onto_the_page_keeps_its_marks(service, monkeypatch) -> None:
    """The kNN asks for no highlight (most of its papers show none); a word match that the fusion brings onto the page
    from beyond the shown page gets its marks in one more request (D-219)."""
    shown = service.search(SearchParams(q="image", size=1)).hits
    monkeypatch.setattr(by_meaning, "_order", lambda fusion, words, near, hits, rank_constant: [*words[::-1], *near])
    moved = service.search(SearchParams(q="image", size=1)).hits
    assert len(shown) == len(moved) == 1 and moved[0].id != shown[0].id and not moved[0].by_meaning
    assert "<mark>" in moved[0].snippet_html + moved[0].heading_html, moved[0]
