"""What the search service sends, without a node: a stand-in for the Elasticsearch client that writes down every
search and _msearch the service makes and answers each from a small scripted world (how many papers a body
finds, which words no paper has, what the suggesters offer). The bodies are made by the service's own plan and
renderer; the answers only steer the ladder (relaxed, corrected, did-you-mean rounds) as a real index would.
Used by test_request_bodies.py, whose snapshots pin the bodies a refactoring must not change."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

Body = dict[str, Any]
PAPER = {"_index": "papers-v1", "_id": "p1", "_score": 1.0,
         "_source": {"title": "Graph neural networks for molecules", "authors": ["Ada Lovelace", "Alan Turing"],
                     "topic_area": "Deep Learning", "year": 2024, "abstract": "We study message passing."}}


AUTHOR_KEYS = ("ada lovelace", "geoffrey hinton", "soren hauberg")  # the scripted index's author name keys


@dataclass
class World:
    """What the scripted index holds: `papers` in all on an index of `profile`; a body mentioning a word of
    `counts` finds that many papers (the fewest of those it mentions; 0: a word no paper has), any other body
    `found`, a relaxed one (naming the all-words tier) `relaxed` when set; the term suggesters offer
    `suggestions` (word → [(option, score, papers)])."""

    profile: str = "plugin"
    papers: int = 13_033
    found: int = 120
    counts: dict[str, int] = field(default_factory=dict)
    relaxed: int | None = None
    suggestions: dict[str, list[tuple[str, float, int]]] = field(default_factory=dict)
    meaning: str | None = None  # the model of the index's vectors of meaning (its _meta); papers' vector then

    def total(self, body: Body) -> int:
        text = json.dumps(body, ensure_ascii=False).casefold()
        if self.relaxed is not None and '"_name": "all_words"' in text:
            return self.relaxed
        return min([n for w, n in self.counts.items() if w.casefold() in text], default=self.found)

    def answer(self, body: Body) -> Body:
        total, relation = self.total(body), "eq"
        limit = body.get("track_total_hits")
        if type(limit) is int and total > limit:  # counted up to a limit, as Elasticsearch does
            total, relation = limit, "gte"
        paper = PAPER
        if self.meaning and isinstance(body.get("_source"), dict) and body["_source"].get("exclude_vectors") is False:
            paper = {**PAPER, "_source": {**PAPER["_source"], "meaning_vector": [0.25, 0.5]}}
        answer: Body = {"took": 1, "hits": {"total": {"value": total, "relation": relation},
                                            "hits": [paper] if total and body.get("size", 10) else []}}
        if "suggest" in body:
            suggest = dict(body["suggest"])
            words = str(suggest.pop("text", "")).split()
            answer["suggest"] = {name: [self._entry(w) for w in ([s["text"]] if "text" in s else words)]
                                 for name, s in suggest.items()}
        aggs = body.get("aggs") or body.get("aggregations") or {}
        if aggs:
            answer["aggregations"] = {name: {"buckets": self._buckets(name, aggs[name]), "values": {"buckets": []}}
                                      for name in aggs}
        return answer

    def _buckets(self, name: str, agg: Body) -> list[Body]:
        if name == "names":
            return [{"key": "Ada Lovelace", "doc_count": 2}]
        if name == "keys":  # an author look-up (webapp/services/query/author_names.py): the keys its regexp takes
            pattern = agg.get("terms", {}).get("include", "")
            include = pattern if isinstance(pattern, list) else [pattern]
            return [{"key": k, "doc_count": 2} for k in AUTHOR_KEYS
                    if any(k == p or re.fullmatch(p, k) for p in include if isinstance(p, str))]
        return []

    def _entry(self, word: str) -> Body:
        options = [{"text": o, "score": score, "freq": freq} for o, score, freq in self.suggestions.get(word, [])]
        return {"text": word, "options": options}


class _Response:
    def __init__(self, body: Body) -> None:
        self.body = body


class _Indices:
    def __init__(self, world: World) -> None:
        self.world = world

    def get_mapping(self, index: str) -> _Response:
        meta = {"analysis_profile": self.world.profile, **({"meaning_model": self.world.meaning} if self.world.meaning
                                                             else {})}
        return _Response({"papers-v1": {"mappings": {"_meta": meta}}})

    def exists_alias(self, name: str) -> bool:
        return True


class RecordingClient:
    """Answers search, msearch, count and the mapping look-up; `sent` holds every search body in order, each as
    {"api": "search" | "msearch", "body": …} with keyword arguments (an _msearch item's header) folded into the
    body."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.indices = _Indices(world)
        self.sent: list[Body] = []

    def options(self, **_: Any) -> RecordingClient:
        return self  # a request timeout (the search's budget) changes no body

    def count(self, index: str) -> _Response:
        return _Response({"count": self.world.papers})

    def search(self, index: str, body: Body | None = None, **kwargs: Any) -> _Response:
        whole = {**(body or {}), **{k: v for k, v in kwargs.items() if v is not None}}
        self.sent.append({"api": "search", "body": whole})
        return _Response(self.world.answer(whole))

    def msearch(self, index: str, searches: list[Body]) -> _Response:
        bodies = searches[1::2]  # header, body, header, body …
        self.sent.append({"api": "msearch", "bodies": [{**b, **h} for h, b in zip(searches[::2], bodies, strict=True)]})
        return _Response({"responses": [self.world.answer(b) for b in bodies]})
