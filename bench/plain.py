"""What a simpler service would send for the same search: the anchors bench/query_cost.py prices ours against.

plain       one `multi_match` (best_fields, all words required, as ours requires them) over the main text fields,
            with the *same* facet aggregations, post_filter, sort and page as our request, a simple highlight of
            the same fields, and exact totals and facets. Quoted phrases are phrase matches, field clauses match
            their field, exclusions are a must_not: the syntax a plain service would also support, none of our
            ranking or expansion.
treated     (a) the plain request given our page's treatment (`Treatment`, read off our own bodies): the same
            cap on the total (track_total_hits) and, on a large index, the facets in a request of their own
            counted on the same random sample (the same probability and seed) — like with like (issue 56.1).
translated  (b) for a cross-language query: the treated request whose words are ORed with each recognised
            concept's glossary forms (papersearch/concepts/, both languages) as phrases over the same fields:
            what a translate-then-search service pays.
corrected   (c) for a misspelt query: the treated request on the corrected words (ours shows or offers them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from papersearch.concepts import ConceptMatcher
from webapp.domain import SearchParams
from webapp.services.bodies.render import SAMPLE_AGG
from webapp.services.es_syntax import Query, filtered
from webapp.services.query.parser import ParsedQuery, parse_query
from webapp.services.search_settings import WebSearchConfig

PLAIN_FIELDS = ["title", "abstract", "authors", "title_zh", "abstract_zh"]
FIELD_OF = {"title": ["title", "title_zh"], "abstract": ["abstract", "abstract_zh"], "author": ["authors"],
            "topic": ["topic_area.text", "topic_subarea.text", "topic_labels_zh"]}
HIGHLIGHT = {"pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html",
             "fields": {"title": {"number_of_fragments": 0}, "title_zh": {"number_of_fragments": 0},
                        "authors": {"number_of_fragments": 0},
                        "abstract": {"fragment_size": 220, "number_of_fragments": 2},
                        "abstract_zh": {"fragment_size": 120, "number_of_fragments": 2}}}


@dataclass(frozen=True)
class Treatment:
    """How our page counts: its total's cap, and whether its facets come apart, counted on a random sample."""

    track_total_hits: bool | int = True
    facets_apart: bool = False  # a large index: the hits, then the facets in a request of their own
    sampler: dict[str, Any] | None = None  # the facets request's random_sampler (probability, seed), if sampled

    @classmethod
    def of(cls, bodies: list[Query]) -> Treatment:
        """Read off the bodies our service sent for one search: the first page's cap (every page of a search is
        capped alike), and the facets request's sampler when there is one."""
        pages = [b for b in bodies if "_source" in b]  # a results page (render._page); counts and checks have none
        facets = [b for b in bodies if "aggs" in b and "_source" not in b and b.get("size") == 0
                  and "constant_score" in b.get("query", {})]
        sampled = [f["aggs"][SAMPLE_AGG]["random_sampler"] for f in facets if SAMPLE_AGG in f["aggs"]]
        return cls(track_total_hits=pages[0]["track_total_hits"] if pages else True, facets_apart=bool(facets),
                   sampler=sampled[-1] if sampled else None)


def _match(text: str, fields: list[str], phrase: bool) -> Query:
    query: Query = {"query": text, "fields": fields}
    query.update(type="phrase") if phrase else query.update(operator="and")
    return {"multi_match": query}


def concept_forms(terms: list[str], matcher: ConceptMatcher, max_forms: int) -> list[tuple[int, int, list[str]]]:
    """(first, last, forms) of each glossary concept recognised in the terms: up to max_forms forms per language
    of each of its concepts (the limit ours uses), both languages, as a translating service would search them."""
    out = []
    for m in matcher.recognise(terms):
        concepts = [matcher.concepts[i] for i in m.ids]
        forms = {f: None for c in concepts for f in (*c.en[:max_forms], *c.zh[:max_forms])}
        out.append((m.first, m.last, list(forms)))
    return out


