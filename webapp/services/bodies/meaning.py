"""The bodies of search by meaning's round (plan/meaning.py): the words' ranks, the kNN search beside them,
and the papers the fusion moved onto the page without their fields or marks (D-219).

The kNN search's filters (the page's facets, field clauses and exclusions) go into the knn query's own `filter`,
which Elasticsearch applies while it searches the graph (pre-filtering: k papers come back if k match); a filter
elsewhere in the query would only drop papers after the k nearest were found. The page's words ride along at no
score (a named constant_score of boost 0), so each hit tells whether they match it too (DECISIONS.md D-198).
"""

from __future__ import annotations

from dataclasses import replace

from papersearch.index_definition import concepts_config
from webapp.services.bodies import clauses as cl
from webapp.services.bodies import render
from webapp.services.es_syntax import Query
from webapp.services.plan.meaning import MeaningRequest, Missing, Nearest, WordRanks
from webapp.services.search_settings import WebSearchConfig

BY_WORDS = "by_words"  # the name a kNN hit carries when the page's words match it too


def body(request: MeaningRequest, config: WebSearchConfig) -> Query:
    match request:
        case WordRanks():
            return _word_ranks(request, config)
        case Nearest():
            return _nearest(request, config)
        case Missing():
            return _missing(request, config)
    raise TypeError(f"not a request of search by meaning: {request!r}")


def _word_ranks(request: WordRanks, config: WebSearchConfig) -> Query:
    page = request.page
    deeper = replace(page, params=page.params.model_copy(update={"page": 1, "size": request.window}))
    out = render.body(deeper, config)
    assert isinstance(out, dict)
    for key in ("aggs", "highlight"):
        out.pop(key, None)
    out["track_total_hits"] = False
    # ids, and the languages when the fusion keeps one language's places
    out["_source"] = [concepts_config()["language_field"]] if request.fusion.kept_language else False
    return out


def _nearest(request: Nearest, config: WebSearchConfig) -> Query:
    page, m = request.page, config.meaning
    filters = config.faceted.clauses(config.faceted.filters(page.params))
    filters += [cl.field_clause(c, config) for c in page.fields]
    excluded = cl.exclusion_clauses(list(page.excluded), config)
    if excluded:
        filters.append({"bool": {"must_not": excluded}})
    knn: Query = {"field": m.field, "query_vector": list(request.vector), "k": request.fusion.k,
                  "num_candidates": m.num_candidates, "similarity": m.min_similarity}
    if filters:
        knn["filter"] = filters
    words = render.scoring_query(page, config, closeness=False)
    out: Query = {
        "query": {"bool": {"must": [{"knn": knn}], "should": [
            {"constant_score": {"filter": words, "boost": 0, "_name": BY_WORDS}}]}},
        "size": request.fusion.k,
        "track_total_hits": False,
        "_source": {"excludes": [config.suggest_field]},
    }
    return out


def _missing(request: Missing, config: WebSearchConfig) -> Query:
    out: Query = {"query": {"ids": {"values": list(request.ids)}}, "size": len(request.ids), "track_total_hits": False,
                  "_source": {"excludes": [config.suggest_field]}}
    if request.page.highlight:
        out["highlight"] = {**config.highlight.body(),
                            "highlight_query": render.highlight_query(request.page.highlight, config)}
    return out
