"""The cross-language parity harness (relevance/parity.py): where a pair's other-language name comes from,
Chinese grading, the summary (ratio, worst pairs, flat counts) and the command's refusals, on made-up papers,
so that the parity figures are computed the way the harness says."""

from __future__ import annotations

import gzip
import json

import pytest

from papersearch.concepts.glossary import parse
from relevance import graded as gr
from relevance import parity
from relevance.crosslingual import ConceptQuery

GLOSSARY = parse(
    "reinforcement_learning\ttopic\treinforcement learning|RL\t强化学习|強化學習\t\n"
    "finite_element\tmethod\tfinite element analysis|finite element method\t有限元分析|有限元法\t\n",
    "test-concepts.tsv")
NAMES = parity.glossary_names(GLOSSARY)

RL_ZH = ConceptQuery(id="zh-rl", q="强化学习", direction="zh-en", concept="reinforcement learning (RL)",
                     judge=[[r"\breinforcement learning\b"]])
FEM_EN = ConceptQuery(id="en-fem", q="finite element analysis", direction="en-zh", concept="有限元分析",
                      judge=[["有限元"]])
UNKNOWN_ZH = ConceptQuery(id="zh-x", q="某个概念", direction="zh-en", concept="some concept, roughly",
                          judge=[["some concept"]])


def test_the_api_name_is_what_it_also_searched_in_the_papers_language():
    expansions = [{"typed": "联邦学习", "also_searched": ["联邦学习", "federated learning", "FL"]},
                  {"typed": "差分隐私", "also_searched": ["differential privacy"]}]
    assert parity.api_name(expansions, "en") == "federated learning differential privacy"
    assert parity.api_name(expansions, "zh") == "联邦学习"
    assert parity.api_name([{"also_searched": ["有限元分析"]}], "en") is None
    assert parity.api_name([], "zh") is None


def test_the_other_name_prefers_the_api_then_the_glossary_then_the_concept_label():
    assert parity.other_name(RL_ZH, [{"also_searched": ["RL policy"]}], NAMES) == ("RL policy", "api")
    assert parity.other_name(RL_ZH, [], NAMES) == ("reinforcement learning", "glossary")
    assert parity.other_name(FEM_EN, [], NAMES) == ("有限元分析", "glossary")
    # any form of the concept finds its name, in the glossary's sense of "the same form" (case, plural)
    assert parity.other_name(FEM_EN.model_copy(update={"q": "Finite Element Methods"}), [], NAMES)[0] == "有限元分析"
    assert parity.other_name(UNKNOWN_ZH, [], NAMES) == ("some concept", "concept")
    assert parity.other_name(UNKNOWN_ZH.model_copy(update={"direction": "en-zh", "q": "x", "concept": "某概念"}),
                             [], NAMES) == ("某概念", "concept")


ZH = [
    {"id": "z1", "title_zh": "基于有限元分析的桥梁设计", "abstract_zh": "本文用有限元方法分析桥梁。有限元模型表明……"},
    {"id": "z2", "title_zh": "桥梁设计", "abstract_zh": "我们用有限元模型计算应力。"},
    {"id": "z3", "title_zh": "有限元", "abstract_zh": "无关的摘要。"},
    {"id": "z4", "title_zh": "水产养殖", "abstract_zh": "鱼类养殖的研究。"},
    {"id": "e1", "title": "Finite element analysis of bridges", "abstract": "finite element"},  # not Chinese
]


def test_chinese_papers_are_graded_on_their_chinese_fields():
    titled = gr.Grader(ZH, titled=True, language="zh").grades(FEM_EN.judge)
    assert titled == {"z1": 2, "z2": 1, "z3": 2}  # the title names it: 2; the abstract only: 1
    bare = gr.Grader(ZH, titled=False, language="zh").grades(FEM_EN.judge)
    assert bare == {"z1": 2, "z2": 1}  # without titles: twice or more in the abstract: 2, once: 1
    assert gr.Grader(ZH, titled=True).grades(FEM_EN.judge) == {}  # English fields hold no Chinese pattern


class FakeApi:
    """What ApiSearch gives run_pairs: ranked ids, totals and scores per query, and each response's expansions."""

    def __init__(self, answers: dict[str, tuple[list[str], list[float]]], expansions: dict[str, list]) -> None:
        self.answers, self.expansions = answers, expansions

    def response(self, q: str) -> dict:
        return {"expansions": self.expansions.get(q, [])}

    def __call__(self, q: str):
        top, scores = self.answers.get(q, ([], []))
        return top, 20, scores


