"""Graded relevance: is the most relevant paper first? Judgments made from the corpus files, never from a ranking.

Sets (each query: what was typed, and a grade 0–2 for every paper of the index that is not 0):
  zh_keywords      Chinese papers queried by one of their author keywords: 2 when a paper lists the keyword,
                   1 when its title or abstract contains it (CSL).
  topic_zh/_en     the concepts of crosslingual.json's zh-en queries, typed in Chinese and in English, over the
                   English papers. With titles: 2 when the title names the concept, 1 when only the abstract
                   does. Without titles (the listing shape, `notitle_` sets): by how much the abstract is about
                   it, 2 when it names the concept at least twice, 1 once.
  descr_en/_zh     the descriptive questions of descriptive.json ("how to make diffusion models sample
                   faster"), judged like the topics by every group of their patterns.
A concept's patterns are crosslingual.json's (written from the terminology, case-insensitive; see
crosslingual.py). Metrics over the top K=10: nDCG@10 with gain 2^grade − 1 against the ideal order of every
judged paper in the index; "flat" top 10s: at most two distinct scores while more than ten papers match (the
order among them is then the order the papers were written in); P@10 for the descriptive sets: papers of
grade ≥ 1 among the top 10 / min(10, such papers in the index).
"""

from __future__ import annotations

import json
import math
import random
import re
import unicodedata
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relevance.crosslingual import ConceptQuery, Judge
from relevance.metrics import K
from relevance.systems import ScoredRunner

DESCRIPTIVE = Path(__file__).with_name("descriptive.json")
FLAT_SCORES = 2  # a top 10 with at most this many distinct scores is flat
Paper = dict[str, Any]


@dataclass(frozen=True)
class GradedQuery:
    id: str
    q: str
    set: str
    grades: dict[str, int]  # paper id -> grade > 0


@dataclass
class GradedResult:
    query: GradedQuery
    top: list[str]
    total: int
    scores: list[float | None]
    ndcg: float
    precision: float
    flat: bool
    grades_top: list[int] = field(default_factory=list)


# --- judgments ---------------------------------------------------------------------------------------------


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def keyword_queries(papers: Sequence[Paper], n: int, seed: int, min_judged: int = 2) -> list[GradedQuery]:
    """Up to n author keywords (seeded) that at least min_judged papers list or contain, with their grades."""
    chinese = [p for p in papers if p.get("keywords") and (p.get("title_zh") or p.get("abstract_zh"))]
    listed: dict[str, set[str]] = {}
    for p in chinese:
        for k in p["keywords"]:
            if len(_fold(k).strip()) >= 2:
                listed.setdefault(_fold(k).strip(), set()).add(p["id"])
    texts = [(p["id"], _fold(" ".join(p.get(f) or "" for f in ("title", "title_zh", "abstract", "abstract_zh"))))
             for p in papers]
    candidates = sorted(listed)
    random.Random(f"{seed}:zh_keywords").shuffle(candidates)
    out = []
    for keyword in candidates:
        grades = {pid: 1 for pid, text in texts if keyword in text} | dict.fromkeys(listed[keyword], 2)
        if len(grades) >= min_judged:
            out.append(GradedQuery(f"kw-{len(out) + 1}", keyword, "zh_keywords", grades))
        if len(out) == n:
            break
    return out


def english_query(concept: str) -> str:
    """What an English speaker types for a concept label: "low-rank adaptation (LoRA)" → its first name."""
    return re.split(r"[,(]", concept)[0].strip()


TEXT_FIELDS = {"en": ("title", "abstract"), "zh": ("title_zh", "abstract_zh")}  # (title, abstract) per language


class Grader:
    """Grades of judge-pattern groups over one set of papers, titled or by the abstract's mentions alone, read
    from the fields of one language (the judge patterns are written in it)."""

    def __init__(self, papers: Iterable[Paper], titled: bool, language: str = "en") -> None:
        title, abstract = TEXT_FIELDS[language]
        self.papers = [p for p in papers if p.get(abstract) or p.get(title)]
        self.titled = titled
        fields = (title, abstract) if titled else (abstract,)
        self.texts = ["\n".join(p.get(f) or "" for f in fields) for p in self.papers]
        self.judge = Judge([{"id": p["id"], "abstract": t} for p, t in zip(self.papers, self.texts, strict=True)])
        self.titles = Judge([{"id": p["id"], "title": p.get(title) or ""} for p in self.papers])

    def grades(self, groups: list[list[str]]) -> dict[str, int]:
        matched = set.intersection(*(self.judge.group(g) for g in groups))
        if self.titled:
            in_title = set.intersection(*(self.titles.group(g) for g in groups))
            return {self.papers[i]["id"]: 2 if i in in_title else 1 for i in matched}
        regexes = [re.compile("|".join(f"(?:{p})" for p in g), re.IGNORECASE) for g in groups]
        return {self.papers[i]["id"]: 2 if min(len(r.findall(self.texts[i])) for r in regexes) >= 2 else 1
                for i in matched}


