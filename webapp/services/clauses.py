"""The clauses of a search as Elasticsearch queries: each word across fields with its typo fallback, the words
together (with the concepts recognised among them), phrases, closeness, field clauses and exclusions.

Called by render.py alone, which puts them together as a plan (plan.py) says; every number here comes from
config/index.json. User text only ever reaches Elasticsearch inside match / match_phrase / multi_match /
intervals / term queries, never query_string (DECISIONS.md "User text never becomes query syntax").
"""

from __future__ import annotations

import itertools

from papersearch.index_definition import concepts_config
from papersearch.text import has_cjk
from webapp.services.es_query import Query, all_of, any_of, bool_query, named
from webapp.services.plan import Concept, Text, Typos, Word
from webapp.services.query_parser import LATIN_WORD, Clause

WORD_QUERY = "word:"  # a relaxed word's clause is named word:<i>, so each hit tells which words it has


def word_name(index: int) -> str:
    return f"{WORD_QUERY}{index}"


# --- one word -------------------------------------------------------------------------------------------


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


def term_clause(term: str, config: dict, typos: Typos = "", relaxed: bool = False) -> Query:
    """One search-box word: all its tokens must match (relaxed: most of them), each in any text field or in the
    paper's topic labels (topic_lift, beside it); with its typo fallback on `typos` fields.

    cross_fields blends each token's document frequency over the fields of one analyzer, so a word is as common
    in the short author fields as it is in the abstracts (DECISIONS.md "Words scored across fields"). A topic
    label is the same for every paper of the topic: a match there adds a constant (topic_boost) beside the
    word's score in the paper's own text, so the topic's papers come first and their own words order them
    (DECISIONS.md "Ranking: topic labels lift, never order").
    """
    topics = set(config["field_aliases"]["topic"])
    fields = config["query_fields"]
    exact: Query = {
        "multi_match": {
            "query": term, "type": "cross_fields",
            "fields": boosted({f: b for f, b in fields.items() if f not in topics}),
            "operator": "and", "tie_breaker": config["word_tie_breaker"],
            # A stopword analyses to nothing in the stemmed fields; let it match there rather than veto.
            "zero_terms_query": "all",
        }
    }
    if relaxed:  # a word cut in two by a paste ("ov稳定性原理", "nylamine,NPB") matches by its other tokens
        exact["multi_match"].update(operator="or",
                                    minimum_should_match=config["relaxation"]["term_minimum_should_match"])
    return any_of([exact, *([fuzzy_clause(term, typos, config)] if typos else [])])


def topic_lift(term: str, config: dict, relaxed: bool = False) -> Query:
    """The word in the paper's topic labels: a constant (topic_boost, by the word's script: a Chinese word on an
    English paper has its bilingual labels as its only match in the paper's own language) beside what the
    words score in the paper's text, never the best of them."""
    topics = config["field_aliases"]["topic"]
    match: Query = {"multi_match": {"query": term, "type": "best_fields", "fields": topics, "operator": "and"}}
    if relaxed:
        match["multi_match"].update(operator="or",
                                    minimum_should_match=config["relaxation"]["term_minimum_should_match"])
    return {"constant_score": {"filter": match, "boost": config["topic_boost"]["zh" if has_cjk(term) else "en"]}}


def fuzzy_clause(term: str, typos: Typos, config: dict) -> Query:
    """A low-boost typo/inflection fallback: on author names only, or on every unstemmed Latin field."""
    if typos == "authors":
        fields = {name: config["query_fields"].get(name, 1) for name in config["field_aliases"]["author"]}
    else:
        fields = fuzzy_fields(config)
    settings = config["typos"]
    return {
        "multi_match": {
            "query": term, "type": "best_fields", "fields": boosted(fields), "fuzziness": settings["fuzziness"],
            "prefix_length": settings["prefix_length"], "max_expansions": settings["max_expansions"],
            "boost": settings["boost"],
        }
    }


# --- the words together, and the concepts among them (DECISIONS.md "Cross-lingual search") ------------------


def text_query(text: Text, config: dict, fuzzy: bool = True) -> Query | None:
    """Each word one clause (named word:<i> when relaxed), `required` of them; with other_language, papers
    in that language may match the concept groups instead. fuzzy=False: without the typo fallbacks."""
    if not text.words:
        return None
    clauses = [_word_query(w, text, config, fuzzy) for w in text.words]
    if text.relaxed:
        clauses = [named(c, word_name(w.index)) for c, w in zip(clauses, text.words, strict=True)]
    as_typed = any_of(clauses, text.required)
    if not text.other_language:
        return as_typed
    groups = [concept_query(c, all_of([_typed(w, text, config, fuzzy) for w in text.words
                                       if c.first <= w.index <= c.last]), config) for c in text.groups]
    groups += [_inside_query(w, config) for w in text.words if w.inside]
    others = [w for w in text.words if not (w.concept or w.inside)]
    in_other_language = bool_query(
        must=groups, should=[term_clause(w.text, config) for w in others],
        filter=[{"term": {concepts_config()["language_field"]: text.other_language}}])
    return any_of([as_typed, in_other_language])


def _typed(word: Word, text: Text, config: dict, fuzzy: bool) -> Query:
    return term_clause(word.text, config, word.typos if fuzzy else "", text.relaxed)


