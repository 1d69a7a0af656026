"""The words of the search box as Elasticsearch clauses: each word across fields with its typo fallback,
phrases, proximity, field clauses and exclusions. Pure functions over config/index.json; render.py assembles
them as a plan (plan.py) says. User text only ever reaches Elasticsearch inside match / match_phrase /
multi_match / intervals queries, never query_string (see DECISIONS.md "User text never becomes query syntax").
"""

from __future__ import annotations

import itertools
from typing import Any

from papersearch.text import has_cjk
from webapp.services import relaxation as rx
from webapp.services.query_parser import LATIN_WORD, Clause, ParsedQuery

Query = dict[str, Any]
# Typo tolerance for every word (True), none (False), or only the words in the set (case-folded).
Fuzzy = bool | frozenset[str]

FUZZY_MIN_LENGTH = 5  # shorter words have too many one-edit neighbours
# Four-letter words: one edit in author names only (Zeev → Ze'ev); prefix_length keeps Dong from Yong.
AUTHOR_FUZZY_MIN_LENGTH = 4
FUZZY_BOOST = 0.2  # a fuzzy match only ranks below every exact one


# --- words --------------------------------------------------------------------------------------------


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


def term_clause(term: str, config: dict, fuzzy: Fuzzy = True, relaxed: bool = False) -> Query:
    """One search-box word: all its tokens must match (relaxed: most of them), each in any field.

    cross_fields blends each token's document frequency over the fields of one analyzer, so a word is
    as common in the short topic and author fields as it is in the abstracts; with per-field statistics
    "neural" in a topic outweighed a rare word of the abstract (see DECISIONS.md "Words scored across
    fields").
    """
    exact: Query = {
        "multi_match": {
            "query": term, "type": "cross_fields", "fields": boosted(config["query_fields"]),
            "operator": "and", "tie_breaker": config["word_tie_breaker"],
            # A stopword analyses to nothing in the stemmed fields; let it match there rather than veto.
            "zero_terms_query": "all",
        }
    }
    if relaxed:  # a word cut in two by a paste ("ov稳定性原理", "nylamine,NPB") matches by its other tokens
        exact["multi_match"].update(operator="or", minimum_should_match=rx.tokens_required(config))
    wanted = fuzzy if isinstance(fuzzy, bool) else term.casefold() in fuzzy
    fallback = fuzzy_clause(term, config) if wanted else None
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
    return {"bool": {"should": [whole, *pairs]}} if pairs else whole


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


def has_typo_fallback(parsed: ParsedQuery, config: dict) -> bool:
    """Whether the fuzzy form of this query differs from the exact one."""
    return any(fuzzy_clause(term, config) for term in parsed.terms)


def typo_words(terms: list[str], unknown: frozenset[str], config: dict) -> frozenset[str]:
    """The words worth typo tolerance: those no paper contains as typed that have a fuzzy form. Fuzzy
    matching costs several times an exact word, so known words go without it (see DECISIONS.md
    "Relaxation ladder")."""
    return frozenset(t.casefold() for t in terms if t.casefold() in unknown and fuzzy_clause(t, config))
