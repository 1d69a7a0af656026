"""Single papers, similar papers, completions and readiness: the SearchService's look-ups besides search."""

from __future__ import annotations

import logging

from elasticsearch import ApiError, Elasticsearch, TransportError

from webapp.domain import Hit, Suggestion
from webapp.services import request_parts as rp
from webapp.services.concept_suggest import ConceptSuggester
from webapp.services.es_errors import es_errors
from webapp.services.hits import to_hit
from webapp.services.labels import TopicLabels

log = logging.getLogger(__name__)

CONCEPT_SUGGESTIONS = 3  # glossary concepts offered first among the completions


class PaperLookups:
    """Mixed into SearchService, which sets these up."""

    client: Elasticsearch
    alias: str
    config: dict
    labels: TopicLabels
    prefix_limit: int
    concept_suggester: ConceptSuggester

    # --- single papers -----------------------------------------------------------------------------

    def get_paper(self, paper_id: str) -> Hit | None:
        """One paper with its whole abstract (escaped) in snippet_html, or None if there is no such id."""
        with es_errors(self.alias, "get"):
            response = self.client.search(
                index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                source_excludes=[self.config["suggest_field"]],
            ).body
        hits = response["hits"]["hits"]
        return to_hit(hits[0], self.labels, full_abstract=True) if hits else None

    def similar(self, paper_id: str, size: int = 5) -> list[Hit]:
        """Papers like this one (more_like_this over similar_fields); [] for an unknown id."""
        with es_errors(self.alias, "mlt"):  # the liked paper's index, then more_like_this
            index = self._index_of(paper_id)
            if index is None:
                return []
            response = self.client.search(
                index=self.alias, query=rp.more_like_this(index, paper_id, self.config), size=size,
                source_excludes=[self.config["suggest_field"]],
            ).body
        return [to_hit(h, self.labels) for h in response["hits"]["hits"]]

    def _index_of(self, paper_id: str) -> str | None:
        # more_like_this needs the concrete index of the liked document (the alias may span versions).
        response = self.client.search(index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                                      source=False).body
        hits = response["hits"]["hits"]
        return hits[0]["_index"] if hits else None

    # --- autocomplete ------------------------------------------------------------------------------

    def suggest(self, prefix: str, size: int = 8) -> list[Suggestion]:
        """Glossary concepts in both languages, then title and author completions, without repeats."""
        prefix = prefix[:self.prefix_limit]
        if not prefix:
            return []
        out: list[Suggestion] = [Suggestion(text=c.text, kind="concept", other=c.other)
                                 for c in self.concept_suggester.suggest(prefix, min(size, CONCEPT_SUGGESTIONS))]
        with es_errors(self.alias, "suggest"):
            response = self.client.search(
                index=self.alias, suggest=rp.completion_suggest(prefix, size, self.config), size=0,
                source=["authors", "title", "title_zh", "heading"],
            ).body
        seen: set[tuple[str, str]] = set()
        for entry in response.get("suggest", {}).get("paper", []):
            for option in entry.get("options", []):
                text = option["text"]
                source = option.get("_source", {})
                kind = "author" if text in (source.get("authors") or []) else "title"
                key = (kind, text.casefold())
                if key in seen:
                    continue
                seen.add(key)
                out.append(Suggestion(text=text, kind=kind, id=option.get("_id") if kind == "title" else None))
        return out[:size]

    # --- health ------------------------------------------------------------------------------------

    def ready(self) -> bool:
        """The cluster answers and the alias exists (GET / is not allowed on every distribution)."""
        try:
            return bool(self.client.indices.exists_alias(name=self.alias))
        except (ApiError, TransportError) as exc:
            log.warning("readiness check failed: %s", exc)
            return False
