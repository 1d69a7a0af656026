"""What a simpler service would send for the same search: one plain BM25 request (bench/query_cost.py).

One `multi_match` (best_fields, all words required, as ours requires them) over the main text fields,
with the *same* facet aggregations, post_filter, sort and page as our request, and a simple highlight of
the same fields. Quoted phrases are phrase matches, field clauses match their field, exclusions are a
must_not: the syntax a plain service would also support, none of our ranking or expansion.
"""

from __future__ import annotations

from webapp.domain import SearchParams
from webapp.services.bodies import facets as fq
from webapp.services.es_syntax import Query
from webapp.services.query.parser import ParsedQuery
from webapp.services.search_settings import WebSearchConfig

PLAIN_FIELDS = ["title", "abstract", "authors", "title_zh", "abstract_zh"]
FIELD_OF = {"title": ["title", "title_zh"], "abstract": ["abstract", "abstract_zh"], "author": ["authors"],
            "topic": ["topic_area.text", "topic_subarea.text", "topic_labels_zh"]}
HIGHLIGHT = {"pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html",
             "fields": {"title": {"number_of_fragments": 0}, "title_zh": {"number_of_fragments": 0},
                        "authors": {"number_of_fragments": 0},
                        "abstract": {"fragment_size": 220, "number_of_fragments": 2},
                        "abstract_zh": {"fragment_size": 120, "number_of_fragments": 2}}}


def _match(text: str, fields: list[str], phrase: bool) -> Query:
    query: Query = {"query": text, "fields": fields}
    query.update(type="phrase") if phrase else query.update(operator="and")
    return {"multi_match": query}


def plain_query(parsed: ParsedQuery) -> Query:
    must: list[Query] = []
    if parsed.terms:
        must.append(_match(" ".join(parsed.terms), PLAIN_FIELDS, phrase=False))
    must += [_match(p, PLAIN_FIELDS, phrase=True) for p in parsed.phrases]
    must += [_match(c.text, FIELD_OF[c.field or ""], c.phrase) for c in parsed.field_clauses if not c.excluded]
    must_not = [_match(c.text, FIELD_OF.get(c.field or "", PLAIN_FIELDS), c.phrase)
                for c in parsed.clauses if c.excluded]
    if not must and not must_not:
        return {"match_all": {}}
    return {"bool": {"must": must or [{"match_all": {}}], "must_not": must_not}}


def plain_body(parsed: ParsedQuery, params: SearchParams, config: WebSearchConfig) -> Query:
    """The plain request for one results page: our facets (config/index.json, the webapp's own facet
    functions), post_filter, sort and page, with exact totals."""
    filters = fq.facet_filters(params, config)
    too_deep = params.is_too_deep(config.max_result_window)
    body: Query = {
        "query": plain_query(parsed),
        "aggs": fq.aggregations(config, filters),
        "sort": config.sorts[params.sort],
        "track_total_hits": True,
        "from": 0 if too_deep else params.offset,
        "size": 0 if too_deep else params.size,
    }
    post = fq.post_filter(filters)
    if post:
        body["post_filter"] = post
    if body["size"]:
        body["highlight"] = HIGHLIGHT
    return body
