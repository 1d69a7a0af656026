"""The "glosses" part of config/index.json's search section: Chinese words beyond the glossary, in English
(webapp/services/query/glosses.py, DECISIONS.md D-217). A section of papersearch/search_config.py, kept apart."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from papersearch.config_section import Section


class Glosses(Section):
    enabled: bool
    weight: Annotated[float, Field(ge=0)]  # below cross_lingual's concept forms in the other language
    per_word: Annotated[int, Field(ge=1)]  # the first glosses of a word
    max_gloss_words: Annotated[int, Field(ge=1)]  # a longer gloss is left out
    max_terms: Annotated[int, Field(ge=0)]  # the glosses added to one query, in all: the one cap
    min_word_length: Annotated[int, Field(ge=1)]  # characters of a Chinese word looked up
    min_words_alone: Annotated[int, Field(ge=1)]  # glossed words a run with no concept needs (a keyword has 1-2)
    minimum_should_match: str  # of a run's words, for an English paper with no concept of the run
    stop_words: frozenset[str] = frozenset()  # Chinese words never looked up