def topic_queries(concepts: Sequence[ConceptQuery], grader: Grader, prefix: str = "") -> list[GradedQuery]:
    """Each zh-en concept typed in Chinese and in English, graded over the grader's (English) papers."""
    out = []
    for c in (c for c in concepts if c.direction == "zh-en"):
        grades = grader.grades(c.judge)
        if not grades:
            continue
        out.append(GradedQuery(f"{c.id}", c.q, f"{prefix}topic_zh", grades))
        out.append(GradedQuery(f"{c.id}-en", english_query(c.concept), f"{prefix}topic_en", grades))
    return out


def load_descriptive(path: Path = DESCRIPTIVE) -> list[dict[str, Any]]:
    """descriptive.json: {"queries": [{"id", "q", "judge": [[pattern, …], …]}]}; a bad entry names itself."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out, seen = [], set()
    for number, q in enumerate(data.get("queries") or [], 1):
        where = f"{path}: query {number} ({q.get('id', '?')})"
        for name in ("id", "q", "judge"):
            if not q.get(name):
                raise ValueError(f"{where}: field {name}: missing or empty")
        if q["id"] in seen:
            raise ValueError(f"{where}: field id: duplicate")
        seen.add(q["id"])
        for group in q["judge"]:
            for pattern in group:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"{where}: field judge: {pattern!r} does not compile: {exc}") from exc
        out.append(q)
    if not out:
        raise ValueError(f"{path}: no queries")
    return out


def descriptive_queries(questions: Sequence[dict[str, Any]], grader: Grader, prefix: str = "") -> list[GradedQuery]:
    out = []
    for q in questions:
        grades = grader.grades(q["judge"])
        if grades:
            language = "zh" if re.search(r"[\u4e00-\u9fff]", q["q"]) else "en"
            out.append(GradedQuery(q["id"], q["q"], f"{prefix}descr_{language}", grades))
    return out


# --- metrics -----------------------------------------------------------------------------------------------


def _dcg(grades: Iterable[int]) -> float:
    return sum((2 ** g - 1) / math.log2(rank + 1) for rank, g in enumerate(grades, 1))


def ndcg(top: Sequence[str], grades: dict[str, int]) -> float:
    ideal = _dcg(sorted(grades.values(), reverse=True)[:K])
    return _dcg(grades.get(pid, 0) for pid in top[:K]) / ideal if ideal else 0.0


def is_flat(scores: Sequence[float | None], total: int) -> bool:
    """At most FLAT_SCORES distinct scores among the top K while more than K papers match."""
    known = [round(s, 4) for s in scores[:K] if s is not None]
    return total > K and len(known) == K and len(set(known)) <= FLAT_SCORES


def evaluate(runner: ScoredRunner, queries: Sequence[GradedQuery], workers: int = 2) -> list[GradedResult]:
    with ThreadPoolExecutor(max(1, workers)) as pool:
        answers = list(pool.map(runner, [q.q for q in queries]))
    out = []
    for q, (top, total, scores) in zip(queries, answers, strict=True):
        top = top[:K]
        judged = sum(1 for g in q.grades.values() if g > 0)
        found = sum(1 for pid in top if q.grades.get(pid, 0) > 0)
        out.append(GradedResult(q, top, total, scores[:K], ndcg(top, q.grades), found / min(K, judged),
                                is_flat(scores, total), [q.grades.get(pid, 0) for pid in top]))
    return out


def summary(results: Sequence[GradedResult]) -> dict[str, dict[str, float]]:
    """Per set: queries, mean nDCG@10, mean P@10, flat top 10s."""
    sets: dict[str, list[GradedResult]] = {}
    for r in results:
        sets.setdefault(r.query.set, []).append(r)
    return {name: {"n": len(rs), "ndcg": sum(r.ndcg for r in rs) / len(rs),
                   "precision": sum(r.precision for r in rs) / len(rs), "flat": sum(r.flat for r in rs)}
            for name, rs in sets.items()}
