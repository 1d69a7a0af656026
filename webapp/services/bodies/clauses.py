"""The clauses of a search as Elasticsearch queries: each word across fields with its typo fallback, phrases,
closeness, field clauses and exclusions (the words together, with their concepts: text_query.py).

Called by render.py and text_query.py, which put them together as a plan (plan/ladder.py) says; every number here
comes from config/index.json. User text only ever reaches Elasticsearch inside match / match_phrase / multi_match /
intervals / term queries, never query_string (DECISIONS.md D-018).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from papersearch import introduces
from papersearch.author_keys import FIELD as AUTHOR_KEYS
from papersearch.author_keys import WORDS_FIELD, author_key, is_surname, word_pattern
from papersearch.text import has_cjk
from webapp.services.es_syntax import Query, any_of, bool_query
from webapp.services.plan.words import Typos, typed_as_name
from webapp.services.query.parser import LATIN_WORD, Clause
from webapp.services.search_settings import WebSearchConfig

# --- one word -------------------------------------------------------------------------------------------


def boosted(fields: dict[str, float]) -> list[str]:
    return [f"{name}^{boost:g}" if boost != 1 else name for name, boost in fields.items()]


def is_chinese_field(name: str) -> bool:
    field = name.split("^")[0]
    return "_zh" in field or field.endswith(".zh")


def fuzzy_fields(config: WebSearchConfig) -> dict[str, float]:
    """Latin-script fields for typo tolerance, unstemmed where possible.

    Edit distance is measured on the surface form: on a stemmed field "diffsuion" is compared with
    the stem "diffus" and never matches. Chinese fields are left out (one edit there is a new word).
    """
    fields = config.query_fields
    out: dict[str, float] = {}
    for name, boost in fields.items():
        if is_chinese_field(name) or name.endswith(".exact"):
            continue
        out[f"{name}.exact" if f"{name}.exact" in fields else name] = boost
    return out


def term_clause(term: str, config: WebSearchConfig, typos: Typos = "", relaxed: bool = False,
                unit: bool = False) -> Query:
    """One search-box word: all its tokens must match (relaxed: most of them), each in any text field or in the
    paper's topic labels (topic_lift, beside it); with its typo fallback on `typos` fields.

    cross_fields blends each token's document frequency over the fields of one analyzer, so a word is as common
    in the short author fields as it is in the abstracts (DECISIONS.md D-046). A topic
    label is the same for every paper of the topic: a match there adds a constant (topic_boost) beside the
    word's score in the paper's own text, so the topic's papers come first and their own words order them
    (DECISIONS.md D-088).

    A word is matched in its own script's fields as typed; a Latin word in the Chinese fields (an English term
    inside a Chinese abstract, rare there and so scored high) at other_script_weight; a Chinese run in the
    Latin-script fields only as the run, in order, at other_script_weight (a phrase of single characters is
    rare, so it scored above the Chinese fields; Chinese author keywords are words in keywords.zh).
    `unit`: a Chinese run that is one concept, matched as the run, not as its words apart (图神经网络 is not
    图 … 神经网络; DECISIONS.md D-141, D-142).
    """
    topics = set(config.field_aliases.topic)
    fields = {f: b for f, b in config.query_fields.items() if f not in topics}
    exact = _exact(term, fields, config, unit, relaxed)
    return any_of([exact, *([fuzzy_clause(term, typos, config)] if typos else [])])


def _exact(term: str, fields: dict[str, float], config: WebSearchConfig, unit: bool, relaxed: bool) -> Query:
    """The word's tokens, in its script's fields as typed and in the other script's as the docstring above says.

    relaxed: most of its tokens, not all (a word cut in two by a paste, "ov稳定性原理", "nylamine,NPB", matches by its
    other tokens), with the same split by script (DECISIONS.md D-175)."""
    cjk = has_cjk(term)
    own = {f: b for f, b in fields.items() if is_chinese_field(f) == cjk}
    other = {f: b for f, b in fields.items() if is_chinese_field(f) != cjk}
    if cjk:
        foreign = phrase_clause(term, other)
        foreign["multi_match"]["boost"] = config.other_script_weight
        mine = phrase_clause(term, own) if unit and not relaxed else _cross_fields(term, own, config, relaxed)
    else:
        foreign = _cross_fields(term, other, config, relaxed)
        foreign["multi_match"].update(boost=config.other_script_weight, zero_terms_query="none")
        mine = _cross_fields(term, own, config, relaxed)
        if relaxed:
            mine = bool_query(must=[mine], filter=[surface_clause(term, config)])
    return {"dis_max": {"queries": [mine, foreign]}}


def surface_clause(term: str, config: WebSearchConfig) -> Query:
    """The word as written or within relaxation.surface_fuzziness edits on the unstemmed fields: what a relaxed
    word needs besides its stemmed match, so a stemmed variant alone does not stand for it (engineering for
    engine: issue 57.6, DECISIONS.md D-203). Papers with every word are let in apart (render.scoring_query)."""
    settings = config.typos
    return {"multi_match": {
        "query": term, "type": "best_fields", "fields": list(fuzzy_fields(config)),
        "fuzziness": config.relaxation.surface_fuzziness, "prefix_length": settings.prefix_length,
        "max_expansions": settings.max_expansions, "operator": "or",
        "minimum_should_match": config.relaxation.term_minimum_should_match}}


def _cross_fields(term: str, fields: dict[str, float], config: WebSearchConfig, relaxed: bool = False) -> Query:
    """All the word's tokens (relaxed: most of them) across the fields, as one word: each token's document
    frequency blended over the fields (DECISIONS.md D-046)."""
    query: Query = {"multi_match": {
        "query": term, "type": "cross_fields", "fields": boosted(fields), "operator": "and",
        "tie_breaker": config.word_tie_breaker,
        # A stopword analyses to nothing in the stemmed fields; let it match there rather than veto.
        "zero_terms_query": "all",
    }}
    if relaxed:
        query["multi_match"].update(operator="or", minimum_should_match=config.relaxation.term_minimum_should_match)
    return query


def topic_lift(term: str, config: WebSearchConfig, relaxed: bool = False) -> Query:
    """The word in the paper's topic labels: a constant (topic_boost, by the word's script: a Chinese word on an
    English paper has its bilingual labels as its only match in the paper's own language) beside what the
    words score in the paper's text, never the best of them."""
    topics = config.field_aliases.topic
    match: Query = {"multi_match": {"query": term, "type": "best_fields", "fields": topics, "operator": "and"}}
    if relaxed:
        match["multi_match"].update(operator="or",
                                    minimum_should_match=config.relaxation.term_minimum_should_match)
    return {"constant_score": {"filter": match, "boost": config.topic_boost["zh" if has_cjk(term) else "en"]}}


