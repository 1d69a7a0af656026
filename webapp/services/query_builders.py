"""The scoring query from the parsed search box, and the whole search request built around it.

One small pure function per concern, all driven by config/index.json; the words' clauses are in
word_queries.py, facets in facet_queries.py, sort/paging/highlight/suggestions in request_parts.py.
User text only ever reaches Elasticsearch inside match / match_phrase / multi_match / intervals queries,
never query_string (see DECISIONS.md "User text never becomes query syntax").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from papersearch.index_definition import concepts_config
from papersearch.text import has_cjk
from webapp.domain import SearchParams
from webapp.services import facet_queries as fq
from webapp.services import relaxation as rx
from webapp.services import request_parts as rp
from webapp.services.expansion import Expansion
from webapp.services.query_parser import ParsedQuery
from webapp.services.word_queries import (
    Fuzzy,
    exclusion_clauses,
    field_clause,
    is_chinese_field,
    phrase_clause,
    phrase_clauses,
    proximity_boost,
    term_clause,
    text_clause,
)

Query = dict[str, Any]


def build_query(parsed: ParsedQuery, config: dict, fuzzy: Fuzzy = True, relaxed: bool = False,
                expansions: Sequence[Expansion] = ()) -> Query:
    """The scoring query (no facet filters: those go into post_filter), with the concepts recognised
    in the words searched in both languages; relaxed: most of the words."""
    must: list[Query] = []
    should: list[Query] = []
    # Relaxed, every paper needs most of the words (a concept counts for its own words): the concepts of a
    # long query alone no longer let papers in the other language in.
    text = expanded_text_clause(parsed.terms, list(expansions), config, fuzzy, relaxed, other_language=not relaxed)
    if text:
        must.append(text)
    must += phrase_clauses(parsed.phrases, config)
    must += [field_clause(c, config) for c in parsed.field_clauses if not c.excluded]
    boost = proximity_boost(parsed.terms, config)
    if boost:
        should.append(boost)
    must_not = exclusion_clauses(parsed, config)
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


# --- concepts (cross-lingual; see DECISIONS.md "Cross-lingual search") --------------------------------


def form_fields(config: dict, language: str) -> dict[str, float]:
    """Where a concept's other forms are searched: the paper's own text fields of one script. Not
    the authors (a concept is not a name), not the topic labels (the taxonomy is bilingual already:
    the words as typed reach them)."""
    skipped = set(config["field_aliases"]["author"]) | set(config["field_aliases"]["topic"])
    return {name: boost for name, boost in config["query_fields"].items()
            if name not in skipped and is_chinese_field(name) == (language == "zh")}


def form_phrases(expansion: Expansion, config: dict) -> list[Query]:
    """Each form of the concept, in both languages, as a phrase on its language's fields."""
    return [phrase_clause(form, form_fields(config, language))
            for language, forms in (("en", expansion.en), ("zh", expansion.zh)) for form in forms]


def concept_clause(expansion: Expansion, typed: Query, config: dict, share: float = 1.0) -> Query:
    """The words as typed, or the concept: any of its other forms as a phrase, or its tag. The best
    alternative scores (dis_max), so a concept with many forms does not add up. `share`: the part of
    the concept's weight this clause carries when the concept's words are several clauses."""
    settings = config["cross_lingual"]
    others = form_phrases(expansion, config)
    others.append({"terms": {concepts_config()["field"]: list(expansion.ids), "boost": settings["concept_boost"]}})
    concept: Query = {"dis_max": {"queries": others, "tie_breaker": settings["tie_breaker"]}}
    if share != 1:
        concept["dis_max"]["boost"] = round(share, 4)
    return {"dis_max": {"queries": [typed, concept]}}


def _all_of(clauses: list[Query]) -> Query:
    return clauses[0] if len(clauses) == 1 else {"bool": {"must": clauses}}


