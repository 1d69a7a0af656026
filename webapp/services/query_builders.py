"""The scoring query from the parsed search box, and the whole search request built around it.

One small pure function per concern, all driven by config/index.json; facets are in facet_queries.py,
sort/paging/highlight/suggestions in request_parts.py. User text only ever reaches Elasticsearch inside
match / match_phrase / multi_match / intervals queries, never query_string (see DECISIONS.md "User text
never becomes query syntax").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from papersearch.index_definition import concepts_config
from papersearch.text import has_cjk
from webapp.domain import SearchParams
from webapp.services import facet_queries as fq
from webapp.services import request_parts as rp
from webapp.services.expansion import Expansion
from webapp.services.query_parser import LATIN_WORD, Clause, ParsedQuery

Query = dict[str, Any]

FUZZY_MIN_LENGTH = 5  # shorter words have too many one-edit neighbours
# Four-letter words: one edit in author names only (Zeev → Ze'ev); prefix_length keeps Dong from Yong.
AUTHOR_FUZZY_MIN_LENGTH = 4
FUZZY_BOOST = 0.2  # a fuzzy match only ranks below every exact one
# see DECISIONS.md "Word matching: AND for short queries, most words for long ones"
MANY_TERMS = "3<75% 8<60%"


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
    if len(term) < AUTHOR_FUZZY_MIN_LENGTH or has_cjk(term) or not LATIN_WORD.fullmatch(term):
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
    if not has_cjk(clause.text) and all(LATIN_WORD.fullmatch(p) for p in parts):
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


def build_query(parsed: ParsedQuery, config: dict, fuzzy: bool = True,
                expansions: Sequence[Expansion] = ()) -> Query:
    """The scoring query (no facet filters: those go into post_filter), with the concepts recognised
    in the words searched in both languages."""
    must: list[Query] = []
    should: list[Query] = []
    text = expanded_text_clause(parsed.terms, list(expansions), config, fuzzy)
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


def has_typo_fallback(parsed: ParsedQuery, config: dict) -> bool:
    """Whether the fuzzy form of this query differs from the exact one."""
    return any(fuzzy_clause(term, config) for term in parsed.terms)


# --- concepts (cross-lingual; see DECISIONS.md "Cross-lingual search") --------------------------------


def form_fields(config: dict, language: str) -> dict[str, float]:
    """Where a concept's other forms are searched: the paper's own text fields of one script. Not
    the authors (a concept is not a name), not the topic labels (the taxonomy is bilingual already:
    the words as typed reach them)."""
    skipped = set(config["field_aliases"]["author"]) | set(config["field_aliases"]["topic"])
    return {name: boost for name, boost in config["query_fields"].items()
            if name not in skipped and is_chinese_field(name) == (language == "zh")}


def concept_clause(expansion: Expansion, typed: Query, config: dict, share: float = 1.0) -> Query:
    """The words as typed, or the concept: any of its other forms as a phrase, or its tag. The best
    alternative scores (dis_max), so a concept with many forms does not add up. `share`: the part of
    the concept's weight this clause carries when the concept's words are several clauses."""
    settings = config["cross_lingual"]
    others: list[Query] = []
    for language, forms in (("en", expansion.en), ("zh", expansion.zh)):
        fields = form_fields(config, language)
        others += [phrase_clause(form, fields) for form in forms]
    others.append({"terms": {concepts_config()["field"]: list(expansion.ids), "boost": settings["concept_boost"]}})
    concept: Query = {"dis_max": {"queries": others, "tie_breaker": settings["tie_breaker"]}}
    if share != 1:
        concept["dis_max"]["boost"] = round(share, 4)
    return {"dis_max": {"queries": [typed, concept]}}


def _all_of(clauses: list[Query]) -> Query:
    return clauses[0] if len(clauses) == 1 else {"bool": {"must": clauses}}


def expanded_text_clause(terms: list[str], found: list[Expansion], config: dict, fuzzy: bool = True) -> Query | None:
    """text_clause with the concepts recognised in the words searched in both languages.

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
        return text_clause(terms, config, fuzzy)
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
        typed = term_clause(term, config, fuzzy)
        if i in whole:
            e = whole[i]
            clauses.append(concept_clause(e, typed, config, share=1 / (e.last - e.first + 1)))
        elif i in inside:
            parts = _all_of([concept_clause(e, term_clause(e.typed, config, fuzzy=False), config) for e in inside[i]])
            clauses.append({"bool": {"should": [typed, parts], "minimum_should_match": 1}})
        else:
            clauses.append(typed)
            others.append(term)
    as_typed = clauses[0] if len(clauses) == 1 else {"bool": {"should": clauses, "minimum_should_match": MANY_TERMS}}
    other_language = _other_language(others)
    if not others or other_language is None:
        return as_typed
    groups = [concept_clause(e, _all_of([term_clause(t, config, fuzzy) for t in terms[e.first:e.last + 1]]), config)
              for e in found if e.whole_terms]
    groups += [clauses[i]["bool"]["should"][1] for i in inside]
    in_other_language: Query = {"bool": {
        "must": groups,
        "should": [term_clause(t, config, fuzzy=False) for t in others],
        "filter": [_written_in(other_language)],
    }}
    return {"bool": {"should": [as_typed, in_other_language], "minimum_should_match": 1}}


def _other_language(words: list[str]) -> str | None:
    """The language papers cannot share these words with: zh for Latin-script words, en for Chinese."""
    scripts = {has_cjk(w) for w in words}
    return None if len(scripts) != 1 else ("en" if scripts.pop() else "zh")


def _written_in(language: str) -> Query:
    return {"term": {concepts_config()["language_field"]: language}}


# --- the whole request -------------------------------------------------------------------------------


def search_body(parsed: ParsedQuery, params: SearchParams, config: dict, fuzzy: bool = True,
                expansions: Sequence[Expansion] = ()) -> Query:
    """The whole search request for one results page."""
    filters = fq.facet_filters(params, config)
    body: Query = {
        "query": build_query(parsed, config, fuzzy, expansions),
        "aggs": fq.aggregations(config, filters),
        "sort": rp.sort_clause(params.sort, config),
        "track_total_hits": True,
        "_source": {"excludes": [config["suggest_field"]]},
        **rp.pagination(params, config),
    }
    if body["size"]:
        body["highlight"] = rp.highlight(build_query(parsed, config, False, expansions), config)
    post = fq.post_filter(filters)
    if post:
        body["post_filter"] = post
    words = rp.spelling_words(parsed.terms)
    if words:
        # Cheap, and saves a round trip when a correction is needed.
        body["suggest"] = rp.spelling_suggest(words, list(rp.SPELL_FIELDS))
        body["aggs"][rp.KNOWN_WORDS_AGG] = rp.known_words_aggregation(words, config)
    return body


def count_body(parsed: ParsedQuery, params: SearchParams, config: dict) -> Query:
    """A count of what a search would find, filters included (for checking a "did you mean")."""
    query = build_query(parsed, config)
    post = fq.post_filter(fq.facet_filters(params, config))
    if post:
        query = {"bool": {"must": [query], "filter": post["bool"]["filter"]}}
    return {"query": query}
