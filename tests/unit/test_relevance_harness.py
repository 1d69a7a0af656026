"""The relevance harness itself (relevance): metrics, known-item generation, the cross-lingual set and its
judge, on a tiny made-up corpus, so that the figures in RESULTS.md are computed the way they claim."""

from __future__ import annotations

import json
import random
import re
import unicodedata

import pytest
from nodeless import drawn

from relevance import crosslingual as xl
from relevance import known_items as ki
from relevance import real
from relevance.corpora import heading, read_jsonl
from relevance.metrics import precision_at_k, run_queries, score, search_all, summarize

FILLER = ["we", "study", "how", "models", "learn", "from", "data", "and", "show", "that", "a", "simple", "method",
          "improves", "results", "on", "several", "benchmarks", "while", "keeping", "the", "cost", "low"]


def _abstract(seed: int, latex_every: int = 0) -> str:
    rng = random.Random(seed)
    words = [rng.choice(FILLER) for _ in range(48)]
    if latex_every:
        words = [f"$x_{i}$" if i % latex_every == 0 else w for i, w in enumerate(words)]
    return " ".join(words)


EN = [
    {"id": "e1", "title": "Contrastive Learning of Sparse Representations", "authors": ["Ada Lovelace", "Sam Shared"],
     "abstract": _abstract(1)},
    {"id": "e2", "title": "Federated Optimisation under Heterogeneous Clients", "authors": ["Sam Shared"],
     "abstract": _abstract(2, latex_every=3)},
    {"id": "e3", "title": "Diffusion Models Beat Adversarial Networks", "authors": ["Grace Hopper"],
     "abstract": _abstract(3)},
    {"id": "e4", "title": "Diffusion Models Beat Adversarial Networks", "authors": ["Alan Turing"],
     "abstract": _abstract(4)},  # the same title twice: left out of the title kinds
    {"id": "e5", "title": "Graph Neural Networks Generalise Poorly", "authors": ["Emmy Noether"],
     "abstract": _abstract(5)},
    {"id": "e6", "title": "Contrastive Learning of Dense Representations", "authors": ["Ada B. Lovelace"],
     "abstract": _abstract(6)},  # shares title words with e1, and its author is e1's Ada Lovelace
]
ZH = [
    {"id": "z1", "title_zh": "基于有限元的隧道衬砌裂缝数值模拟研究", "keywords": ["有限元", "隧道", "裂缝"],
     "abstract_zh": ("采用有限元方法对隧道衬砌裂缝进行了数值模拟，分析了裂缝宽度与深度对结构安全的影响，"
                     "结果表明裂缝深度是控制因素。") * 2},
    {"id": "z2", "title_zh": "大豆蛋白改性及其在食品工业中的应用进展", "keywords": ["大豆蛋白", "改性", "隧道"],
     "abstract_zh": ("综述了大豆蛋白物理改性、化学改性和酶法改性的研究进展，"
                     "讨论了改性大豆蛋白在肉制品和饮料中的应用前景。") * 2},
    {"id": "z3", "title_zh": "高血压患者的中医辨证治疗临床观察", "keywords": ["高血压", "辨证", "裂缝"],
     "abstract_zh": ("目的 观察中医辨证治疗高血压的临床疗效。方法 将八十例患者随机分为两组，"
                     "结果 治疗组疗效优于对照组。") * 2},
]


# --- metrics -------------------------------------------------------------------------------------------------


def test_known_item_metrics():
    results = [
        score({"id": "a", "q": "x", "kind": "k1", "expected": ["p1"]}, ["p9", "p1"], 7),  # rank 2
        score({"id": "b", "q": "y", "kind": "k1", "expected": ["p2"]}, ["p9"], 1),  # not in the top 10
        score({"id": "c", "q": "z", "kind": "k2", "expected": ["p3"]}, [], 0),  # nothing at all
        score({"id": "d", "q": "w", "kind": "k2", "expected": ["p4"]}, ["p4"] + [f"q{i}" for i in range(20)], 99),
    ]
    assert [r.first_rank for r in results] == [2, None, None, 1]
    s = summarize("ours", results)
    assert s.mrr == pytest.approx((0.5 + 1) / 4)
    assert s.hit == 0.5 and s.zero == 1 and s.zero_rate == 0.25
    assert s.by_kind["k1"] == {"n": 2, "mrr": 0.25, "hit": 0.5, "recall": 0.5, "zero": 0}
    assert s.by_kind["k2"]["zero"] == 1 and s.by_kind["k2"]["mrr"] == 0.5


