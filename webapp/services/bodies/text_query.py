"""The words of a search together, with the concepts recognised among them, as Elasticsearch queries: each word
one clause (clauses.term_clause), a concept the best of the words as typed, its name in the other language scored
as typed words there, its other forms as phrases, and its tag (DECISIONS.md D-033, D-140). Called by render.py; every
number comes from config/index.json.
"""

from __future__ import annotations

from papersearch.concepts.english import is_acronym, spelling_key
from papersearch.index_definition import concepts_config
from papersearch.text import ENGLISH_STOPWORDS, has_cjk
from webapp.services.bodies import clauses as cl
from webapp.services.bodies.glosses import with_glosses
from webapp.services.es_syntax import Query, all_of, any_of, bool_query, named
from webapp.services.plan.words import Concept, Text, Word
from webapp.services.query.parser import words_of
from webapp.services.search_settings import WebSearchConfig

WORD_QUERY = "word:"  # a relaxed word's clause is named word:<i>, so each hit tells which words it has


def word_name(index: int) -> str:
    return f"{WORD_QUERY}{index}"


def text_query(text: Text, config: WebSearchConfig, fuzzy: bool = True) -> Query | None:
    """Each word one clause, `required` of them; with other_language, papers in that language may match the concepts
    alone. Every word required: a concept's words are one clause (_every_word). Relaxed: each word a clause named
    word:<i>, and the other language a branch of its own. fuzzy=False: without the typo fallbacks."""
    if not text.words:
        return None
    if not text.relaxed:
        return _every_word(text, config, fuzzy)
    clauses = [named(_counted(_word_query(w, text, config, fuzzy), config), word_name(w.index)) for w in text.words]
    as_typed = any_of(clauses, text.required)
    if not text.other_language:
        return as_typed
    groups = [concept_query(c, all_of([_typed(w, text, config, fuzzy) for w in text.words
                                       if c.first <= w.index <= c.last]), config) for c in text.groups]
    groups += [_inside_query(w, config) for w in text.words if w.inside]
    others = [w for w in text.words if not (w.concept or w.inside)]
    in_other_language = bool_query(
        must=groups, should=[cl.term_clause(w.text, config) for w in others],
        filter=[{"term": {concepts_config()["language_field"]: text.other_language}}])
    return any_of([as_typed, in_other_language])


def _every_word(text: Text, config: WebSearchConfig, fuzzy: bool) -> Query:
    """Every word must match; with other_language, a paper in that language needs only the concepts, the other words
    scored where it has them. One clause per word, a concept's words one clause, so each concept's forms are
    searched once (DECISIONS.md D-224, D-225)."""
    clauses = _grouped(text, config, fuzzy)
    if text.other_language:
        in_other = _unscored({"term": {concepts_config()["language_field"]: text.other_language}})
        clauses = [(c if ws[0].concept or ws[0].inside else any_of([c, in_other]), ws) for c, ws in clauses]
    return any_of([c for c, _ in clauses], len(clauses))


def _grouped(text: Text, config: WebSearchConfig, fuzzy: bool) -> list[tuple[Query, list[Word]]]:
    """Each word one clause, but a concept typed as several words one clause for them all, so its other forms are
    matched once, not once per word (DECISIONS.md D-224). Which papers match is the same (each word as typed or in
    the topic labels, or the concept); a paper with all the words scores their sum, one in the other language the
    concept's forms in full, as the words' shares added up to before."""
    spans: dict[tuple[int, int], list[Word]] = {}
    for w in text.words:
        key = (w.concept.first, w.concept.last) if w.concept and w.share != 1 else (w.index, -1)
        spans.setdefault(key, []).append(w)
    return [(_concept_words(ws, text, config, fuzzy) if len(ws) > 1 else _word_query(ws[0], text, config, fuzzy), ws)
            for ws in spans.values()]


def _concept_words(words: list[Word], text: Text, config: WebSearchConfig, fuzzy: bool) -> Query:
    """A concept's words together: all of them as typed (each word's topic labels may stand in for it, as alone),
    or the concept once; the labels' constants added beside, as a word's are."""
    lifts = [_lifts(w, text, config) for w in words]
    typed = [any_of([_typed(a, text, config, fuzzy) for a in (w, *w.alternatives)]) for w in words]
    inside = all_of([any_of([t, *(_unscored(lift["constant_score"]["filter"]) for lift in ls)])
                     for t, ls in zip(typed, lifts, strict=True)])
    concept = concept_query(words[0].concept, inside, config)  # type: ignore[arg-type]
    extra = [lift for ls in lifts for lift in ls]
    return bool_query(must=[concept], should=extra) if extra else concept


