"""Elasticsearch request pieces, one small pure function per concern, all driven by config/index.json.

User text only ever reaches Elasticsearch inside match / match_phrase / multi_match / intervals
queries (never query_string), so no query syntax can be injected.
"""

from __future__ import annotations

import re
from typing import Any

from papersearch.taxonomy import PATH_SEPARATOR
from papersearch.text import has_cjk
from webapp.domain import SearchParams
from webapp.services.query_parser import Clause, ParsedQuery

Query = dict[str, Any]

FUZZY_MIN_LENGTH = 5  # shorter words have too many one-edit neighbours
# Four-letter words get one edit in author names only (Zeev → Ze'ev, Jain → Jian): names are often typed
# in another spelling, and the prefix_length keeps Dong from matching Yong.
AUTHOR_FUZZY_MIN_LENGTH = 4
FUZZY_BOOST = 0.2  # a fuzzy match only ranks below every exact one
# Up to three words: all must match; four to eight: three quarters; more (a question, a pasted sentence):
# 60%, so a few words the paper does not use ("when does … make …") do not empty the results.
MANY_TERMS = "3<75% 8<60%"
SPELL_MIN_LENGTH = 4
SPELL_MAX_WORDS = 6  # each checked word costs a whole-index count
# Unstemmed text fields: their terms are real words, fit to be offered as corrections.
SPELL_FIELDS = ("title.exact", "abstract.exact", "authors")
KNOWN_WORDS_AGG = "known_words"
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


# --- text --------------------------------------------------------------------------------------------


def boosted(fields: dict[str, float]) -> list[str]:
    return [f"{name}^{boost:g}" if boost != 1 else name for name, boost in fields.items()]


def is_chinese_field(name: str) -> bool:
    return "_zh" in name


def fuzzy_fields(config: dict) -> dict[str, float]:
    """Latin-script fields for typo tolerance, unstemmed where possible.

    Edit distance is measured on the surface form: on a stemmed field "diffsuion" is compared with
    the stem "diffus" and never matches. Chinese fields are left out (one edit there is a new word).
    """
    fields = config["query_fields"]
    out: dict[str, float] = {}
    for name, boost in fields.items():
        if is_chinese_field(name) or name.endswith(".exact"):
            continue
        out[f"{name}.exact" if f"{name}.exact" in fields else name] = boost
    return out


def term_clause(term: str, config: dict, fuzzy: bool = True) -> Query:
    """One search-box word: it must match somewhere (best field wins), all its tokens in that field."""
    exact: Query = {
        "multi_match": {
            "query": term, "type": "best_fields", "fields": boosted(config["query_fields"]),
            "operator": "and", "tie_breaker": 0.3,
            # A stopword analyses to nothing in the stemmed fields; let it match there rather than veto.
            "zero_terms_query": "all",
        }
    }
    fallback = fuzzy_clause(term, config) if fuzzy else None
    if fallback is None:
        return exact
    return {"bool": {"should": [exact, fallback], "minimum_should_match": 1}}


def fuzzy_clause(term: str, config: dict) -> Query | None:
    """A low-boost typo/inflection fallback for longer alphabetic words (never for Chinese); for
    four-letter words only over author names."""
    if len(term) < AUTHOR_FUZZY_MIN_LENGTH or has_cjk(term) or not _LATIN_WORD.fullmatch(term):
        return None
    if len(term) < FUZZY_MIN_LENGTH:
        fields = {name: config["query_fields"].get(name, 1) for name in config["field_aliases"]["author"]}
    else:
        fields = fuzzy_fields(config)
    return {
        "multi_match": {
            "query": term, "type": "best_fields", "fields": boosted(fields),
            "fuzziness": "AUTO", "prefix_length": 1, "max_expansions": 20, "boost": FUZZY_BOOST,
        }
    }


def text_clause(terms: list[str], config: dict, fuzzy: bool = True) -> Query | None:
    """The plain words: each is matched term-centrically so words may hit different fields."""
    if not terms:
        return None
    clauses = [term_clause(t, config, fuzzy) for t in terms]
    if len(clauses) == 1:
        return clauses[0]
    return {"bool": {"should": clauses, "minimum_should_match": MANY_TERMS}}


def phrase_clause(phrase: str, fields: dict[str, float] | list[str], slop: int = 0) -> Query:
    names = boosted(fields) if isinstance(fields, dict) else list(fields)
    query: Query = {"query": phrase, "type": "phrase", "fields": names}
    if slop:
        query["slop"] = slop
    return {"multi_match": query}


def phrase_clauses(phrases: list[str], config: dict) -> list[Query]:
    return [phrase_clause(p, config["query_fields"]) for p in phrases]


def proximity_boost(terms: list[str], config: dict) -> Query | None:
    """Rank documents where the words appear close together (as typed) above scattered matches."""
    if len(terms) < 2 and not any(has_cjk(t) for t in terms):
        return None
    return phrase_clause(" ".join(terms), config["phrase_fields"], slop=config.get("phrase_slop", 0))


