"""Two ranked lists of papers as one: weighted reciprocal rank fusion (DECISIONS.md D-198).

A paper scores the sum over the lists it is in of weight / (rank_constant + rank), ranks from 1; ties keep the
words' order. Ranks, not scores, are fused: a BM25 score and a cosine are not on one scale, and Elasticsearch's own
rank fusion (the rrf retriever) is not in every distribution.
"""

from __future__ import annotations

from collections.abc import Sequence


def fuse(lists: Sequence[tuple[Sequence[str], float]], rank_constant: int) -> list[str]:
    """Every id of the (ids, weight) lists once, best first."""
    scores: dict[str, float] = {}
    for ids, weight in lists:
        for rank, doc_id in enumerate(ids, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (rank_constant + rank)
    first_seen = {doc_id: i for i, doc_id in enumerate(dict.fromkeys(d for ids, _ in lists for d in ids))}
    return sorted(scores, key=lambda d: (-scores[d], first_seen[d]))