def test_precision_is_capped_by_the_relevant_papers_in_the_index():
    flags, p = precision_at_k(["a", "x", "b", "y"], {"a", "b", "c", "d"})
    assert flags == [True, False, True, False] and p == 0.5  # 2 of min(10, 4)
    _, p = precision_at_k([f"r{i}" for i in range(10)], {f"r{i}" for i in range(30)})
    assert p == 1.0
    _, p = precision_at_k([f"r{i}" for i in range(12)], {"r11"})
    assert p == 0.0  # only the top 10 count
    with pytest.raises(ValueError):
        precision_at_k(["a"], set())


def test_search_all_keeps_the_order_over_threads():
    texts = [str(i) * (i % 5 + 1) for i in range(50)]
    answers = search_all(lambda q: ([q], len(q)), texts, workers=4)
    assert answers == [([t], len(t)) for t in texts]
    queries = [{"id": "a", "q": "p1", "kind": "k", "expected": ["p1"]}]
    assert run_queries(lambda q: ([q], 1), queries, workers=2)[0].rr == 1.0


# --- known-item generation -----------------------------------------------------------------------------------


def _edit_position(a: str, b: str) -> int:
    """Index of the first differing character of two words one typing error apart."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    i = _edit_position(a, b)
    return (a[i + 1:] == b[i + 1:]) or (a[i + 1:] == b[i:]) or (a[i:] == b[i + 1:]) or (
        a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:])


def test_english_items_are_derived_from_their_paper_and_reproducible():
    items = ki.english_items(EN, n=10, seed=7)
    assert items == ki.english_items(EN, n=10, seed=7)
    by_id = {p["id"]: p for p in EN}
    kinds = {i["kind"] for i in items}
    assert kinds == set(ki.EN_KINDS)
    for item in items:
        paper = by_id[item["expected"][0]]
        if item["kind"].startswith("title"):
            assert paper["id"] not in ("e3", "e4"), "a title shared by two papers is ambiguous"
        if item["kind"] == "title":
            assert item["q"] == paper["title"]
        elif item["kind"] == "title_words":
            words = item["q"].split()
            assert len(words) == 3 and all(w in paper["title"].lower() for w in words)
            assert not set(words) & ki.STOPWORDS
            assert [p["id"] for p in EN if set(words) <= set(ki.words_of(p["title"]))] == [paper["id"]]
        elif item["kind"].startswith("title_typo"):
            changed = [(a, b) for a, b in zip(paper["title"].split(), item["q"].split(), strict=True) if a != b]
            assert len(changed) == 1 and _one_edit(*changed[0]), item
            pos = _edit_position(*changed[0])
            assert (pos <= 1) if item["kind"] == "title_typo_start" else (pos >= 2), item
        elif item["kind"] == "author":
            assert item["q"] in paper["authors"] and item["q"] not in ("Sam Shared", "Ada Lovelace", "Ada B. Lovelace")
        elif item["kind"] == "abstract_8w":
            assert len(item["q"].split()) == 8 and item["q"] in paper["abstract"]
            assert not re.search(r"[$\\{}^_]", item["q"])
            assert [p["id"] for p in EN if item["q"] in p["abstract"]] == [paper["id"]]


def test_misspell_always_changes_the_word_by_one_edit():
    rng = drawn(1)
    for word in ("Lookahead", "Interaction", "Divergences", "aabbb", "Learning"):
        for pos in range(len(word)):
            typo = ki.misspell(word, pos, rng)
            assert _one_edit(word, typo), (word, pos, typo)


def test_chinese_items():
    items = ki.chinese_items(ZH, n=10, seed=3)
    assert items == ki.chinese_items(ZH, n=10, seed=3)
    by_id = {p["id"]: p for p in ZH}
    assert {i["kind"] for i in items} == set(ki.ZH_KINDS)

    def holders(*pieces: str) -> list[str]:
        return [p["id"] for p in ZH if all(x in p["title_zh"] + p["abstract_zh"] + "".join(p["keywords"])
                                           for x in pieces)]

    for item in items:
        paper, q = by_id[item["expected"][0]], item["q"]
        if item["kind"] == "zh_title":
            assert q == paper["title_zh"]
        elif item["kind"] == "zh_title_part":
            assert q in paper["title_zh"] and 5 <= len(q) < len(paper["title_zh"]) and holders(q) == [paper["id"]]
        elif item["kind"] == "zh_rare_keyword":
            assert q in paper["keywords"] and holders(q) == [paper["id"]]
            assert q not in ("隧道", "裂缝")  # each on two papers
        elif item["kind"] == "zh_two_keywords":
            a, b = q.split(" ")
            assert a in paper["keywords"] and b in paper["keywords"] and holders(a, b) == [paper["id"]]
        elif item["kind"] == "zh_abstract_12c":
            assert len(q) == 12 and q in paper["abstract_zh"] and holders(q) == [paper["id"]]
            assert unicodedata.category(q[0])[0] in "LN" and unicodedata.category(q[-1])[0] in "LN"


def test_notitle_items_are_typed_titles():
    items = ki.notitle_items(EN, n=2, seed=1)
    assert len(items) == 2 and {i["kind"] for i in items} == {"notitle_title"}
    assert all(i["q"] == EN[int(i["expected"][0][1]) - 1]["title"] for i in items if i["kind"] == "notitle_title")


# --- the cross-lingual set ------------------------------------------------------------------------------------


def test_the_shipped_crosslingual_set():
    queries = xl.load()
    zh_en = [q for q in queries if q.direction == "zh-en"]
    en_zh = [q for q in queries if q.direction == "en-zh"]
    assert len(zh_en) >= 60 and len(en_zh) >= 20
    assert len({q.q for q in queries}) == len(queries), "a query typed twice"
    cjk = re.compile(r"[\u3400-\u9fff]")
    assert all(cjk.search(q.q) and not re.search(r"[A-Za-z]", q.q) for q in zh_en)
    assert all(not cjk.search(q.q) for q in en_zh)
    assert all(not cjk.search(p) for q in zh_en for g in q.judge for p in g), "zh-en is judged on English text"
    assert all(cjk.search(p) for q in en_zh for g in q.judge for p in g), "en-zh is judged on Chinese text"


def test_judge_needs_every_group_and_respects_word_and_case_rules():
    query = xl.ConceptQuery(id="t", q="生成对抗网络 图像", direction="zh-en", concept="GANs for images",
                            judge=[[r"\bgenerative adversarial\b", r"(?-i:\bGANs?\b)"], [r"\bimages?\b"]])
    papers = [
        {"id": "1", "title": "GANs for Image Synthesis"},
        {"id": "2", "title": "Generative adversarial training", "abstract": "on images"},
        {"id": "3", "title": "Generative adversarial networks for text"},  # second concept missing
        {"id": "4", "title": "Gan et al. images", "abstract": "organ images"},  # "Gan" is a name, not GAN
        {"id": "5", "title": "BigGANs on imagery"},  # neither inside a longer word
    ]
    assert xl.relevance([query], papers) == {"t": {"1", "2"}}


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"\bcontrastive\b", ("contrastive", False)),
    (r"(?-i:\bGANs?\b)", ("GAN", True)),
    (r"\bmulti-?modal\w*", ("multi", False)),
    (r"\b3D Shapes\b", ("3d shapes", False)),
    (r"钢(?!琴)", ("钢", False)),
    (r"\b(?:neural )?architecture", None),  # starts with a group
    (r"graph|tree", None),  # alternatives at the top level share no prefix
    (r"\b[1248]-bit", None),
])
def test_anchor_is_a_piece_every_match_contains(pattern, expected):
    assert xl.anchor(pattern) == expected


def test_judging_through_anchors_equals_judging_every_paper():
    papers = [*EN, *ZH, {"id": "x1", "abstract": "Multimodal GAN and a gan; graph or tree; 4-bit, 钢琴 and 钢材"},
              {"id": "x2", "title": "MULTI-MODAL Shapes", "abstract": "neural architecture search, 3D shapes"}]
    groups = [[r"\bmulti-?modal\w*"], [r"(?-i:\bGANs?\b)", r"\bcontrastive\b"], [r"graph|tree"], [r"\b[1248]-bit"],
              [r"钢(?!琴)"], [r"\b(?:neural )?architecture search", r"\b3D Shapes\b"], [r"隧道", r"\bgraph\b"]]
    queries = [xl.ConceptQuery(id=f"q{n}", q="x", direction="zh-en", concept="c", judge=[g])
               for n, g in enumerate(groups)]
    queries.append(xl.ConceptQuery(id="both", q="x", direction="zh-en", concept="c", judge=groups[:2]))
    brute = {q.id: {p["id"] for p in papers if all(any(re.search(pat, xl.judged_text(p), re.IGNORECASE) for pat in g)
                                                   for g in q.judge)} for q in queries}
    assert xl.relevance(queries, papers) == brute
    assert brute["q1"] == {"e1", "e6", "x1"} and brute["q4"] == {"x1"} and brute["both"] == {"x1"}


def test_run_leaves_out_queries_without_relevant_papers():
    queries = [xl.ConceptQuery(id="a", q="对比学习", direction="zh-en", concept="c", judge=[[r"\bcontrastive\b"]]),
               xl.ConceptQuery(id="b", q="量子计算", direction="zh-en", concept="q", judge=[[r"\bquantum\b"]])]
    relevant = xl.relevance(queries, EN)
    assert relevant == {"a": {"e1", "e6"}, "b": set()}
    results = xl.run(lambda q: (["e2", "e1"], 2), queries, relevant)
    assert [(r.id, r.relevant_top, r.n_relevant, r.precision) for r in results] == [("a", [False, True], 2, 0.5)]


def test_a_bad_query_file_names_file_query_and_field(tmp_path):
    path = tmp_path / "set.json"
    good = {"id": "a", "q": "对比学习", "direction": "zh-en", "concept": "c", "judge": [["x"]]}
    path.write_text(json.dumps({"queries": [good, {**good, "id": "b", "judge": [["(unclosed"]]}]}))
    with pytest.raises(ValueError, match=r"set\.json: query 2 \(b\): field judge: .*does not compile"):
        xl.load(path)
    path.write_text(json.dumps({"queries": [good, {**good, "direction": "fr-en", "id": "c"}]}))
    with pytest.raises(ValueError, match=r"query 2 \(c\): field direction"):
        xl.load(path)
    path.write_text(json.dumps({"queries": [good, good]}))
    with pytest.raises(ValueError, match=r"query 2 \(a\): field id: duplicate"):
        xl.load(path)


# --- corpora and the command ----------------------------------------------------------------------------------


def test_read_jsonl_names_the_broken_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "title": "T"}\n\n{"id": \n')
    with pytest.raises(ValueError, match=r"c\.jsonl:3: not JSON"):
        read_jsonl(path)
    path.write_text('{"title": "no id"}\n')
    with pytest.raises(ValueError, match=r"c\.jsonl:1: field id"):
        read_jsonl(path)
    assert heading({"id": "x", "abstract": "word " * 40}, width=20) == "word word word word…"


def test_the_command_skips_when_the_corpora_are_absent(tmp_path, capsys):
    assert real.main(["--corpora", str(tmp_path)]) == 0
    assert "skipped" in capsys.readouterr().err


def test_report_tables_and_json(tmp_path, capsys):
    from relevance import real_report

    items = ki.english_items(EN, n=2, seed=5, kinds=("title", "author"))
    known = {"ours": [score(i, [i["expected"][0]], 1) for i in items],
             "baseline": [score(i, ["e5", i["expected"][0]], 2) if n else score(i, [], 0) for n, i in enumerate(items)]}
    query = xl.ConceptQuery(id="q", q="对比学习", direction="zh-en", concept="c", judge=[[r"\bcontrastive\b"]])
    relevant = xl.relevance([query], EN)
    concept = {"ours": xl.run(lambda q: (["e1"], 1), [query], relevant),
               "baseline": xl.run(lambda q: ([], 0), [query], relevant)}
    real_report.print_tables(real_report.xl_summary(concept), real_report.known_summary(known), "header")
    real_report.print_failures(concept["baseline"], known["baseline"], lambda pid: pid.upper(), per_kind=3)
    out = capsys.readouterr().out
    assert "zh-en" in out and "= English, titled index" in out and "NO RESULTS" in out
    path = tmp_path / "r.json"
    real_report.write_json(path, {"command": "x"}, [query], concept, known)
    data = json.loads(path.read_text())
    assert data["summary"]["crosslingual"]["ours"]["zh-en"] == {"n": 1, "precision": 0.5, "zero": 0}
    assert data["summary"]["crosslingual"]["baseline"]["zh-en"]["zero"] == 1
    assert data["summary"]["known_items"]["ours"]["groups"]["English, titled index"]["mrr"] == 1.0
    first = data["known_items"][0]["systems"]
    assert first["ours"] == {"rank": 1, "total": 1} and first["baseline"] == {"rank": None, "total": 0, "top": []}


def test_the_command_rejects_unknown_parts(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        real.main(["--corpora", str(tmp_path), "--skip", "xl,titles"])
    assert exc.value.code == 2 and "unknown part(s) titles" in capsys.readouterr().err