def fuzzy_clause(term: str, typos: Typos, config: WebSearchConfig) -> Query:
    """A low-boost typo/inflection fallback: on author names only, or on every unstemmed Latin field."""
    if typos == "authors":
        fields = {name: config.query_fields.get(name, 1) for name in config.field_aliases.author}
    else:
        fields = fuzzy_fields(config)
    settings = config.typos
    return {
        "multi_match": {
            "query": term, "type": "best_fields", "fields": boosted(fields), "fuzziness": settings.fuzziness,
            "prefix_length": settings.prefix_length, "max_expansions": settings.max_expansions,
            "boost": settings.boost,
        }
    }


# --- a query that is a name ----------------------------------------------------------------------------


def introduced_lift(typed: str, config: WebSearchConfig) -> Query:
    """The paper that introduced the name typed ("LoRA": its title starts "LoRA:", or its abstract says "we
    propose LoRA"; papersearch/introduces.py), lifted by a constant beside its words' score: one `terms` query on
    a keyword field the normalizer lowercases (DECISIONS.md D-210). An index built before the field matches none.
    `terms`, not a term under `constant_score`: both score the boost, but the constant_score clause keeps a
    scorer where no paper introduces the name, and beside it Elasticsearch scores every paper the words match
    instead of skipping those that cannot reach the page (DECISIONS.md D-229)."""
    return {"terms": {introduces.FIELD: [" ".join(typed.split())], "boost": config.typed_names.introduced_boost}}


def surname_lift(word: str, config: WebSearchConfig) -> Query | None:
    """A word typed as a name (Hinton, Schölkopf): the papers of the authors with that surname, however its
    umlauts are spelt (Schoelkopf), at a constant that puts them first: one regexp anchored at the surname on
    the name keys filed under their words (DECISIONS.md D-211). None for a word not typed as a name, or one
    that folds to several words (a hyphenated or apostrophised name is found by author:)."""
    key = author_key(word)
    if not typed_as_name(word) or has_cjk(word) or len(key.split()) != 1:
        return None
    pattern = {"regexp": {WORDS_FIELD: {"value": word_pattern(key, surname=True)}}}
    return {"constant_score": {"filter": pattern, "boost": config.typed_names.surname_boost}}


# --- phrases, closeness, fields, exclusions --------------------------------------------------------------


def phrase_clause(phrase: str, fields: dict[str, float] | list[str], slop: int = 0) -> Query:
    names = boosted(fields) if isinstance(fields, dict) else list(fields)
    query: Query = {"query": phrase, "type": "phrase", "fields": names}
    if slop:
        query["slop"] = slop
    return {"multi_match": query}


def phrase_clauses(phrases: list[str], config: WebSearchConfig) -> list[Query]:
    return [phrase_clause(p, config.query_fields) for p in phrases]


def proximity_boost(terms: list[str], config: WebSearchConfig, names: tuple[str, ...] = ()) -> Query | None:
    """Rank documents where the words appear close together (as typed) above scattered matches; for
    longer queries also each pair of neighbouring words (see DECISIONS.md D-047); and
    each concept's name in the other language, as if it had been typed (Page.close_names)."""
    slop = config.phrase_slop
    phrases = [_weighted(phrase_clause(n, config.phrase_fields, slop=slop), name_weight(n, config)) for n in names]
    if len(terms) >= 2 or any(has_cjk(t) for t in terms):
        phrases.insert(0, phrase_clause(" ".join(terms), config.phrase_fields, slop=slop))
    pairs = word_pair_clauses(terms, config)
    if not phrases:
        return None
    return bool_query(should=[*phrases, *pairs]) if len(phrases) > 1 or pairs else phrases[0]


