"""The one renderer: each request of a plan (webapp/services/plan/ladder.py) → the Elasticsearch body it is sent as.

The clauses are clauses.py's (a word across fields, its typo fallback, the concepts, phrases, closeness,
field clauses, exclusions), the facets' filters and aggregations webapp/services/facets/faceted.py's; this module
puts them together as the plan says and writes everything around them (tiers, sort, paging, highlighting, counts,
spelling). Every number comes from the plan or config/index.json.
"""

from __future__ import annotations

from papersearch.introduces import MAX_NAME_WORDS
from webapp.domain import SearchParams
from webapp.services.bodies import clauses as cl
from webapp.services.bodies import text_query as tc
from webapp.services.es_syntax import Query, bool_query, filtered
from webapp.services.plan.requests import Count, Facets, Page, Request, Spelling
from webapp.services.plan.words import Highlight
from webapp.services.search_settings import WebSearchConfig

# The relaxed page's tiers, named so each hit tells which it is in (hits.py reads them back).
ALL_WORDS_QUERY = "all_words"  # every word as typed
ALL_WORDS_TYPOS_QUERY = "all_words_typos"  # every word, typo-tolerant where unknown
SAMPLE_AGG = "sample"  # a large index's facets, counted on a random sample


def body(request: Request, config: WebSearchConfig) -> Query | list[Query]:
    """The body of one request of a plan (a Spelling is several: the suggestions, then a count per word)."""
    match request:
        case Page(tier="check"):
            return _check(request, config)
        case Page(hits_only=True):
            return _hits_only(request, config)
        case Page():
            return _page(request, config)
        case Count():
            return _count(request, config)
        case Spelling():
            return [_suggestions(list(request.words), config), *[_known_word(w, config) for w in request.words],
                    *[_zh_count(w, config) for run, names in request.zh for w in (run, *names)]]
        case Facets():
            return _facets(request, config)
    raise TypeError(f"not a request of a plan: {request!r}")


# --- a results page ---------------------------------------------------------------------------------------


def _page(page: Page, config: WebSearchConfig) -> Query:
    params = page.params
    filters = config.faceted.filters(params)
    rescored = _rescore_window(page, config)
    query = scoring_query(page, config, closeness=not rescored)
    if page.all_words:
        query = _all_words_first(query, page, config)
    out: Query = {
        "query": query,
        "aggs": config.faceted.aggregations(filters),
        "sort": _sort(page, config),
        "track_total_hits": True,
        "_source": {"excludes": [config.suggest_field]},
        **window(page.params, config),
    }
    if out["size"] and page.highlight:
        out["highlight"] = {**config.highlight.body(), "highlight_query": highlight_query(page.highlight, config)}
    out["aggs"] |= config.faceted.known_aggregation(params)
    post = config.faceted.post_filter(filters)
    if post:
        out["post_filter"] = post
    if rescored:
        # Closeness only reorders: rewarded on the first results alone, by score (Elasticsearch takes no
        # sort beside a rescore). See DECISIONS.md D-098.
        settings = config.rescore
        del out["sort"]
        out["rescore"] = {"window_size": rescored, "query": {
            "rescore_query": _closeness(page, config),
            "query_weight": settings.query_weight, "rescore_query_weight": settings.rescore_query_weight}}
    return out


def _hits_only(page: Page, config: WebSearchConfig) -> Query:
    """A results page without its facets (an index above large_index.above papers, whose facets come in a
    request of their own): the filters in the query, since no aggregation needs them left out, and the total
    counted as far as pages go (max_result_window), so Elasticsearch can skip what cannot make the page."""
    out = _page(page, config)
    out.pop("aggs", None)
    if out.pop("post_filter", None):
        out["query"] = filtered(out["query"], config.faceted.clauses(config.faceted.filters(page.params)))
    out["track_total_hits"] = config.max_result_window
    return out


def _all_words_first(query: Query, page: Page, config: WebSearchConfig) -> Query:
    """The relaxed query with a constant bonus for papers that have every word: they come first, in their own
    order, then (all_words_typos) the papers with every word once typos are forgiven, and the partial matches
    follow in theirs (DECISIONS.md D-044)."""
    settings = config.relaxation
    tiers = [(page.all_words, "all_words_boost", ALL_WORDS_QUERY),
             (page.all_words_typos, "all_words_typos_boost", ALL_WORDS_TYPOS_QUERY)]
    return bool_query(must=[query], should=[
        {"constant_score": {"filter": tc.text_query(text, config), "boost": getattr(settings, boost), "_name": name}}
        for text, boost, name in tiers if text is not None])


