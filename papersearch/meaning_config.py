"""The "meaning" part of config/index.json's search section: search by meaning beside the words (papersearch/meaning.py,
webapp/services/by_meaning.py, DECISIONS.md D-198, D-219). A section of papersearch/search_config.py, kept apart."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from papersearch.config_section import Section


class GlossedQuestions(Section):
    """A question whose words cross the language line only through the dictionary's glosses (min_glossed_words or
    more of them): its words' order of the other language's papers is the dictionary's guess, so meaning's k nearest
    are fused with the words fully (neither keeps its order), at weight (DECISIONS.md D-219)."""

    min_glossed_words: Annotated[int, Field(ge=1)]
    weight: Annotated[float, Field(ge=0)]
    k: Annotated[int, Field(ge=1, le=1000)]


class Meaning(Section):
    """Search by meaning (papersearch/meaning.py): the vector field, the kNN and its fusion with the words."""

    enabled: bool
    field: str
    k: Annotated[int, Field(ge=1, le=1000)]
    num_candidates: Annotated[int, Field(ge=1, le=10_000)]
    weight: Annotated[float, Field(ge=0)]
    rank_constant: Annotated[int, Field(ge=1)]
    window: Annotated[int, Field(ge=1, le=1000)]
    similar_weight: Annotated[float, Field(ge=0)]
    keep_word_order: bool  # meaning slots its papers in among the word matches without reordering them
    # The least cosine a paper must have to the query's (min_similarity) or the liked paper's vector
    # (similar_min_similarity) to come by meaning: the nearest k are found for any text, related or not.
    min_similarity: Annotated[float, Field(ge=-1, le=1)]
    similar_min_similarity: Annotated[float, Field(ge=-1, le=1)]
    batch: Annotated[int, Field(ge=1, le=4096)]
    text_chars: Annotated[int, Field(ge=1)]
    glossed_questions: GlossedQuestions

    @model_validator(mode="after")
    def _enough_candidates(self) -> Meaning:
        if self.num_candidates < max(self.k, self.glossed_questions.k):
            raise ValueError(f"num_candidates {self.num_candidates} is below k {max(self.k, self.glossed_questions.k)}")
        return self
