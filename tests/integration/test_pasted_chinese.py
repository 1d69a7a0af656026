"""A pasted Chinese fragment that crosses punctuation finds the paper it was copied from first, on both analysis
profiles (DECISIONS.md D-175): its words are matched in the Chinese fields, not as single characters in the
Latin-script ones, where a paper's Chinese keywords are characters."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from support import loaded_alias

from webapp.domain import SearchParams
from webapp.services.search import SearchService

SOURCE = "zh-rumour"
PAPERS = [
    {"id": SOURCE, "title_zh": "谣言研究的方法论述评",
     "abstract_zh": "社会学研究强调团体规范、认同与互动对个体行为的影响。"
                    "本文据此评述谣言传播研究的心理学方法与社会学方法。",
     "keywords": ["谣言", "社会学方法", "网络传播"], "year": 2015},
    # A fragment's last word is often a character cut off ("认" of 认同); this paper's keywords hold it, and the
    # `keywords` field keeps Chinese keywords as single characters, where a rare one scores high.
    {"id": "zh-authentication", "title_zh": "基于格的跨域认证联盟协议",
     "abstract_zh": "针对跨域认证中的安全问题，提出一种基于格的联盟协议，并分析其安全性与效率。",
     "keywords": ["跨域认证", "联盟协议", "双项实体认证"], "year": 2018},
    {"id": "zh-identity", "title_zh": "文化认同与女性自我意识觉醒",
     "abstract_zh": "从文化认同的角度讨论女性自我意识的觉醒过程。",
     "keywords": ["文化认同", "自我意识"], "year": 2016},
    {"id": "zh-soil", "title_zh": "土壤养分的空间变异特征",
     "abstract_zh": "采集土壤样品，分析速效养分的空间变异特征及其影响因素。",
     "keywords": ["空间变异", "土壤养分"], "year": 2019},
    # English papers with keywords of their own: as in a real listing, a Chinese character is rare in `keywords`.
    *({"id": f"en-{i}", "title": f"Rumour spreading on social networks, part {i}",
       "abstract": "We model how rumours spread on social networks.", "keywords": ["rumours", "social networks"],
       "year": 2022} for i in range(60)),
]


@pytest.fixture(scope="module", params=["auto", "core"])
def service(request, cluster, tmp_path_factory) -> Iterator[SearchService]:
    path = tmp_path_factory.mktemp("pasted") / "papers.jsonl"
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in PAPERS), encoding="utf-8")
    with loaded_alias(cluster, "paperstest_pasted", [path], PAPERSEARCH_ANALYSIS_PROFILE=request.param) as (name, _):
        yield SearchService(cluster.client("web"), name)


@pytest.mark.parametrize("fragment", ["会学研究强调团体规范、认", "研究强调团体规范、认同与互"])
def test_a_pasted_fragment_across_punctuation_finds_its_paper_first(service, fragment) -> None:
    hits = service.search(SearchParams(q=fragment, size=10)).hits
    assert hits and hits[0].id == SOURCE, [h.id for h in hits]