def expanded_text_clause(terms: list[str], found: list[Expansion], config: dict, fuzzy: Fuzzy = True,
                         relaxed: bool = False, other_language: bool = True) -> Query | None:
    """text_clause with the concepts recognised in the words searched in both languages (relaxed: most of
    the words, each word's clause named, as in text_clause; without other_language: only the words in
    their own language, what the relaxation ladder counts and ranks first).

    Every typed word stays one clause, so "most words must match" counts as before; a word that is
    part of a concept may also be matched by the concept (its other forms, its tag), best of them
    scoring, each of the concept's words carrying an equal share of its weight (so a three-word
    concept matched by its acronym counts once, not three times). Concepts found inside a longer
    Chinese term ("基于对比学习的图像分类") give
    that term a second way to match: all its concepts' groups, so a paper in the other language need
    not contain the Chinese words around them. For the same reason papers written in the other
    language need only match the concepts when other words were typed beside them ("concrete
    cracks": Chinese papers about 混凝土); the words as typed still rank them.
    """
    if not found:
        return text_clause(terms, config, fuzzy, relaxed)
    if not terms:
        return None
    whole = {k: e for e in found if e.whole_terms for k in range(e.first, e.last + 1)}
    inside: dict[int, list[Expansion]] = {}
    for e in found:
        if not e.whole_terms:
            inside.setdefault(e.first, []).append(e)
    clauses: list[Query] = []
    others: list[str] = []  # the words that are no concept
    for i, term in enumerate(terms):
        typed = term_clause(term, config, fuzzy, relaxed)
        if i in whole:
            e = whole[i]
            clauses.append(concept_clause(e, typed, config, share=1 / (e.last - e.first + 1)))
        elif i in inside:
            parts = _all_of([concept_clause(e, term_clause(e.typed, config, fuzzy=False), config) for e in inside[i]])
            clauses.append({"bool": {"should": [typed, parts], "minimum_should_match": 1}})
        else:
            clauses.append(typed)
            others.append(term)
    if relaxed:
        clauses = [rx.named(c, rx.word_name(i)) for i, c in enumerate(clauses)]
    required = rx.words_required(config, relaxed)
    as_typed = clauses[0] if len(clauses) == 1 else {"bool": {"should": clauses, "minimum_should_match": required}}
    language = _other_language(others) if other_language else None
    if not others or language is None:
        return as_typed
    groups = [concept_clause(e, _all_of([term_clause(t, config, fuzzy) for t in terms[e.first:e.last + 1]]), config)
              for e in found if e.whole_terms]
    groups += [next(iter(clauses[i].values()))["should"][1] for i in inside]
    in_other_language: Query = {"bool": {
        "must": groups,
        "should": [term_clause(t, config, fuzzy=False) for t in others],
        "filter": [_written_in(language)],
    }}
    return {"bool": {"should": [as_typed, in_other_language], "minimum_should_match": 1}}


def _other_language(words: list[str]) -> str | None:
    """The language papers cannot share these words with: zh for Latin-script words, en for Chinese."""
    scripts = {has_cjk(w) for w in words}
    return None if len(scripts) != 1 else ("en" if scripts.pop() else "zh")


def _written_in(language: str) -> Query:
    return {"term": {concepts_config()["language_field"]: language}}


# --- the whole request -------------------------------------------------------------------------------


def search_body(parsed: ParsedQuery, params: SearchParams, config: dict, fuzzy: Fuzzy = True,
                relaxed: bool = False, expansions: Sequence[Expansion] = (), as_typed_fuzzy: bool = False) -> Query:
    """The whole search request for one results page; relaxed: the ladder's last step (papers with most
    of the words; the papers the words as typed find, with `as_typed_fuzzy`, first)."""
    filters = fq.facet_filters(params, config)
    query = build_query(parsed, config, fuzzy, relaxed, expansions)
    # The words as typed, in their own language: ranked first on a relaxed page; counted on the first
    # request when concepts also let papers in the other language in (the ladder relaxes on this count).
    as_typed = expanded_text_clause(parsed.terms, list(expansions), config, as_typed_fuzzy, other_language=False)
    if relaxed and as_typed:
        with_typos = (expanded_text_clause(parsed.terms, list(expansions), config, fuzzy, other_language=False)
                      if fuzzy and not as_typed_fuzzy else None)
        query = rx.ranked_all_words_first(query, as_typed, config, with_typos)
    body: Query = {
        "query": query,
        "aggs": fq.aggregations(config, filters),
        "sort": rp.sort_clause(params.sort, config),
        "track_total_hits": True,
        "_source": {"excludes": [config["suggest_field"]]},
        **rp.pagination(params, config),
    }
    if body["size"] and relaxed:
        others = phrase_clauses(parsed.phrases, config)
        others += [field_clause(c, config) for c in parsed.field_clauses if not c.excluded]
        others += [p for e in expansions for p in form_phrases(e, config)]  # the concepts' other forms too
        body["highlight"] = rp.highlight(rx.highlight_words(parsed.terms, others, config), config)
    elif body["size"]:
        body["highlight"] = rp.highlight(build_query(parsed, config, False, False, expansions), config)
    post = fq.post_filter(filters)
    if post:
        body["post_filter"] = post
    if not relaxed and as_typed and expansions and as_typed != expanded_text_clause(
            parsed.terms, list(expansions), config, fuzzy):
        body["aggs"][rx.AS_TYPED_AGG] = rx.as_typed_count(as_typed, list(filters.values()))
    words = rp.spelling_words(parsed.terms)
    if words and not relaxed:
        # Cheap, and saves a round trip when a correction is needed. Only on the first request: neither the
        # suggestions nor the whole-index word counts depend on the query, so the relaxed one needs none.
        body["suggest"] = rp.spelling_suggest(words, list(rp.SPELL_FIELDS))
        body["aggs"][rp.KNOWN_WORDS_AGG] = rp.known_words_aggregation(words, config)
    return body


def exists_body(parsed: ParsedQuery, params: SearchParams, config: dict) -> Query:
    """Whether a search finds anything, filters included (for checking a "did you mean"): a search that
    counts up to one paper, so it can go into one _msearch with the relaxed request."""
    query = build_query(parsed, config)
    post = fq.post_filter(fq.facet_filters(params, config))
    if post:
        query = {"bool": {"must": [query], "filter": post["bool"]["filter"]}}
    return {"query": query, "size": 0, "track_total_hits": 1}