def alias_fields(field: str, config: dict) -> dict[str, float]:
    """The fields behind "title:" etc., with their query_fields boosts."""
    weights = config["query_fields"]
    return {name: weights.get(name, 1) for name in config["field_aliases"][field]}


def author_clause(clause: Clause, config: dict) -> Query:
    """author:… — the name as a phrase, or (for Latin names) its parts close together in any order
    ("Hauberg Søren"), each allowed an edit or two.

    The fuzzy alternative makes Soren find Søren even on an index analysed without folding; the
    position gap between authors keeps the parts inside one name.
    """
    fields = config["field_aliases"]["author"]
    alternatives: list[Query] = [phrase_clause(clause.text, fields, slop=1)]
    parts = clause.text.split()
    if not has_cjk(clause.text) and all(_LATIN_WORD.fullmatch(p) for p in parts):
        # The keyword analyzer leaves the (already lowercased) term alone, whatever the field's analyzer.
        rules = [{"fuzzy": {"term": p.casefold(), "fuzziness": "AUTO", "analyzer": "keyword"}} for p in parts]
        rule = rules[0] if len(rules) == 1 else {"all_of": {"intervals": rules, "ordered": False, "max_gaps": 1}}
        alternatives += [{"intervals": {f: rule}} for f in fields]
    if len(alternatives) == 1:
        return alternatives[0]
    return {"bool": {"should": alternatives, "minimum_should_match": 1}}


def field_clause(clause: Clause, config: dict) -> Query:
    """title:/abstract:/topic:/author: with a word or a phrase, over that field's aliases."""
    if clause.field == "author":
        return author_clause(clause, config)
    fields = alias_fields(clause.field or "", config)
    if clause.phrase:
        return phrase_clause(clause.text, fields)
    return {"multi_match": {"query": clause.text, "type": "best_fields", "fields": boosted(fields),
                            "operator": "and"}}


def exclusion_clauses(parsed: ParsedQuery, config: dict) -> list[Query]:
    out: list[Query] = []
    for clause in parsed.clauses:
        if not clause.excluded:
            continue
        if clause.field == "author":
            # Strict here: a fuzzy author match must not hide papers of similarly named people.
            out.append(phrase_clause(clause.text, config["field_aliases"]["author"], slop=1))
        elif clause.field:
            out.append(field_clause(clause, config))
        elif clause.phrase:
            out.append(phrase_clause(clause.text, list(config["query_fields"])))
        else:
            out.append({"multi_match": {"query": clause.text, "type": "best_fields",
                                        "fields": list(config["query_fields"]), "operator": "and"}})
    return out


def build_query(parsed: ParsedQuery, config: dict, fuzzy: bool = True) -> Query:
    """The scoring query (no facet filters: those go into post_filter)."""
    must: list[Query] = []
    should: list[Query] = []
    text = text_clause(parsed.terms, config, fuzzy)
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


# --- facets ------------------------------------------------------------------------------------------


def facet_config(config: dict, name: str) -> dict:
    return next(f for f in config["facets"] if f["name"] == name)


def topic_filter(areas: list[str], subareas: list[str], config: dict) -> Query | None:
    """Selected areas OR selected subareas; a subarea selected under an area narrows that area."""
    area_level, sub_level = facet_config(config, "topic")["levels"]
    refined = {s.split(PATH_SEPARATOR, 1)[0] for s in subareas}
    whole_areas = [a for a in areas if a not in refined]
    should: list[Query] = []
    if whole_areas:
        should.append({"terms": {area_level["field"]: whole_areas}})
    if subareas:
        should.append({"terms": {sub_level["field"]: subareas}})
    if not should:
        return None
    return should[0] if len(should) == 1 else {"bool": {"should": should, "minimum_should_match": 1}}


def year_filter(years: list[int], config: dict) -> Query | None:
    return {"terms": {facet_config(config, "year")["field"]: years}} if years else None


def facet_filters(params: SearchParams, config: dict) -> dict[str, Query]:
    """Active filters by facet name (only facets with a selection)."""
    filters = {
        "topic": topic_filter(params.areas, params.subareas, config),
        "year": year_filter(params.years, config),
    }
    return {name: f for name, f in filters.items() if f is not None}


def post_filter(filters: dict[str, Query]) -> Query | None:
    """Facet filters apply to hits after aggregation, so facet counts can ignore their own filter."""
    if not filters:
        return None
    return {"bool": {"filter": list(filters.values())}}


def _except(filters: dict[str, Query], name: str) -> Query:
    others = [f for n, f in filters.items() if n != name]
    return {"bool": {"filter": others}} if others else {"match_all": {}}


def topic_aggregation(config: dict, filters: dict[str, Query]) -> Query:
    """Areas, and under each area its subareas (topic_path values "Area > Subarea")."""
    area_level, sub_level = facet_config(config, "topic")["levels"]
    return {
        "filter": _except(filters, "topic"),
        "aggs": {"values": {
            "terms": {"field": area_level["field"], "size": area_level["size"]},
            "aggs": {"children": {"terms": {"field": sub_level["field"], "size": sub_level["size"]}}},
        }},
    }