def name_weight(name: str, config: WebSearchConfig) -> float:
    """A name's weight: other_language_weight of the language the concept was typed in (not the name's)."""
    return config.cross_lingual.other_language_weight["en" if has_cjk(name) else "zh"]


def _weighted(query: Query, weight: float) -> Query:
    (kind, body), = query.items()
    return query if weight == 1 else {kind: {**body, "boost": weight}}


def word_pair_clauses(terms: list[str], config: WebSearchConfig) -> list[Query]:
    """Neighbouring Latin-script words as short sloppy phrases, when the query has enough words."""
    settings = config.word_pairs
    if len(terms) < settings.min_words:
        return []
    out = []
    for first, second in itertools.pairwise(terms):
        if has_cjk(first) or has_cjk(second):
            continue  # a Chinese run is already a phrase of its own characters
        pair = phrase_clause(f"{first} {second}", settings.fields, slop=settings.slop)
        pair["multi_match"]["boost"] = settings.boost
        out.append(pair)
    return out


def alias_fields(field: str, config: WebSearchConfig) -> dict[str, float]:
    """The fields behind "title:" etc., with their query_fields boosts."""
    weights = config.query_fields
    return {name: weights.get(name, 1) for name in getattr(config.field_aliases, field)}


def author_clause(clause: Clause, config: WebSearchConfig) -> Query:
    """author:… — the papers of the person named: their indexed name keys (author_names.py looked them up:
    diacritics, case, hyphens and umlaut transliterations folded, initials as initials). Only when no author has
    the name (clause.fuzzy) similar names: the name as a phrase, or (for Latin names) its parts close together
    in any order, each allowed an edit or two. Not looked up (keys None): the name as a phrase."""
    fields = config.field_aliases.author
    if clause.keys is not None and not clause.fuzzy:
        return {"terms": {AUTHOR_KEYS: list(clause.keys)}} if clause.keys else {"match_none": {}}
    alternatives: list[Query] = [phrase_clause(clause.text, fields, slop=1)]
    parts = clause.text.split()
    if clause.fuzzy and not has_cjk(clause.text) and all(LATIN_WORD.fullmatch(p) for p in parts):
        # The keyword analyzer leaves the (already lowercased) term alone, whatever the field's analyzer.
        rules = [{"fuzzy": {"term": p.casefold(), "fuzziness": "AUTO", "analyzer": "keyword"}} for p in parts]
        rule = rules[0] if len(rules) == 1 else {"all_of": {"intervals": rules, "ordered": False, "max_gaps": 1}}
        alternatives += [{"intervals": {f: rule}} for f in fields]
    return any_of(alternatives)


MAX_HIGHLIGHTED_KEYS = 20  # spellings marked one by one; beyond, the surname alone


def author_highlight(clause: Clause, config: WebSearchConfig) -> Query:
    """What an author: clause marks in the author list: each spelling of the person (their keys as phrases:
    the plugin's analyzer folds as the keys do) and the name's words as typed (a core index folds nothing:
    "Soren Hauberg" marks Hauberg in "Søren Hauberg"), the surname alone for a surname or many spellings; the
    similar names when those were searched."""
    if clause.fuzzy or clause.keys is None:
        return author_clause(clause, config)
    fields = config.field_aliases.author
    keys = list(clause.keys)
    if not keys:
        return {"match_none": {}}
    if len(keys) > MAX_HIGHLIGHTED_KEYS or is_surname(author_key(clause.text)):
        return {"multi_match": {"query": author_key(clause.text).split()[-1], "fields": fields}}
    typed = {"multi_match": {"query": clause.text, "fields": fields}}
    return any_of([*(phrase_clause(k, fields) for k in keys), typed])


def field_clause(clause: Clause, config: WebSearchConfig) -> Query:
    """title:/abstract:/topic:/author: with a word or a phrase, over that field's aliases."""
    if clause.field == "author":
        return author_clause(clause, config)
    fields = alias_fields(clause.field or "", config)
    if clause.phrase:
        return phrase_clause(clause.text, fields)
    return {"multi_match": {"query": clause.text, "type": "best_fields", "fields": boosted(fields),
                            "operator": "and"}}


def exclusion_clauses(excluded: list[Clause], config: WebSearchConfig) -> list[Query]:
    """-word, -"phrase", -field:…: what no result may contain."""
    out: list[Query] = []
    for clause in excluded:
        if clause.field == "author":
            # Strict here: a fuzzy author match must not hide papers of similarly named people.
            out.append(author_clause(replace(clause, fuzzy=False), config) if clause.keys
                       else phrase_clause(clause.text, config.field_aliases.author, slop=1))
        elif clause.field:
            out.append(field_clause(clause, config))
        elif clause.phrase:
            out.append(phrase_clause(clause.text, list(config.query_fields)))
        else:
            out.append({"multi_match": {"query": clause.text, "type": "best_fields",
                                        "fields": list(config.query_fields), "operator": "and"}})
    return out