def test_pairs_grade_both_queries_against_the_same_papers():
    grader = gr.Grader(ZH, titled=True, language="zh")
    flat = [1.0] * 10
    api = FakeApi({"finite element analysis": (["z4", "z2", "z1"], flat[:3]),
                   "有限元分析": (["z1", "z3", "z2"], [3.0, 2.0, 1.0])},
                  {"finite element analysis": [{"also_searched": ["有限元分析", "finite element method"]}]})
    [pair] = parity.run_pairs(api, [RL_ZH, FEM_EN], grader, "en-zh", "titled", NAMES, workers=2)
    assert pair.concept is FEM_EN and pair.source == "api" and pair.other.query.q == "有限元分析"
    assert pair.typed.query.grades == pair.other.query.grades == {"z1": 2, "z2": 1, "z3": 2}
    assert pair.other.ndcg == pytest.approx(1.0)
    assert pair.typed.grades_top == [0, 1, 2] and pair.typed.ndcg < 0.6
    assert pair.gap == pytest.approx(pair.other.ndcg - pair.typed.ndcg)


def _pair(cid: str, typed: float, other: float, flat_typed: bool = False) -> parity.Pair:
    q = gr.GradedQuery(cid, cid, "s", {"p": 2})
    def result(ndcg: float, flat: bool) -> gr.GradedResult:
        return gr.GradedResult(q, ["p"], 30, [1.0], ndcg, 1.0, flat, [2])
    concept = RL_ZH.model_copy(update={"id": cid})
    return parity.Pair(concept, "zh-en", "notitle", "api", result(typed, flat_typed), result(other, False))


def test_summary_ratio_worst_pairs_and_flat_counts():
    pairs = [_pair("a", 0.5, 1.0, flat_typed=True), _pair("b", 0.9, 0.9), _pair("c", 1.0, 0.6), _pair("d", 0.3, 0.8)]
    s = parity.summarize(pairs, worst=2)
    assert s["pairs"] == 4 and s["typed_ndcg"] == pytest.approx(0.675) and s["other_ndcg"] == pytest.approx(0.825)
    assert s["ratio"] == pytest.approx(round(0.675 / 0.825, 3))
    assert [w["id"] for w in s["worst"]] == ["a", "d"]  # gap 0.5 each: ties by id
    assert s["flat_typed"] == 1 and s["flat_other"] == 0 and (s["typed_worse"], s["typed_better"]) == (2, 1)
    assert s["sources"] == {"api": 4} and s["by_source"]["api"]["typed_ndcg"] == s["typed_ndcg"]
    pairs[0].source = "glossary"
    by_source = parity.summarize(pairs, worst=0)["by_source"]
    assert by_source["glossary"] == {"pairs": 1, "typed_ndcg": 0.5, "other_ndcg": 1.0, "ratio": 0.5}
    assert by_source["api"]["pairs"] == 3 and "concept" not in by_source
    text = parity.table({"zh-en notitle": s}, "header")
    assert "zh-en notitle" in text and " 0.82" in text and "worst pairs, zh-en notitle" in text
    assert parity.summarize([], 3)["ratio"] is None


def _corpus(tmp_path, name: str, papers: list[dict]) -> None:
    with gzip.open(tmp_path / name, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(p, ensure_ascii=False) + "\n" for p in papers)


def test_the_command_refuses_what_it_cannot_measure(tmp_path, capsys):
    with pytest.raises(SystemExit, match="no corpus"):
        parity.main(["--corpora", str(tmp_path)])
    _corpus(tmp_path, "csl-zh-dev.jsonl.gz", ZH[:4])
    with pytest.raises(SystemExit, match="no corpus"):  # zh-en needs the English papers
        parity.main(["--corpora", str(tmp_path), "--direction", "zh-en"])
    with pytest.raises(SystemExit, match="--api serves one index"):
        parity.main(["--corpora", str(tmp_path), "--api", "http://127.0.0.1:1", "--alias", "papersbench_real_x"])
    for bad in (["--label", "a/b"], ["--alias", "x"], ["--shape", "wide"]):
        with pytest.raises(SystemExit) as exc:
            parity.main(["--corpora", str(tmp_path), *bad])
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--label" in err and "--alias names the index" in err and "'wide' is not one of titled, notitle" in err