def _sort(page: Page, config: WebSearchConfig) -> list[Query]:
    """The configured sort; without words every paper scores the same, so a score sort is its tie-breaks
    alone, which Elasticsearch can skip through (numeric sorts) instead of visiting every paper."""
    sort = config.sorts[page.params.sort]
    if not page.cacheable:
        return sort
    return [s for s in sort if s != {"_score": "desc"}] or sort


def window(params: SearchParams, config: WebSearchConfig) -> Query:
    """The page's slice of the results; none beyond the result window (totals and facets only)."""
    if params.is_too_deep(config.max_result_window):
        return {"from": 0, "size": 0}
    return {"from": params.offset, "size": params.size}


def _rescore_window(page: Page, config: WebSearchConfig) -> int:
    """How many of the first results closeness reorders, when it is rewarded apart (0: in the query itself)."""
    window = config.rescore.window
    by_score = config.sorts[page.params.sort][:1] == [{"_score": "desc"}]
    has_closeness = _closeness(page, config) is not None
    pageful = page.params.size and not page.params.is_too_deep(config.max_result_window)
    return window if window and by_score and has_closeness and pageful else 0


def _closeness(page: Page, config: WebSearchConfig) -> Query | None:
    """What closeness rewards: the words typed, and the concepts' names in the other language."""
    return cl.proximity_boost(list(page.proximity), config, page.close_names)


def scoring_query(page: Page, config: WebSearchConfig, fuzzy: bool = True, closeness: bool = True) -> Query:
    """The words, phrases and field clauses (required), closeness (rewarded), exclusions; no facet filters
    (they go into post_filter). fuzzy=False: without the typo fallbacks; closeness=False: without the
    closeness reward (a rescore adds it)."""
    must: list[Query] = []
    words = tc.text_query(page.text, config, fuzzy) if page.text else None
    if words and page.all_words:
        # The relaxed page: papers with every word (as the strict search matches them, stemmed) are in it whatever
        # the surface forms of their words, scored as there when the relaxed words do not match; the others need
        # most words as written (DECISIONS.md D-203).
        tiers = [tc.text_query(t, config, fuzzy) for t in (page.all_words, page.all_words_typos) if t is not None]
        words = {"dis_max": {"queries": [words, *(t for t in tiers if t)]}}
    if words:
        must.append(words)
    must += cl.phrase_clauses(list(page.phrases), config)
    must += [cl.field_clause(c, config) for c in page.fields]
    boost = _closeness(page, config) if closeness else None
    name = _typed_name(page)
    should = [q for q in (boost, cl.introduced_lift(name, config) if name else None) if q] or None
    must_not = cl.exclusion_clauses(list(page.excluded), config) or None
    if not must:
        must = [{"match_all": {}}]
    if len(must) == 1 and not should and not must_not:
        return must[0]
    return bool_query(must=must, should=should, must_not=must_not)


def _typed_name(page: Page) -> str | None:
    """What was typed, when it may be a name a paper introduced: the words (or one phrase) and nothing else."""
    if page.fields or page.excluded or (page.text and page.phrases):
        return None
    if page.text:  # not with OR or other spellings: a name is one way of writing
        words = page.text.words
        if any(w.alternatives for w in words) or len(words) > MAX_NAME_WORDS:
            return None
        return " ".join(w.text for w in words)
    return page.phrases[0] if len(page.phrases) == 1 else None


# --- highlighting ----------------------------------------------------------------------------------------


def highlight_query(hl: Highlight, config: WebSearchConfig) -> Query:
    """What the page marks: any of the words, the phrases and field clauses, the concepts' other forms and the
    glosses, each on the highlighted fields only. Not the search itself: its typo fallbacks would mark look-alikes
    (DECISIONS.md D-015), and its cross-field, concept and closeness clauses
    cost several times the whole search to highlight while marking the same words (DECISIONS.md D-101)."""
    fields = highlighted_fields(config)
    authors = set(config.field_aliases.author)
    should: list[Query] = []
    if hl.words:
        should.append({"multi_match": {"query": " ".join(hl.words), "fields": fields}})
    should += [cl.phrase_clause(p, fields) for p in hl.phrases]
    should += [cl.author_highlight(c, config) if c.field == "author" else cl.field_clause(c, config)
               for c in hl.fields]
    for concept in hl.forms:
        for language, forms in (("en", concept.en), ("zh", concept.zh)):
            on = [f for f in fields if cl.is_chinese_field(f) == (language == "zh") and f not in authors]
            should += [cl.phrase_clause(form, on) for form in forms]
    english = [f for f in fields if not cl.is_chinese_field(f) and f not in authors]
    should += [cl.phrase_clause(gloss, english) for gloss in hl.glosses]
    return bool_query(should=should)