def _words(terms: list[str], concepts: list[tuple[int, int, list[str]]]) -> list[Query]:
    """All words required; a recognised concept's words are one group: them as typed, or any of its forms."""
    covered = {i for first, last, _ in concepts for i in range(first, last + 1)}
    rest = [t for i, t in enumerate(terms) if i not in covered]
    must = [_match(" ".join(rest), PLAIN_FIELDS, phrase=False)] if rest else []
    for first, last, forms in concepts:
        typed = " ".join(terms[first:last + 1])
        must.append({"bool": {"should": [_match(typed, PLAIN_FIELDS, phrase=False),
                                         *[_match(f, PLAIN_FIELDS, phrase=True) for f in forms]],
                              "minimum_should_match": 1}})
    return must


def plain_query(parsed: ParsedQuery, concepts: list[tuple[int, int, list[str]]] = ()) -> Query:  # type: ignore[assignment]
    must: list[Query] = _words(parsed.terms, list(concepts)) if parsed.terms else []
    must += [_match(p, PLAIN_FIELDS, phrase=True) for p in parsed.phrases]
    must += [_match(c.text, FIELD_OF[c.field or ""], c.phrase) for c in parsed.field_clauses if not c.excluded]
    must_not = [_match(c.text, FIELD_OF.get(c.field or "", PLAIN_FIELDS), c.phrase)
                for c in parsed.clauses if c.excluded]
    if not must and not must_not:
        return {"match_all": {}}
    return {"bool": {"must": must or [{"match_all": {}}], "must_not": must_not}}


def plain_body(parsed: ParsedQuery, params: SearchParams, config: WebSearchConfig, query: Query | None = None) -> Query:
    """The plain request for one results page: our facets (config/index.json, the webapp's own facet
    functions), post_filter, sort and page, with exact totals."""
    filters = config.faceted.filters(params)
    too_deep = params.is_too_deep(config.max_result_window)
    body: Query = {
        "query": plain_query(parsed) if query is None else query,
        "aggs": config.faceted.aggregations(filters),
        "sort": config.sorts[params.sort],
        "track_total_hits": True,
        "from": 0 if too_deep else params.offset,
        "size": 0 if too_deep else params.size,
    }
    post = config.faceted.post_filter(filters)
    if post:
        body["post_filter"] = post
    if body["size"]:
        body["highlight"] = HIGHLIGHT
    return body


def treated_bodies(body: Query, treatment: Treatment) -> list[Query]:
    """A plain body given our page's treatment: the same total cap; on a large index the hits without facets (the
    filters in the query, as ours) and the facets apart, on the same sample."""
    if not treatment.facets_apart:
        return [{**body, "track_total_hits": treatment.track_total_hits}]
    hits = {k: v for k, v in body.items() if k not in ("aggs", "post_filter")}
    hits["track_total_hits"] = treatment.track_total_hits
    if "post_filter" in body:
        hits["query"] = filtered(body["query"], body["post_filter"]["bool"]["filter"])
    aggs = body["aggs"]
    if treatment.sampler:
        aggs = {SAMPLE_AGG: {"random_sampler": treatment.sampler, "aggs": aggs}}
    query = {"constant_score": {"filter": body["query"]}}
    facets = {"size": 0, "track_total_hits": False, "query": query, "aggs": aggs}
    return [hits, facets]


def anchors(q: str, params: SearchParams, config: WebSearchConfig, treatment: Treatment, matcher: ConceptMatcher,
            corrected: str | None = None) -> dict[str, list[Query]]:
    """The anchors of one search, by name: plain, treated (a), and translated (b, when the query names a concept)
    or corrected (c, when ours corrected it) where they apply."""
    parsed = parse_query(q)
    plain = plain_body(parsed, params, config)
    out = {"plain": [plain], "treated": treated_bodies(plain, treatment)}
    found = concept_forms(parsed.terms, matcher, config.cross_lingual.max_forms) if parsed.terms else []
    if found:
        translated = plain_body(parsed, params, config, plain_query(parsed, found))
        out["translated"] = treated_bodies(translated, treatment)
    if corrected:
        out["corrected"] = treated_bodies(plain_body(parse_query(corrected), params, config), treatment)
    return out
