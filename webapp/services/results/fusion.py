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


def interleave(words: Sequence[str], near: Sequence[str], weight: float, rank_constant: int) -> list[str]:
    """The words' list in its own order, with the papers only meaning found slotted in by the same fused scores:
    meaning adds papers but never reorders the word matches (which a glossary concept or a title already ranks
    well: reordering them cost known items and concept queries their first place, DECISIONS.md D-198)."""
    score = {d: 0.0 for d in (*words, *near)}
    for ids, w in ((words, 1.0), (near, weight)):
        for rank, doc_id in enumerate(ids, start=1):
            score[doc_id] += w / (rank_constant + rank)
    in_words = set(words)
    only = [d for d in near if d not in in_words]
    out: list[str] = []
    i = j = 0
    while i < len(words) or j < len(only):
        take_word = j >= len(only) or (i < len(words) and score[words[i]] >= score[only[j]])
        if take_word:
            out.append(words[i])
            i += 1
        else:
            out.append(only[j])
            j += 1
    return out


def fuse_keeping(words: Sequence[str], near: Sequence[str], weight: float, rank_constant: int,
                 kept: set[str]) -> list[str]:
    """The words' papers in `kept` at their places in the words' list, every other place filled by the full fusion
    of the rest (`fuse`, meaning at `weight`): a glossed question's own-language matches stay where the words put
    them, the papers the dictionary's guess let in are reordered by meaning (DECISIONS.md D-219)."""
    rest = iter(d for d in fuse([(words, 1.0), (near, weight)], rank_constant) if d not in kept)
    out = [d if d in kept else next(rest, None) for d in words]
    return list(dict.fromkeys([*(d for d in out if d is not None), *rest]))