def terms_aggregation(facet: dict, filters: dict[str, Query]) -> Query:
    return {
        "filter": _except(filters, facet["name"]),
        "aggs": {"values": {"terms": {"field": facet["field"], "size": facet["size"]}}},
    }


def aggregations(config: dict, filters: dict[str, Query]) -> Query:
    """One filter aggregation per facet, each under every active filter except its own (disjunctive)."""
    aggs: Query = {}
    for facet in config["facets"]:
        if facet["type"] == "hierarchy":
            aggs[facet["name"]] = topic_aggregation(config, filters)
        else:
            aggs[facet["name"]] = terms_aggregation(facet, filters)
    return aggs


# --- sorting, paging, highlighting, suggestions ------------------------------------------------------


def sort_clause(sort: str, config: dict) -> list[Query]:
    return config["sorts"][sort]


def is_too_deep(params: SearchParams, config: dict) -> bool:
    return params.page * params.size > config["max_result_window"]


def pagination(params: SearchParams, config: dict) -> Query:
    if is_too_deep(params, config):
        return {"from": 0, "size": 0}  # totals and facets only
    return {"from": (params.page - 1) * params.size, "size": params.size}


def highlight(parsed: ParsedQuery, config: dict) -> Query:
    """Highlight what the words matched, not the typo fallback: marking every fuzzy expansion costs
    ten times the rest of the search (measured: ~200 ms against ~12 ms on the sample) and marks
    look-alike words ("leading" for "learning")."""
    return {**config["highlight"], "highlight_query": build_query(parsed, config, fuzzy=False)}


def search_body(parsed: ParsedQuery, params: SearchParams, config: dict, fuzzy: bool = True) -> Query:
    """The whole search request for one results page."""
    filters = facet_filters(params, config)
    body: Query = {
        "query": build_query(parsed, config, fuzzy),
        "aggs": aggregations(config, filters),
        "sort": sort_clause(params.sort, config),
        "track_total_hits": True,
        "_source": {"excludes": [config["suggest_field"]]},
        **pagination(params, config),
    }
    if body["size"]:
        body["highlight"] = highlight(parsed, config)
    post = post_filter(filters)
    if post:
        body["post_filter"] = post
    words = spelling_words(parsed.terms)
    if words:
        # Cheap, and saves a round trip when a correction is needed.
        body["suggest"] = spelling_suggest(words, list(SPELL_FIELDS))
        body["aggs"][KNOWN_WORDS_AGG] = known_words_aggregation(words, config)
    return body


def has_typo_fallback(parsed: ParsedQuery, config: dict) -> bool:
    """Whether the fuzzy form of this query differs from the exact one."""
    return any(fuzzy_clause(term, config) for term in parsed.terms)


def count_body(parsed: ParsedQuery, params: SearchParams, config: dict) -> Query:
    """A count of what a search would find, filters included (for checking a "did you mean")."""
    query = build_query(parsed, config)
    post = post_filter(facet_filters(params, config))
    if post:
        query = {"bool": {"must": [query], "filter": post["bool"]["filter"]}}
    return {"query": query}


def spelling_words(terms: list[str]) -> list[str]:
    """The plain words worth a spelling check: Latin script, not too short, each once."""
    words = dict.fromkeys(
        t.casefold() for t in terms if len(t) >= SPELL_MIN_LENGTH and not has_cjk(t) and _LATIN_WORD.fullmatch(t)
    )
    return list(words)[:SPELL_MAX_WORDS]


def spelling_suggest(words: list[str], fields: list[str]) -> Query:
    """Term suggesters (one per field) proposing real words near each query word."""
    return {
        "text": " ".join(words),
        **{f"spell_{i}": {"term": {"field": field, "suggest_mode": "always", "min_word_length": SPELL_MIN_LENGTH,
                                   "max_edits": 2, "size": 3}}
           for i, field in enumerate(fields)},
    }


def known_words_aggregation(words: list[str], config: dict) -> Query:
    """How many papers in the whole index contain each word exactly (0 = misspelt, worth correcting).

    Term suggesters cannot tell (they see one field each), and the hits cannot either (fuzzy matches).
    """
    fields = list(config["query_fields"])
    return {"global": {}, "aggs": {"words": {"filters": {"filters": {
        str(i): {"multi_match": {"query": w, "fields": fields, "operator": "and"}} for i, w in enumerate(words)
    }}}}}


def completion_suggest(prefix: str, size: int, config: dict) -> Query:
    return {"paper": {"prefix": prefix, "completion": {
        "field": config["suggest_field"], "size": size, "skip_duplicates": True}}}


def more_like_this(index: str, paper_id: str, config: dict) -> Query:
    """Papers similar to one paper; thresholds are low because abstracts are short and the corpus small."""
    return {"more_like_this": {
        "fields": config["similar_fields"], "like": [{"_index": index, "_id": paper_id}],
        "min_term_freq": 1, "min_doc_freq": 2, "max_query_terms": 30, "minimum_should_match": "20%",
    }}
