"""The one renderer: a plan (webapp/services/plan.py) → the Elasticsearch request body.

The clauses themselves are word_queries.py's small builders (a word across fields, its typo fallback,
phrases, closeness, field clauses, exclusions), facets are facet_queries.py's, sort/paging/highlight/
spelling request_parts.py's; this module only puts them together as the plan says. User text only ever
reaches Elasticsearch inside match / match_phrase / multi_match / intervals queries, never query_string
(DECISIONS.md "User text never becomes query syntax").
"""

from __future__ import annotations

from typing import Any

from papersearch.index_definition import concepts_config
from webapp.services import facet_queries as fq
from webapp.services import relaxation as rx
from webapp.services import request_parts as rp
from webapp.services import word_queries as wq
from webapp.services.plan import Concept, Highlight, Plan, Text, Word

Query = dict[str, Any]


def body(plan: Plan, config: dict) -> Query:
    """The request body of a plan: a results page, or (tier "check") whether anything is found."""
    if plan.tier == "check":
        return _check_body(plan, config)
    params = plan.params
    filters = fq.facet_filters(params, config)
    window = _rescore_window(plan, config)
    query = scoring_query(plan, config, closeness=not window)
    if plan.all_words:
        query = rx.ranked_all_words_first(
            query, text_query(plan.all_words, config), config,
            text_query(plan.all_words_typos, config) if plan.all_words_typos else None)
    out: Query = {
        "query": query,
        "aggs": fq.aggregations(config, filters),
        "sort": _sort(plan, config),
        "track_total_hits": True,
        "_source": {"excludes": [config["suggest_field"]]},
        **rp.pagination(params, config),
    }
    if out["size"] and plan.highlight:
        out["highlight"] = rp.highlight(highlight_query(plan, config), config)
    post = fq.post_filter(filters)
    if post:
        out["post_filter"] = post
    if window:
        # Closeness only reorders: rewarded on the first results alone, by score (Elasticsearch takes no
        # sort beside a rescore). See DECISIONS.md "Search cost: closeness rescores the first results".
        del out["sort"]
        out["rescore"] = {"window_size": window, "query": {
            "rescore_query": wq.proximity_boost(list(plan.proximity), config),
            "query_weight": 1, "rescore_query_weight": 1}}
    return out


def hits_body(plan: Plan, config: dict) -> Query:
    """A results page without its facets (an index above large_index.above papers, whose facets come in a
    request of their own: facets_body): the filters in the query, since no aggregation needs them left out,
    and the total counted as far as pages go (max_result_window), so Elasticsearch can skip what cannot make
    the page."""
    out = body(plan, config)
    out.pop("aggs", None)
    post = out.pop("post_filter", None)
    if post:
        out["query"] = {"bool": {"must": [out["query"]], "filter": post["bool"]["filter"]}}
    out["track_total_hits"] = config["max_result_window"]
    return out


SAMPLE_AGG = "sample"
SAMPLE_SEED = 20261201  # the same sample for the same search, page after page


def facets_body(plan: Plan, config: dict, probability: float = 1.0) -> Query:
    """The facets of a results page on their own: what the search matches (no scores, no closeness or tiers:
    they only order), each facet's aggregation; counted on a random sample of the matches when probability
    < 1 (Elasticsearch's random_sampler, whose counts are scaled estimates)."""
    aggs = fq.aggregations(config, fq.facet_filters(plan.params, config))
    if probability < 1:
        aggs = {SAMPLE_AGG: {"random_sampler": {"probability": probability, "seed": SAMPLE_SEED}, "aggs": aggs}}
    query = scoring_query(plan, config, closeness=False)
    return {"size": 0, "track_total_hits": False, "query": {"constant_score": {"filter": query}}, "aggs": aggs}


def _sort(plan: Plan, config: dict) -> list[Query]:
    """The configured sort; without words every paper scores the same, so a score sort is its tie-breaks
    alone, which Elasticsearch can skip through (numeric sorts) instead of visiting every paper."""
    sort = rp.sort_clause(plan.params.sort, config)
    if not plan.cacheable:
        return sort
    return [s for s in sort if s != {"_score": "desc"}] or sort


