"""Relevance metrics shared by every set in relevance (sample, real-corpus known items, cross-lingual).

Known-item style sets (each query names its expected paper ids), over the top K=10:
  MRR@10      mean over queries of 1/rank of the first expected paper (0 if none in the top 10)
  hit@10      share of queries with an expected paper in the top 10
  recall@10   mean of |expected ∩ top 10| / min(|expected|, 10) (capped, so a topic with more than
              ten papers can still reach 1)
  nDCG@10     binary-relevance nDCG over the expected papers (rewards ranking all of them high)
  zero        queries with no result at all (count and share)
Concept-judged sets (cross-lingual): precision@10 = relevant papers in the top 10 / min(10, relevant
papers in the index), so a concept with only four relevant papers can still reach 1.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

K = 10

Runner = Callable[[str], tuple[list[str], int]]  # query -> (ranked ids of the top K, total hits)


@dataclass
class QueryResult:
    id: str
    q: str
    kind: str
    expected: list[str]
    top: list[str]
    total: int
    ranks: dict[str, int | None]  # expected id -> 1-based rank in the top K, None if not there
    rr: float
    recall: float
    ndcg: float

    @property
    def first_rank(self) -> int | None:
        found = [r for r in self.ranks.values() if r is not None]
        return min(found) if found else None


@dataclass
class Summary:
    system: str
    n: int
    mrr: float
    recall: float
    ndcg: float
    zero_rate: float
    hit: float = 0.0
    zero: int = 0
    by_kind: dict[str, dict[str, float]] = field(default_factory=dict)

    def line(self) -> str:
        return (f"{self.system:<13} MRR@{K} {self.mrr:.3f}   hit@{K} {self.hit:.3f}   recall@{K} {self.recall:.3f}   "
                f"nDCG@{K} {self.ndcg:.3f}   zero-result rate {self.zero_rate:.3f}   ({self.n} queries)")


def ideal_dcg(n_expected: int) -> float:
    return sum(1 / math.log2(rank + 1) for rank in range(1, min(n_expected, K) + 1))


def score(query: dict[str, Any], top: list[str], total: int) -> QueryResult:
    expected = list(query["expected"])
    top = top[:K]
    ranks = {pid: (top.index(pid) + 1 if pid in top else None) for pid in expected}
    found = [r for r in ranks.values() if r is not None]
    return QueryResult(
        id=query["id"], q=query["q"], kind=query["kind"], expected=expected, top=top, total=total, ranks=ranks,
        rr=1.0 / min(found) if found else 0.0,
        recall=len(found) / min(len(expected), K),
        ndcg=sum(1 / math.log2(r + 1) for r in found) / ideal_dcg(len(expected)),
    )


def _means(results: list[QueryResult]) -> dict[str, float]:
    n = len(results)
    return {"n": n, "mrr": sum(r.rr for r in results) / n,
            "hit": sum(1 for r in results if r.first_rank is not None) / n,
            "recall": sum(r.recall for r in results) / n,
            "zero": sum(1 for r in results if r.total == 0)}


def summarize(system: str, results: list[QueryResult]) -> Summary:
    if not results:
        raise ValueError(f"{system}: no results to summarise")
    kinds: dict[str, list[QueryResult]] = {}
    for r in results:
        kinds.setdefault(r.kind, []).append(r)
    overall = _means(results)
    return Summary(
        system=system, n=len(results), mrr=overall["mrr"], recall=overall["recall"],
        ndcg=sum(r.ndcg for r in results) / len(results),
        zero_rate=overall["zero"] / len(results), hit=overall["hit"], zero=int(overall["zero"]),
        by_kind={kind: _means(rs) for kind, rs in kinds.items()},
    )


def search_all(runner: Runner, texts: Sequence[str], workers: int = 1,
               progress_every: int = 500) -> list[tuple[list[str], int]]:
    """runner(text) for every text, in order, over `workers` threads; a progress line every few hundred."""
    start, out = time.monotonic(), []
    with ThreadPoolExecutor(max(1, workers)) as pool:
        for i, answer in enumerate(pool.map(runner, texts), 1):
            out.append(answer)
            if len(texts) > progress_every and (i % progress_every == 0 or i == len(texts)):
                print(f"  {i}/{len(texts)} queries, {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    return out


def run_queries(runner: Runner, queries: Sequence[dict[str, Any]], workers: int = 1) -> list[QueryResult]:
    answers = search_all(runner, [q["q"] for q in queries], workers)
    return [score(query, *answer) for query, answer in zip(queries, answers, strict=True)]


# --- concept-judged sets -------------------------------------------------------------------------------


@dataclass
class ConceptResult:
    id: str
    q: str
    kind: str  # the direction, e.g. "zh-en"
    top: list[str]
    total: int
    relevant_top: list[bool]  # per returned paper: is it about the concept
    n_relevant: int  # relevant papers in the whole index
    precision: float


def precision_at_k(top: list[str], relevant: Collection[str]) -> tuple[list[bool], float]:
    """(relevance of each of the top K, relevant in the top K / min(K, |relevant|))."""
    if not relevant:
        raise ValueError("a concept query needs at least one relevant paper in the index")
    flags = [pid in relevant for pid in top[:K]]
    return flags, sum(flags) / min(K, len(relevant))


def concept_summary(results: list[ConceptResult]) -> dict[str, float]:
    n = len(results)
    return {"n": n, "precision": sum(r.precision for r in results) / n if n else 0.0,
            "zero": sum(1 for r in results if r.total == 0)}