def _word_query(word: Word, text: Text, config: dict, fuzzy: bool) -> Query:
    typed = _typed(word, text, config, fuzzy)
    if word.concept:
        clause = concept_query(word.concept, typed, config, word.share)
    elif word.inside:
        clause = any_of([typed, _inside_query(word, config)])
    else:
        clause = typed
    return any_of([clause, topic_lift(word.text, config, text.relaxed)])


def _inside_query(word: Word, config: dict) -> Query:
    """A long Chinese term's concepts: all of them, each as typed or as the concept."""
    return all_of([concept_query(c, term_clause(c.typed, config), config) for c in word.inside])


def form_fields(config: dict, language: str) -> dict[str, float]:
    """Where a concept's other forms are searched: the text fields of one script that cross_lingual.form_fields
    names, at their query_fields boosts. Not the authors (a concept is not a name), not the topic labels (the
    taxonomy is bilingual already: the words as typed reach them), not the English exact subfields (a phrase
    on the stemmed field finds the same papers; DECISIONS.md "Search cost: concept forms on fewer fields").
    Forms on titles alone would be cheaper, but lose the papers whose abstract names a concept only inside a
    longer one, untagged (DECISIONS.md "Search cost: concept forms on every text field, the tag scored by
    rarity")."""
    return {name: config["query_fields"][name] for name in config["cross_lingual"]["form_fields"][language]}


def form_phrases(concept: Concept, config: dict) -> list[Query]:
    """Each form of the concept, in both languages, as a phrase on its language's fields."""
    return [phrase_clause(form, form_fields(config, language))
            for language, forms in (("en", concept.en), ("zh", concept.zh)) for form in forms]


def concept_query(concept: Concept, typed: Query, config: dict, share: float = 1.0) -> Query:
    """The best of the words as typed and the concept's other forms as phrases (dis_max: a concept with many
    forms, or typed in its own words, does not add up), plus the concept's tag: it lets in the papers the tagger
    found (a nested or unlisted form) and adds the same to every tagged paper, so it never decides their order;
    the words in the paper's own text do (DECISIONS.md "Ranking: the tag lets papers in, the words order them").
    `share`: the part of the concept's weight this clause carries when the concept's words are several
    clauses."""
    settings = config["cross_lingual"]
    forms: Query = {"dis_max": {"queries": form_phrases(concept, config), "tie_breaker": settings["tie_breaker"]}}
    tag = concept_tag(concept, settings, share)
    if share != 1:
        forms["dis_max"]["boost"] = round(share, 4)
    words: Query = {"dis_max": {"queries": [typed, forms]}} if forms["dis_max"]["queries"] else typed
    return any_of([words, tag])


def concept_tag(concept: Concept, settings: dict, share: float = 1.0) -> Query:
    """The papers tagged with the concept, scored by how rare it is: a term query on the keyword tag field is
    BM25 without term frequency or length, i.e. idf × concept_boost, the same for every tagged paper."""
    field = concepts_config()["field"]
    boost = round(settings["concept_boost"] * share, 4)
    tags = [{"term": {field: {"value": i, "boost": boost}}} for i in concept.ids]
    return tags[0] if len(tags) == 1 else {"dis_max": {"queries": tags}}


# --- phrases, closeness, fields, exclusions --------------------------------------------------------------


def phrase_clause(phrase: str, fields: dict[str, float] | list[str], slop: int = 0) -> Query:
    names = boosted(fields) if isinstance(fields, dict) else list(fields)
    query: Query = {"query": phrase, "type": "phrase", "fields": names}
    if slop:
        query["slop"] = slop
    return {"multi_match": query}


def phrase_clauses(phrases: list[str], config: dict) -> list[Query]:
    return [phrase_clause(p, config["query_fields"]) for p in phrases]


def proximity_boost(terms: list[str], config: dict) -> Query | None:
    """Rank documents where the words appear close together (as typed) above scattered matches; for
    longer queries also each pair of neighbouring words (see DECISIONS.md "Proximity for long queries")."""
    if len(terms) < 2 and not any(has_cjk(t) for t in terms):
        return None
    whole = phrase_clause(" ".join(terms), config["phrase_fields"], slop=config.get("phrase_slop", 0))
    pairs = word_pair_clauses(terms, config)
    return bool_query(should=[whole, *pairs]) if pairs else whole


def word_pair_clauses(terms: list[str], config: dict) -> list[Query]:
    """Neighbouring Latin-script words as short sloppy phrases, when the query has enough words."""
    settings = config["word_pairs"]
    if len(terms) < settings["min_words"]:
        return []
    out = []
    for first, second in itertools.pairwise(terms):
        if has_cjk(first) or has_cjk(second):
            continue  # a Chinese run is already a phrase of its own characters
        pair = phrase_clause(f"{first} {second}", settings["fields"], slop=settings["slop"])
        pair["multi_match"]["boost"] = settings["boost"]
        out.append(pair)
    return out


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
    return any_of(alternatives)


def field_clause(clause: Clause, config: dict) -> Query:
    """title:/abstract:/topic:/author: with a word or a phrase, over that field's aliases."""
    if clause.field == "author":
        return author_clause(clause, config)
    fields = alias_fields(clause.field or "", config)
    if clause.phrase:
        return phrase_clause(clause.text, fields)
    return {"multi_match": {"query": clause.text, "type": "best_fields", "fields": boosted(fields),
                            "operator": "and"}}


def exclusion_clauses(excluded: list[Clause], config: dict) -> list[Query]:
    """-word, -"phrase", -field:…: what no result may contain."""
    out: list[Query] = []
    for clause in excluded:
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