def _rescore_window(plan: Plan, config: dict) -> int:
    """How many of the first results closeness reorders, when it is rewarded apart (0: in the query itself)."""
    window = config.get("rescore_window", 0)
    by_score = config["sorts"][plan.params.sort][:1] == [{"_score": "desc"}]
    has_closeness = bool(plan.proximity) and wq.proximity_boost(list(plan.proximity), config) is not None
    pageful = plan.params.size and not plan.params.is_too_deep(config["max_result_window"])
    return window if window and by_score and has_closeness and pageful else 0


def count_as_typed(plan: Plan, config: dict) -> Query:
    """The count beside the first request when its words may also be matched by concepts alone."""
    if not plan.count_as_typed:
        raise ValueError("this plan does not count the words as typed apart")
    as_typed = text_query(plan.count_as_typed, config) or {"match_all": {}}
    return rx.as_typed_count(as_typed, list(fq.facet_filters(plan.params, config).values()), config)


def spelling_bodies(words: list[str], config: dict) -> list[Query]:
    """The spelling suggestions for the words, then one "does any paper contain it" count per word."""
    return [rp.spelling_request(words), *[rp.known_word_check(w, config) for w in words]]


def _check_body(plan: Plan, config: dict) -> Query:
    """A search that counts up to one paper, filters included, so it can go into one _msearch."""
    query = scoring_query(plan, config)
    post = fq.post_filter(fq.facet_filters(plan.params, config))
    if post:
        query = {"bool": {"must": [query], "filter": post["bool"]["filter"]}}
    return {"query": query, "size": 0, "track_total_hits": 1}


def scoring_query(plan: Plan, config: dict, fuzzy: bool = True, closeness: bool = True) -> Query:
    """The words, phrases and field clauses (required), closeness (rewarded), exclusions; no facet filters
    (they go into post_filter). fuzzy=False: without the typo fallbacks; closeness=False: without the
    closeness reward (a rescore adds it)."""
    must: list[Query] = []
    words = text_query(plan.text, config, fuzzy) if plan.text else None
    if words:
        must.append(words)
    must += wq.phrase_clauses(list(plan.phrases), config)
    must += [wq.field_clause(c, config) for c in plan.fields]
    boost = wq.proximity_boost(list(plan.proximity), config) if closeness and plan.proximity else None
    should = [boost] if boost else []
    must_not = wq.exclusion_clauses(list(plan.excluded), config)
    if not must:
        must = [{"match_all": {}}]
    if len(must) == 1 and not should and not must_not:
        return must[0]
    query: Query = {"must": must}
    if should:
        query["should"] = should
    if must_not:
        query["must_not"] = must_not
    return {"bool": query}


# --- the words ----------------------------------------------------------------------------------------


def text_query(text: Text, config: dict, fuzzy: bool = True) -> Query | None:
    """Each word one clause (named word:<i> when relaxed), `required` of them; with other_language, papers
    in that language may match the concept groups instead."""
    if not text.words:
        return None
    clauses = [_word_query(w, text, config, fuzzy) for w in text.words]
    if text.relaxed:
        clauses = [rx.named(c, rx.word_name(w.index)) for c, w in zip(clauses, text.words, strict=True)]
    as_typed = clauses[0] if len(clauses) == 1 else {"bool": {"should": clauses, "minimum_should_match": text.required}}
    if not text.other_language:
        return as_typed
    groups = [concept_query(c, _all_of([_typed(w, text, config, fuzzy) for w in text.words[c.first:c.last + 1]]),
                            config) for c in text.groups]
    groups += [_inside_query(w, config) for w in text.words if w.inside]
    others = [w for w in text.words if not (w.concept or w.inside)]
    in_other_language: Query = {"bool": {
        "must": groups,
        "should": [wq.term_clause(w.text, config, fuzzy=False) for w in others],
        "filter": [{"term": {concepts_config()["language_field"]: text.other_language}}],
    }}
    return {"bool": {"should": [as_typed, in_other_language], "minimum_should_match": 1}}


def _typed(word: Word, text: Text, config: dict, fuzzy: bool) -> Query:
    return wq.term_clause(word.text, config, fuzzy and word.fuzzy, text.relaxed)


def _word_query(word: Word, text: Text, config: dict, fuzzy: bool) -> Query:
    typed = _typed(word, text, config, fuzzy)
    if word.concept:
        return concept_query(word.concept, typed, config, word.share)
    if word.inside:
        return {"bool": {"should": [typed, _inside_query(word, config)], "minimum_should_match": 1}}
    return typed