def highlighted_fields(config: WebSearchConfig) -> list[str]:
    """The fields the page shows marked, with the subfields whose matches they take (matched_fields)."""
    out: dict[str, None] = {}
    for name, spec in config.highlight.fields.items():
        out |= dict.fromkeys([name, *spec.matched_fields])
    return list(out)


# --- the other requests ------------------------------------------------------------------------------------


def _check(page: Page, config: WebSearchConfig) -> Query:
    """A search that counts up to one paper, filters included, so it can go into one _msearch."""
    facets = config.faceted
    query = filtered(scoring_query(page, config), facets.clauses(facets.filters(page.params)))
    return {"query": query, "size": 0, "track_total_hits": 1}


def _count(count: Count, config: WebSearchConfig) -> Query:
    """The papers the words as typed find in their own language, under the page's filters, counted up to the
    ladder's threshold: concepts also let papers in the other language in, and a long English title with a
    typo must not count as found because one of its words is a concept Chinese papers have."""
    as_typed = (tc.text_query(count.text, config) if count.text else None) or {"match_all": {}}
    filters = config.faceted.clauses(config.faceted.filters(count.params))
    return {"size": 0, "track_total_hits": count.limit, "query": bool_query(filter=[as_typed, *filters])}


def _suggestions(words: list[str], config: WebSearchConfig) -> Query:
    """Term suggesters (one per spelling field) proposing real words near each word, commoner than it in that
    field ("popular": a word a paper or two have may still be a typo; plan.corrections decides)."""
    settings = config.spelling
    if not words:  # only Chinese runs are checked: nothing to suggest
        return {"size": 0, "track_total_hits": False, "query": {"match_none": {}}}
    suggest = {f"spell_{i}": {"term": {"field": field, "suggest_mode": "popular",
                                       "min_word_length": settings.min_length, "max_edits": settings.max_edits,
                                       "prefix_length": settings.prefix_length, "size": settings.size}}
               for i, field in enumerate(settings.fields)}
    return {"size": 0, "track_total_hits": False, "query": {"match_none": {}},
            "suggest": {"text": " ".join(words), **suggest}}


def _known_word(word: str, config: WebSearchConfig) -> Query:
    """How many papers contain the word exactly, counted up to spelling.rare_below (none: misspelt, worth typo
    tolerance; a few: perhaps misspelt): a count that stops there, over the unstemmed fields the suggesters
    propose from (a stemmed field counts every paper with "reinforcement" as one with "reinforcment"). Term
    suggesters cannot tell (they see one field each), and the hits cannot either (fuzzy matches)."""
    settings = config.spelling
    return {"size": 0, "track_total_hits": settings.rare_below,
            "query": {"multi_match": {"query": word, "fields": list(settings.fields), "operator": "and"}}}


def _zh_count(run: str, config: WebSearchConfig) -> Query:
    """How many papers have a Chinese run as written (a phrase on the Chinese text fields), for the Chinese
    spelling check (issue 57.4, DECISIONS.md D-202)."""
    return {"size": 0, "track_total_hits": True, "query": cl.phrase_clause(run, tc.form_fields(config, "zh"))}


def _facets(facets: Facets, config: WebSearchConfig) -> Query:
    """The facets of a results page on their own: what the search matches (no scores, no closeness or tiers:
    they only order), each facet's aggregation; counted on a random sample of the matches when probability
    < 1 (Elasticsearch's random_sampler, whose counts are scaled estimates; the seed fixed, so a page does not
    flicker)."""
    aggs = config.faceted.aggregations(config.faceted.filters(facets.page.params))
    if facets.probability < 1:
        sampler = {"probability": facets.probability, "seed": config.large_index.seed}
        aggs = {SAMPLE_AGG: {"random_sampler": sampler, "aggs": aggs}}
    aggs |= config.faceted.known_aggregation(facets.page.params)  # the whole index, never sampled: top level
    query = scoring_query(facets.page, config, closeness=False)
    return {"size": 0, "track_total_hits": False, "query": {"constant_score": {"filter": query}}, "aggs": aggs}
