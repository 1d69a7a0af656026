"""Single papers, similar papers and completions: the look-ups besides search, sent through the service's
Elasticsearch access (es/access.py: its client and time budget)."""

from __future__ import annotations

from webapp.domain import Hit, Suggestion
from webapp.services.es.access import EsAccess
from webapp.services.es.errors import es_errors
from webapp.services.facets.labels import TopicLabels
from webapp.services.lookups import completion
from webapp.services.lookups.concept_suggest import ConceptSuggester, by_papers
from webapp.services.results.hits import to_hit
from webapp.services.search_settings import WebSearchConfig

CONCEPT_SUGGESTIONS = 3  # glossary concepts offered first among the completions
CONCEPT_CANDIDATES = 30  # concepts starting with the prefix whose papers are counted, to offer the commonest


class PaperLookups:
    """A paper page's, similar papers' and completions' requests. Each look-up is one page's requests: it starts
    the access's time budget and sends through it, so a paper page's two requests share one budget as a
    search's rounds do (DECISIONS.md D-103), rather than waiting the client's timeout each."""

    def __init__(self, access: EsAccess, labels: TopicLabels, concept_suggester: ConceptSuggester,
                 prefix_limit: int) -> None:
        self.access, self.alias, self.config = access, access.alias, access.config
        self.labels = labels
        self.concept_suggester = concept_suggester
        self.prefix_limit = prefix_limit  # completions are indexed from this many characters

    # --- single papers -----------------------------------------------------------------------------

    def get_paper(self, paper_id: str) -> Hit | None:
        """One paper with its whole abstract (escaped) in snippet_html, or None if there is no such id."""
        self.access.start_budget()
        raw = self._lookup(paper_id, "get")
        return to_hit(raw, self.labels, full_abstract=True) if raw else None

    def similar(self, paper_id: str, size: int = 5) -> list[Hit]:
        """Papers like this one (more_like_this over the similar fields); [] for an unknown id."""
        self.access.start_budget()
        raw = self._lookup(paper_id, "mlt", source=False)
        return self._more_like(raw["_index"], paper_id, size) if raw else []

    def paper_and_similar(self, paper_id: str, size: int = 5) -> tuple[Hit | None, list[Hit]]:
        """The paper page: get_paper and similar with one ids query (its hit names the concrete index)."""
        self.access.start_budget()
        raw = self._lookup(paper_id, "get")
        if raw is None:
            return None, []
        return to_hit(raw, self.labels, full_abstract=True), self._more_like(raw["_index"], paper_id, size)

    def _lookup(self, paper_id: str, what: str, source: bool = True) -> dict | None:
        with es_errors(self.alias, what):
            response = self.access.es().search(
                index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                **({"source_excludes": [self.config.suggest_field]} if source else {"source": False}),
            ).body
        hits = response["hits"]["hits"]
        return hits[0] if hits else None

    def _more_like(self, index: str, paper_id: str, size: int) -> list[Hit]:
        # more_like_this needs the concrete index of the liked document (the alias may span versions).
        with es_errors(self.alias, "mlt"):
            response = self.access.es().search(
                index=self.alias, query=more_like_this(index, paper_id, self.config), size=size,
                source_excludes=[self.config.suggest_field],
            ).body
        return [to_hit(h, self.labels) for h in response["hits"]["hits"]]

    # --- autocomplete ------------------------------------------------------------------------------

    def suggest(self, prefix: str, size: int = 8) -> list[Suggestion]:
        """Glossary concepts in both languages, then title and author completions, without repeats."""
        prefix = prefix[:self.prefix_limit]
        if not prefix:
            return []
        concepts = self.concept_suggester.suggest(prefix, CONCEPT_CANDIDATES)
        ids = [c.concept_id for c in concepts]
        self.access.start_budget()
        with es_errors(self.alias, "suggest"):
            response = self.access.es().search(
                index=self.alias, suggest=completion.completion_suggest(prefix, size, self.config), size=0,
                source=completion.SOURCE_FIELDS, **({"aggs": completion.concept_papers(ids)} if ids else {}),
            ).body
        ranked = by_papers(concepts, completion.papers_per_concept(response), min(size, CONCEPT_SUGGESTIONS))
        out: list[Suggestion] = [Suggestion(text=c.text, kind="concept", other=c.other) for c in ranked]
        out += completion.suggestions(response)
        return out[:size]


def more_like_this(index: str, paper_id: str, config: WebSearchConfig) -> dict:
    """Papers similar to one paper (config/index.json "similar")."""
    settings = config.similar
    return {"more_like_this": {
        "fields": settings.fields, "like": [{"_index": index, "_id": paper_id}],
        **settings.model_dump(include={"min_term_freq", "min_doc_freq", "max_query_terms", "minimum_should_match"}),
    }}
