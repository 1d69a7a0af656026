"""The requests of author and topic pages (webapp/services/pages/profiles.py sends them), as render.py writes a
search's: each a small plan (plain data) and the body it is sent as. The words of an author page's query are
the search's own first round (plan.Search.as_typed): scored, and highlighted, exactly as on the results page.

- an author page: the papers of one person's name keys (papersearch/author_keys.py, author_names.py) under the
  page's filters, newest first or by relevance, with the facets over them (disjunctive, as on the results
  page); and beside it in one _msearch the name's profile: its spellings and co-authors, and its newest
  papers' authors and topics (whether the name covers several people: author_groups.py);
- a topic page: its newest papers, with the facets (years, venues, subareas), the most frequent authors and
  the concepts most particular to it; on a large index the facets come in a second request, sampled as a
  search's are when the topic has more papers than can be paged through (plan.Live.sample_probability);
- the topics that have papers, with the day the newest was added (the sitemap).
"""

from __future__ import annotations

from dataclasses import dataclass

from papersearch.author_keys import FIELD as AUTHOR_KEYS
from papersearch.taxonomy import Topic
from webapp.domain import SearchParams
from webapp.services.bodies import render
from webapp.services.es_syntax import Query, bool_query, filtered
from webapp.services.facets.topics import UNTAGGED, untagged
from webapp.services.plan.requests import Page
from webapp.services.search_settings import WebSearchConfig

NAMES = "authors.as_written"  # the names exactly as the papers write them
CONCEPTS = "concepts"
ADDED = "added"
COVERAGE = "coverage"  # a topic page's count of the index's papers and of those without a topic


@dataclass(frozen=True)
class AuthorPapers:
    """An author page's papers and facets: the name's papers under the page's filters in the page's order
    (params.sort), `words` the query's first round when one is given (its scoring and highlight)."""

    keys: tuple[str, ...]  # the person's indexed name keys (author_names.py)
    params: SearchParams
    words: Page | None = None


@dataclass(frozen=True)
class AuthorProfile:
    """Everything the name's papers say about it, whatever the page's query and filters."""

    keys: tuple[str, ...]


@dataclass(frozen=True)
class TopicPapers:
    """A topic page: its newest papers, with (facets) or without its aggregations (a large index sends them
    apart, as TopicFacets)."""

    topic: Topic
    facets: bool = True


@dataclass(frozen=True)
class TopicFacets:
    topic: Topic
    probability: float  # < 1: counted on a random sample


@dataclass(frozen=True)
class TopicsWithPapers:
    """The topics papers are filed under, each with the day its newest paper was added."""


Request = AuthorPapers | AuthorProfile | TopicPapers | TopicFacets | TopicsWithPapers


def worth_caching(request: Request, config: WebSearchConfig) -> bool:
    """Whether a page's request asks for the shard request cache: all but an author's papers beyond
    result_cache.within (DECISIONS.md D-228)."""
    if isinstance(request, AuthorPapers):
        return config.result_cache.covers(request.params.offset, request.params.size)
    return True


def body(request: Request, config: WebSearchConfig) -> Query:
    match request:
        case AuthorPapers():
            return _author_papers(request, config)
        case AuthorProfile():
            return _author_profile(request, config)
        case TopicPapers():
            return _topic_papers(request, config)
        case TopicFacets():
            return _topic_facets(request, config)
        case TopicsWithPapers():
            return _topics(config)
    raise TypeError(f"not a profile request: {request!r}")


def _author(keys: tuple[str, ...]) -> Query:
    return {"terms": {AUTHOR_KEYS: list(keys)}}


def _source(config: WebSearchConfig) -> Query:
    return {"excludes": [config.suggest_field, AUTHOR_KEYS]}


def _author_papers(request: AuthorPapers, config: WebSearchConfig) -> Query:
    params = request.params
    filters = config.faceted.filters(params)
    words = render.scoring_query(request.words, config) if request.words else {"match_all": {}}
    out: Query = {
        "query": filtered(words, [_author(request.keys)]),
        "aggs": config.faceted.aggregations(filters) | config.faceted.known_aggregation(params),
        "sort": config.sorts[params.sort],
        "track_total_hits": True,
        **render.window(params, config),
        "_source": _source(config),
    }
    if request.words and request.words.highlight:
        out["highlight"] = {**config.highlight.body(),
                            "highlight_query": render.highlight_query(request.words.highlight, config)}
    post = config.faceted.post_filter(filters)
    if post:
        out["post_filter"] = post
    return out


def _author_profile(request: AuthorProfile, config: WebSearchConfig) -> Query:
    settings = config.profiles
    area_field = config.topic.levels[0].field
    return {
        "query": bool_query(filter=[_author(request.keys)]),
        "size": settings.groups.papers,
        "sort": config.sorts[settings.sort],
        "track_total_hits": True,
        "_source": ["authors", area_field],
        "aggs": {"names": {"terms": {"field": NAMES, "size": settings.coauthors + settings.spellings}}},
    }


def topic_filter(topic: Topic, config: WebSearchConfig) -> Query:
    """The topic's papers: an area's, or one subarea's."""
    areas, paths = ([], [topic.path]) if topic.subarea else ([topic.area], [])
    return config.topic.filter_of(areas, paths) or {"match_none": {}}


def _topic_aggregations(config: WebSearchConfig, sampled: bool = False) -> Query:
    """The facets, the names on the most papers (twice as many as shown: spellings of one name merge) and the
    concepts particular to the topic (on at least concept_papers papers; a sample allows no more than 1)."""
    settings = config.profiles.topic
    concepts = {"field": CONCEPTS, "size": settings.concepts, "min_doc_count": 1 if sampled else
                settings.concept_papers}
    return {**config.faceted.aggregations({}), "names": {"terms": {"field": NAMES, "size": 2 * settings.authors}},
            CONCEPTS: {"significant_terms": concepts}}


def _topic_papers(request: TopicPapers, config: WebSearchConfig) -> Query:
    out: Query = {
        "query": bool_query(filter=[topic_filter(request.topic, config)]),
        "size": config.profiles.topic.newest,
        "sort": config.sorts[config.profiles.sort],
        "track_total_hits": True,  # one term filter: Elasticsearch counts it from the index's statistics
        "_source": _source(config),
    }
    # what topics cover: the index's papers and those without any topic (issue 57.12)
    out["aggs"] = {**(_topic_aggregations(config) if request.facets else {}),
                   COVERAGE: {"global": {}, "aggs": {UNTAGGED: untagged(config.topic.levels[0].field)}}}
    return out


def _topic_facets(request: TopicFacets, config: WebSearchConfig) -> Query:
    aggs = _topic_aggregations(config, sampled=request.probability < 1)
    if request.probability < 1:
        sampler = {"probability": request.probability, "seed": config.large_index.seed}
        aggs = {render.SAMPLE_AGG: {"random_sampler": sampler, "aggs": aggs}}
    return {"size": 0, "track_total_hits": False, "query": bool_query(filter=[topic_filter(request.topic, config)]),
            "aggs": aggs}


def _topics(config: WebSearchConfig) -> Query:
    area, sub = config.topic.levels
    newest = {ADDED: {"max": {"field": ADDED}}}
    return {"size": 0, "track_total_hits": False, "aggs": {"areas": {
        "terms": {"field": area.field, "size": area.size},
        "aggs": {**newest, "children": {"terms": {"field": sub.field, "size": sub.size}, "aggs": newest}}}}}