def _unscored(condition: Query) -> Query:
    """A condition that lets a paper in without adding to its score."""
    return {"constant_score": {"filter": condition, "boost": 0}}


def _lifts(word: Word, text: Text, config: WebSearchConfig) -> list[Query]:
    lifts = [cl.topic_lift(w.text, config, text.relaxed) for w in (word, *word.alternatives)]
    if len(text.words) == 1 and not word.alternatives:  # one word alone: perhaps an author's surname (D-211)
        lifts.append(cl.surname_lift(word.text, config))
    return [x for x in lifts if x]


def _counted(clause: Query, config: WebSearchConfig) -> Query:
    """A relaxed word's clause with relaxation.word_boost added where it matches: papers with more of the words
    come first, each group in its own order (a paper with two of four words said often ranked above one with three:
    issue 57.6, DECISIONS.md D-203)."""
    return {"function_score": {"query": clause, "functions": [{"weight": config.relaxation.word_boost}],
                               "boost_mode": "sum"}}


def _typed(word: Word, text: Text, config: WebSearchConfig, fuzzy: bool) -> Query:
    return cl.term_clause(word.text, config, word.typos if fuzzy else "", text.relaxed, unit=bool(word.concept))


def _word_query(word: Word, text: Text, config: WebSearchConfig, fuzzy: bool) -> Query:
    typed = any_of([_typed(w, text, config, fuzzy) for w in (word, *word.alternatives)])
    if word.concept:
        clause = concept_query(word.concept, typed, config, word.share)
    else:  # a run's concepts inside, its words beyond the glossary in English (D-217): other ways to match it
        other = with_glosses(word, _inside_query(word, config) if word.inside else None, config)
        clause = any_of([typed, other]) if other else typed
    return any_of([clause, *_lifts(word, text, config)])


def _inside_query(word: Word, config: WebSearchConfig) -> Query:
    """A long Chinese term's concepts: all of them, each as typed or as the concept."""
    return all_of([concept_query(c, cl.term_clause(c.typed, config, unit=True), config) for c in word.inside])


def form_fields(config: WebSearchConfig, language: str) -> dict[str, float]:
    """Where a concept's other forms are searched: the text fields of one script that cross_lingual.form_fields
    names, at their query_fields boosts. Not the authors (a concept is not a name), not the topic labels (the
    taxonomy is bilingual already: the words as typed reach them), not the English exact subfields (a phrase
    on the stemmed field finds the same papers; DECISIONS.md D-099).
    Forms on titles alone would be cheaper, but lose the papers whose abstract names a concept only inside a
    longer one, untagged (DECISIONS.md D-099)."""
    return {name: config.query_fields[name] for name in config.cross_lingual.form_fields[language]}


def _typed_language(concept: Concept) -> str:
    return "zh" if has_cjk(concept.typed) else "en"


def _typed_the_name(concept: Concept) -> bool:
    """The concept's own name was typed (its id spells it: "optimization"), not a variant of it ("optimisation")."""
    typed = " ".join(concept.typed.casefold().split())  # as spelt: glossary.form_key would equate the variants
    return any(i.replace("_", " ") == typed for i in concept.ids)


def form_phrases(concept: Concept, config: WebSearchConfig) -> list[Query]:
    """Each other form of the concept, in both languages, as a phrase on its language's fields (the names scored
    as words apart). In the other language at form_weight of its name's weight: an acronym (RL) or an English
    synonym lets its papers in below those that use the name (form_weight.en); a Chinese synonym weighs as its
    name (form_weight.zh 1: 船舶, 舰船 and 船体 are one concept's words). In the typed language at
    same_language_weight, but a variant spelling of the name when the name itself was typed at
    variant_of_name_weight: optimisation, rarer and so higher in idf, must not outscore the word typed, while a
    variant typed (normalisation) finds the name's papers in full and synonyms (Langevin Monte Carlo for Langevin
    dynamics) keep theirs; at full weight when an acronym was typed (LLM: its forms are what it stands for).
    DECISIONS.md D-140, D-142."""
    settings = config.cross_lingual
    typed_language = _typed_language(concept)
    typed_acronym = typed_language == "en" and any(is_acronym(w) for w in concept.typed.split())
    names = {name for _, name in concept.names}
    out = []
    for language, forms in (("en", concept.en), ("zh", concept.zh)):
        if language != typed_language:
            weight = settings.other_language_weight[typed_language] * settings.form_weight[language]
        elif typed_acronym:
            weight = 1.0
        else:
            weight = settings.same_language_weight
        name_typed = language == typed_language == "en" and not typed_acronym and _typed_the_name(concept)
        for form in forms:
            if form in names:
                continue
            if name_typed and spelling_key(form) == spelling_key(concept.typed):
                # scored as the typed word is (cross_fields: one document frequency over the fields), not as a
                # phrase per field, where the rare spelling's title idf outscored the word typed (D-174)
                out.append({"bool": {"must": [cl.term_clause(form, config)],
                                     "boost": settings.variant_of_name_weight}})
                continue
            phrase = cl.phrase_clause(form, form_fields(config, language))
            if weight != 1:  # synonyms keep their weight
                phrase["multi_match"]["boost"] = round(weight, 4)
            out.append(phrase)
    return out


