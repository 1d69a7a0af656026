"""Chinese words beyond the glossary reach English papers through CC-CEDICT (webapp/services/query/glosses.py, issue
55.3, DECISIONS.md D-217), against the real node on both analysis profiles, with search by meaning off: what is found
is found by the words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import FIXTURES, loaded_alias

from papersearch import concepts, meaning
from webapp.domain import SearchParams
from webapp.services.query import expansion as xp
from webapp.services.query.parser import parse_query
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

PAPERS = FIXTURES / "glosses-papers.jsonl"
QUESTION = "纠正错误标签"  # "correct wrong labels": no word of it is a glossary concept


@pytest.fixture(scope="module", params=["auto", "core"])
def alias(request, cluster) -> Iterator[str]:
    with loaded_alias(cluster, "paperstest_glosses", [PAPERS], PAPERSEARCH_ANALYSIS_PROFILE=request.param,
                      PAPERSEARCH_MEANING="0") as (name, _):
        yield name


@pytest.fixture(autouse=True)
def words_alone(monkeypatch) -> None:
    monkeypatch.setattr(meaning, "enabled", lambda: False)


def ids(cluster, alias: str, q: str, **glosses) -> list[str]:
    config = search_config()
    config = config.model_copy(update={"glosses": config.glosses.model_copy(update=glosses)})
    return [h.id for h in SearchService(cluster.client("web"), alias, config).search(SearchParams(q=q)).hits]


def test_the_question_has_no_glossary_concept() -> None:
    assert not xp.expansions(parse_query(QUESTION).terms, concepts.matcher(), 6, 8, 40)


def test_a_chinese_question_finds_the_english_paper_through_the_dictionary(cluster, alias: str) -> None:
    found = ids(cluster, alias, QUESTION)
    assert "en-wrong-labels" in found and "zh-labels" in found
    assert "en-rice" not in found and "zh-law" not in found


def test_without_the_dictionary_only_the_chinese_paper_has_the_words(cluster, alias: str) -> None:
    assert ids(cluster, alias, QUESTION, enabled=False) == ["zh-labels"]
    as_typed = SearchService(cluster.client("web"), alias).search(SearchParams(q=QUESTION, xl=False))
    assert [h.id for h in as_typed.hits] == ["zh-labels"]  # xl=0 searches the words as typed: no glosses


def test_the_glosses_do_not_stand_in_for_a_concept_typed_beside_them(cluster, alias: str) -> None:
    assert "en-demos" not in ids(cluster, alias, "演示")  # one word alone is a keyword, not a question: as typed
    # 合同 (contract) is a glossary concept inside the run: papers still need it, the glosses only order them
    assert "en-demos" not in ids(cluster, alias, "合同演示")
