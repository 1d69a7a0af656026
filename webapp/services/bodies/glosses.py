"""A Chinese run's words beyond the glossary as English papers may match them (DECISIONS.md D-217): each word the best
of its CC-CEDICT glosses as phrases on the English form fields (cross_lingual.form_fields.en), at glosses.weight, below
the glossary's concept forms. A run with glossary concepts inside keeps needing them: the glosses only order the papers
the concepts let in (a should clause beside them); a run with none lets in the English papers with
glosses.minimum_should_match of its words. Called by text_query.py."""

from __future__ import annotations

from papersearch.index_definition import concepts_config
from webapp.services.bodies import clauses as cl
from webapp.services.es_syntax import Query, bool_query
from webapp.services.plan.words import Word
from webapp.services.search_settings import WebSearchConfig


def gloss_words(word: Word, config: WebSearchConfig) -> list[Query]:
    """Each of the run's words as the best of its glosses."""
    fields = {name: config.query_fields[name] for name in config.cross_lingual.form_fields["en"]}
    out = []
    for _, found in word.glosses:
        phrases = [cl.phrase_clause(g, fields) for g in found]
        out.append(phrases[0] if len(phrases) == 1 else {"dis_max": {"queries": phrases}})
    return out


def with_glosses(word: Word, concepts: Query | None, config: WebSearchConfig) -> Query | None:
    """The run's other way to match with its glosses: its concepts (`concepts`, what the run's inside concepts
    require) ordered by the glosses too, or, with none, the English papers with enough of its words in English."""
    if not word.glosses:
        return concepts
    settings = config.glosses
    words = gloss_words(word, config)
    if concepts is not None:
        return bool_query(must=[concepts], should=[bool_query(should=words, boost=settings.weight)])
    return bool_query(should=words, filter=[{"term": {concepts_config()["language_field"]: "en"}}],
                      minimum_should_match=settings.minimum_should_match, boost=settings.weight)