def name_query(concept: Concept, language: str, name: str, config: WebSearchConfig) -> Query:
    """A concept's name in the language it was not typed in, as that language's typed words score (each English
    word across the fields: term frequency, length, fields as typed; closeness in the rescore, Page.close_names;
    a Chinese name as one run on the titles and abstracts, where the graded papers name it: not the keyword
    lists, which put papers that name it once first), at other_language_weight of the typed language: on a site
    of mostly English papers a Chinese query's main case is the English papers (1), while an English query's
    Chinese papers with the name in a short title must not come before the English papers with the word typed
    (DECISIONS.md D-142)."""
    if language == "zh":
        query = cl.phrase_clause(name, form_fields(config, language))
    else:  # the words score; the name as a phrase decides which papers match ("contrast … learning" does not)
        words = [cl.term_clause(w, config) for w in words_of(name) if w.casefold() not in ENGLISH_STOPWORDS]
        query = bool_query(must=words, filter=[name_window(name, config)])
    weight = cl.name_weight(name, config)
    return query if weight == 1 else {"bool": {"must": [query], "boost": weight}}


def name_window(name: str, config: WebSearchConfig) -> Query:
    """Which papers a concept's English name lets in: the name as a phrase (stemmed: "predicting protein
    structures"), or its words as written within name_gaps of each other in any order on an unstemmed field
    ("structure prediction of large protein complexes"; not "the contrast of scans; learning …", whose contrast
    is not contrastive). DECISIONS.md D-170."""
    fields = form_fields(config, "en")
    phrase = cl.phrase_clause(name, fields)
    gaps = config.cross_lingual.name_gaps
    exact = [f"{f}.exact" for f in fields if f"{f}.exact" in config.query_fields]
    if not gaps or not exact:
        return phrase
    rule = {"match": {"query": name, "max_gaps": gaps, "ordered": False}}
    return any_of([phrase, *({"intervals": {f: rule}} for f in exact)])


def concept_query(concept: Concept, typed: Query, config: WebSearchConfig, share: float = 1.0) -> Query:
    """The best of the words as typed, the concept's name in the other language scored as typed words there,
    and its other forms as phrases (dis_max: a concept with many forms, or typed in its own words, does not add
    up), plus the concept's tag: it lets in the papers the tagger found (a nested or unlisted form) and adds the
    same to every tagged paper, so it never decides their order; the words in the paper's own text do
    (DECISIONS.md D-087, D-140). `share`: the part of the concept's weight this clause carries when the
    concept's words are several clauses."""
    settings = config.cross_lingual
    others = [name_query(concept, language, name, config) for language, name in concept.names]
    others += form_phrases(concept, config)
    forms: Query = {"dis_max": {"queries": others, "tie_breaker": settings.tie_breaker}}
    tag = concept_tag(concept, settings, share)
    if share != 1:
        forms["dis_max"]["boost"] = round(share, 4)
    words: Query = {"dis_max": {"queries": [typed, forms]}} if others else typed
    return any_of([words, tag])


def concept_tag(concept: Concept, settings: dict, share: float = 1.0) -> Query:
    """The papers tagged with the concept, scored by how rare it is: a term query on the keyword tag field is
    BM25 without term frequency or length, i.e. idf × concept_boost, the same for every tagged paper."""
    field = concepts_config()["field"]
    boost = round(settings.concept_boost * share, 4)
    tags = [{"term": {field: {"value": i, "boost": boost}}} for i in concept.ids]
    return tags[0] if len(tags) == 1 else {"dis_max": {"queries": tags}}