def _inside_query(word: Word, config: dict) -> Query:
    """A long Chinese term's concepts: all of them, each as typed or as the concept."""
    return _all_of([concept_query(c, wq.term_clause(c.typed, config, fuzzy=False), config) for c in word.inside])


def _all_of(clauses: list[Query]) -> Query:
    return clauses[0] if len(clauses) == 1 else {"bool": {"must": clauses}}


# --- concepts (cross-lingual; see DECISIONS.md "Cross-lingual search") --------------------------------


def form_fields(config: dict, language: str) -> dict[str, float]:
    """Where a concept's other forms are searched: the paper's own text fields of one script. Not the
    authors (a concept is not a name), not the topic labels (the taxonomy is bilingual already: the words
    as typed reach them). Forms on titles alone would be cheaper, but lose the papers whose abstract names a
    concept only inside a longer one, untagged (DECISIONS.md "Search cost: concept forms on every text field,
    the tag scored by rarity")."""
    skipped = set(config["field_aliases"]["author"]) | set(config["field_aliases"]["topic"])
    return {name: boost for name, boost in config["query_fields"].items()
            if name not in skipped and wq.is_chinese_field(name) == (language == "zh")}


def form_phrases(concept: Concept, config: dict) -> list[Query]:
    """Each form of the concept, in both languages, as a phrase on its language's fields."""
    return [wq.phrase_clause(form, form_fields(config, language))
            for language, forms in (("en", concept.en), ("zh", concept.zh)) for form in forms]


def concept_query(concept: Concept, typed: Query, config: dict, share: float = 1.0) -> Query:
    """The words as typed, or the concept: any of its other forms as a phrase, or its tag. The best
    alternative scores (dis_max), so a concept with many forms does not add up; `share`: the part of the
    concept's weight this clause carries when the concept's words are several clauses."""
    settings = config["cross_lingual"]
    others = form_phrases(concept, config)
    others.append(concept_tag(concept, settings))
    alternative: Query = {"dis_max": {"queries": others, "tie_breaker": settings["tie_breaker"]}}
    if share != 1:
        alternative["dis_max"]["boost"] = round(share, 4)
    return {"dis_max": {"queries": [typed, alternative]}}


def concept_tag(concept: Concept, settings: dict) -> Query:
    """The papers tagged with the concept, scored by how rare it is: a term query on the keyword tag field is
    BM25 without term frequency or length, i.e. idf × concept_boost (DECISIONS.md "Search cost: concept forms
    on every text field, the tag scored by rarity")."""
    field, boost = concepts_config()["field"], settings["concept_boost"]
    tags = [{"term": {field: {"value": i, "boost": boost}}} for i in concept.ids]
    return tags[0] if len(tags) == 1 else {"dis_max": {"queries": tags}}


# --- highlighting -------------------------------------------------------------------------------------


def highlight_query(plan: Plan, config: dict) -> Query:
    """What the page marks: any of the words, the phrases and field clauses, and the concepts' other forms,
    each on the highlighted fields only. Not the search itself: its typo fallbacks would mark look-alikes
    (DECISIONS.md "Highlight without the typo fallback"), and its cross-field, concept and closeness clauses
    cost several times the whole search to highlight while marking the same words (DECISIONS.md "Search
    cost: a lean highlight query")."""
    hl = plan.highlight or Highlight(())
    fields = highlighted_fields(config)
    should: list[Query] = []
    if hl.words:
        should.append({"multi_match": {"query": " ".join(hl.words), "fields": fields}})
    should += [wq.phrase_clause(p, fields) for p in hl.phrases]
    should += [wq.field_clause(c, config) for c in hl.fields]
    for concept in hl.forms:
        for language, forms in (("en", concept.en), ("zh", concept.zh)):
            on = [f for f in fields if wq.is_chinese_field(f) == (language == "zh") and f not in _author_fields(config)]
            should += [wq.phrase_clause(form, on) for form in forms]
    return {"bool": {"should": should}}


def highlighted_fields(config: dict) -> list[str]:
    """The fields the page shows marked, with the subfields whose matches they take (matched_fields)."""
    out: dict[str, None] = {}
    for name, spec in config["highlight"]["fields"].items():
        out |= dict.fromkeys([name, *spec.get("matched_fields", [])])
    return list(out)


def _author_fields(config: dict) -> set[str]:
    return set(config["field_aliases"]["author"])
