"""Single papers, similar papers and completions: the look-ups besides search, sent through the service's
Elasticsearch access (es/access.py: its client and time budget)."""

from __future__ import annotations

from papersearch import meaning
from webapp.domain import Hit, Suggestion
from webapp.services.es.access import EsAccess
from webapp.services.es.errors import es_errors
from webapp.services.lookups import completion
from webapp.services.lookups.concept_suggest import ConceptSuggester, by_papers
from webapp.services.results.fusion import fuse
from webapp.services.results.hits import to_hit
from webapp.services.results.topic_labels import TopicLabels
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
        """Papers like this one (more_like_this over the similar fields, and by meaning); [] for an unknown id."""
        self.access.start_budget()
        raw = self._lookup(paper_id, "mlt", source=False)
        return self._more_like(raw, paper_id, size) if raw else []

    def paper_and_similar(self, paper_id: str, size: int = 5) -> tuple[Hit | None, list[Hit]]:
        """The paper page: get_paper and similar with one ids query (its hit names the concrete index)."""
        self.access.start_budget()
        raw = self._lookup(paper_id, "get")
        if raw is None:
            return None, []
        return to_hit(raw, self.labels, full_abstract=True), self._more_like(raw, paper_id, size)

    def _lookup(self, paper_id: str, what: str, source: bool = True) -> dict | None:
        """The paper's hit; with its vector of meaning in "_vector" when meaning is on and the paper has one."""
        field = self.config.meaning.field
        if meaning.enabled():  # vectors are left out of _source unless asked for
            wanted: dict = {"source": {"excludes": [self.config.suggest_field]} if source else {"includes": [field]}}
            wanted["source"]["exclude_vectors"] = False
        else:
            wanted = {"source_excludes": [self.config.suggest_field]} if source else {"source": False}
        with es_errors(self.alias, what):
            response = self.access.es().search(index=self.alias, query={"ids": {"values": [paper_id]}}, size=1,
                                               **wanted).body
        hits = response["hits"]["hits"]
        if not hits:
            return None
        hit = hits[0]
        hit["_vector"] = hit.get("_source", {}).pop(field, None)
        return hit

    def _more_like(self, raw: dict, paper_id: str, size: int) -> list[Hit]:
        # more_like_this needs the concrete index of the liked document (the alias may span versions).
        words = {"query": more_like_this(raw["_index"], paper_id, self.config), "size": size}
        if not raw.get("_vector"):  # meaning off, or a paper without a vector: the words' list alone
            with es_errors(self.alias, "mlt"):
                response = self.access.es().search(index=self.alias, **words,
                                                   source_excludes=[self.config.suggest_field]).body
            return [to_hit(h, self.labels) for h in response["hits"]["hits"]]
        bodies = [{**words, "_source": {"excludes": [self.config.suggest_field]}},
                  similar_by_meaning(raw["_vector"], paper_id, size, self.config)]
        with es_errors(self.alias, "mlt"):
            answers = self.access.es().msearch(index=self.alias, searches=[x for b in bodies for x in ({}, b)]
                                               ).body["responses"]
        lists = [a["hits"]["hits"] for a in answers if "error" not in a]  # meaning failing leaves the words' list
        pool = {h["_id"]: h for hits in lists for h in hits}
        weights = [1.0, self.config.meaning.similar_weight]
        order = fuse([([h["_id"] for h in hits], w) for hits, w in zip(lists, weights, strict=False)],
                     self.config.meaning.rank_constant)
        return [to_hit(pool[i], self.labels) for i in order[:size]]

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


def similar_by_meaning(vector: list[float], paper_id: str, size: int, config: WebSearchConfig) -> dict:
    """The papers nearest to a paper's own vector, itself left out: in any language (DECISIONS.md D-199)."""
    m = config.meaning
    return {"knn": {"field": m.field, "query_vector": vector, "k": size, "num_candidates": m.num_candidates,
                    "similarity": m.similar_min_similarity,
                    "filter": {"bool": {"must_not": {"ids": {"values": [paper_id]}}}}},
            "size": size, "_source": {"excludes": [config.suggest_field]}}


def more_like_this(index: str, paper_id: str, config: WebSearchConfig) -> dict:
    """Papers similar to one paper (config/index.json "similar")."""
    settings = config.similar
    return {"more_like_this": {
        "fields": settings.fields, "like": [{"_index": index, "_id": paper_id}],
        **settings.model_dump(include={"min_term_freq", "min_doc_freq", "max_query_terms", "minimum_should_match"}),
    }}
