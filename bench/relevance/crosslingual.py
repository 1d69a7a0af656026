"""The cross-lingual set: queries typed in one language whose relevant papers are in the other, judged by concept.

crosslingual.json holds {"queries": [...]}, each query
  id         unique
  q          what a researcher types (Chinese for zh-en, English for en-zh)
  direction  "zh-en" (Chinese query, English papers) or "en-zh"
  concept    the concept in the other language, for people reading the results
  judge      a list of groups of regular expressions in the target language: a paper is about the concept
             when every group has a pattern that occurs in its title, abstract or keywords. Patterns match
             case-insensitively; acronyms that are also ordinary words are written case-sensitive, (?-i:GAN).
A paper's relevance is decided from the corpus files (by id), never from what a system returns, so the same
file runs against any index holding those papers. Metric: precision@10 = relevant in the top 10 /
min(10, relevant papers in the index), and the number of queries with no result at all, per direction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bench.relevance.metrics import ConceptResult, Runner, precision_at_k, search_all

QUERIES = Path(__file__).with_name("crosslingual.json")
DIRECTIONS = ("zh-en", "en-zh")
JUDGED_FIELDS = ("title", "title_zh", "abstract", "abstract_zh", "keywords")


class ConceptQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    q: str = Field(min_length=1)
    direction: Literal["zh-en", "en-zh"]
    concept: str = Field(min_length=1)
    judge: list[list[str]] = Field(min_length=1)

    @field_validator("judge")
    @classmethod
    def _patterns_compile(cls, groups: list[list[str]]) -> list[list[str]]:
        for group in groups:
            if not group:
                raise ValueError("a judge group needs at least one pattern")
            for pattern in group:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from exc
        return groups

    def matcher(self) -> list[list[re.Pattern[str]]]:
        return [[re.compile(p, re.IGNORECASE) for p in group] for group in self.judge]


def load(path: Path = QUERIES) -> list[ConceptQuery]:
    """The set; a bad query stops with file, query number and id, field and reason."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: list[ConceptQuery] = []
    seen: set[str] = set()
    for number, raw in enumerate(data.get("queries") or [], 1):
        try:
            query = ConceptQuery.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(map(str, err["loc"])) or "query"
            raise ValueError(f"{path}: query {number} ({raw.get('id', '?') if isinstance(raw, dict) else '?'}): "
                             f"field {where}: {err['msg']}") from exc
        if query.id in seen:
            raise ValueError(f"{path}: query {number} ({query.id}): field id: duplicate")
        seen.add(query.id)
        out.append(query)
    if not out:
        raise ValueError(f"{path}: no queries")
    return out


def judged_text(paper: dict[str, Any]) -> str:
    parts = []
    for name in JUDGED_FIELDS:
        value = paper.get(name)
        parts.extend(value if isinstance(value, list) else [value or ""])
    return "\n".join(p for p in parts if p)


def relevance(queries: list[ConceptQuery], papers: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    """Query id -> ids of the papers about its concept."""
    texts = [(p["id"], judged_text(p)) for p in papers]
    out = {}
    for query in queries:
        groups = query.matcher()
        out[query.id] = {pid for pid, text in texts if all(any(r.search(text) for r in g) for g in groups)}
    return out


def run(runner: Runner, queries: list[ConceptQuery], relevant: dict[str, set[str]],
        workers: int = 1) -> list[ConceptResult]:
    """Queries with no relevant paper in the index are left out (the caller reports them)."""
    judged = [q for q in queries if relevant[q.id]]
    out = []
    for query, (top, total) in zip(judged, search_all(runner, [q.q for q in judged], workers), strict=True):
        flags, precision = precision_at_k(top, relevant[query.id])
        out.append(ConceptResult(id=query.id, q=query.q, kind=query.direction, top=top[:len(flags)], total=total,
                                 relevant_top=flags, n_relevant=len(relevant[query.id]), precision=precision))
    return out
