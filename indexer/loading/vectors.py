"""Each paper's vector of meaning (papersearch/meaning.py), added in the producer between validation and the document.

Records pass through in their order; papers are held back until `batch` of them are waiting (the encoder is several
times faster per paper in batches), then embedded together, from the vector cache where their text was embedded
before (DECISIONS.md D-197). Rejects pass through with the papers around them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from indexer.loading.models import Paper
from indexer.loading.rejects import Reject
from papersearch import meaning

Located = tuple[int | None, "Paper | Reject"]


def _text(paper: Paper) -> str:
    return meaning.paper_text(paper.title, paper.title_zh, paper.abstract, paper.abstract_zh)


def with_vectors(records: Iterable[Located], embedder: meaning.Embedder | None,
                 batch: int) -> Iterator[tuple[int | None, Paper | Reject, Any]]:
    """(line, record, vector): the vector None for a reject, and for every paper when embedder is None (off)."""
    if embedder is None:
        for line, record in records:
            yield line, record, None
        return
    waiting: list[Located] = []

    def flush() -> Iterator[tuple[int | None, Paper | Reject, Any]]:
        papers = [r for _, r in waiting if isinstance(r, Paper)]
        vectors = iter(embedder.vectors([_text(p) for p in papers]))
        for line, record in waiting:
            yield line, record, next(vectors) if isinstance(record, Paper) else None
        waiting.clear()

    held = 0
    for line, record in records:
        waiting.append((line, record))
        held += isinstance(record, Paper)
        if held >= batch:
            yield from flush()
            held = 0
    yield from flush()


def embedder() -> meaning.Embedder | None:
    """The load's embedder, or None when meaning is switched off (config or PAPERSEARCH_MEANING)."""
    return meaning.Embedder() if meaning.enabled() else None
