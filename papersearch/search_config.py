"""The "search" section of config/index.json as typed, validated settings.

Validated once, when the webapp or the indexer starts: an unknown or misspelt key, a value of the wrong type or
a facet of an unknown type fails there, naming the key's path (search.facets.1.size), not at the first request
that reads it. Field names are the JSON keys (an alias where a key is no Python name: "_comment", "from"), so an
entry added to the file is added here under the same name. What goes to Elasticsearch verbatim (the sort
clauses) stays JSON.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from papersearch.config_section import Section
from papersearch.gloss_config import Glosses
from papersearch.meaning_config import Meaning

M = TypeVar("M", bound=BaseModel)
Number = int | float  # smart union: 6 stays 6 and 0.5 stays 0.5, so request bodies keep the file's numbers
Weights = dict[str, Number]  # field → boost
ByLanguage = dict[Literal["en", "zh"], Number]


class Rescore(Section):
    window: int
    query_weight: Number
    rescore_query_weight: Number


class Typos(Section):
    min_length: int
    author_min_length: int
    boost: Number
    fuzziness: str
    prefix_length: int
    max_expansions: int


class Spelling(Section):
    min_length: int
    max_words: int
    fields: list[str]
    max_edits: int
    prefix_length: int
    size: int
    rare_below: int
    commoner: Number
    min_freq: int
    close: Number
    near: Number
    zh_min_length: int
    zh_candidates: int


class WordPairs(Section):
    min_words: int
    fields: Weights
    slop: int
    boost: Number


class Relaxation(Section):
    below: int
    minimum_should_match: str
    term_minimum_should_match: str
    all_words_boost: Number
    all_words_typos_boost: Number
    word_boost: Number
    surface_fuzziness: str


class CrossLingual(Section):
    max_forms: int
    form_fields: dict[Literal["en", "zh"], list[str]]
    max_concepts: int
    max_term_length: int
    concept_boost: Number
    form_weight: ByLanguage
    same_language_weight: Number
    variant_of_name_weight: Number
    other_language_weight: ByLanguage
    name_gaps: int = 0
    tie_breaker: Number


class TypedNames(Section):
    introduced_boost: Number
    surname_boost: Number


class FieldAliases(Section):
    """The fields a field clause (title:…, author:…) searches."""

    title: list[str]
    author: list[str]
    abstract: list[str]
    topic: list[str]


class HighlightField(Section):
    number_of_fragments: int | None = None
    fragment_size: int | None = None
    no_match_size: int | None = None
    matched_fields: list[str] = Field(default_factory=list)


class Highlight(Section):
    pre_tags: list[str]
    post_tags: list[str]
    encoder: str
    fields: dict[str, HighlightField]

    def body(self) -> dict[str, Any]:
        """The highlight section of a request, as the file writes it."""
        return self.model_dump(exclude_defaults=True)


# --- facets: one model per kind, told apart by "type" --------------------------------------------------------


class FacetBase(Section):
    name: str


class Level(Section):
    param: str
    field: str
    size: int


class HierarchyFacetConfig(FacetBase):
    """Values in levels (areas, and under each its subareas), each level its URL parameter and field."""

    type: Literal["hierarchy"]
    levels: Annotated[list[Level], Field(min_length=2, max_length=2)]

    def params(self) -> list[str]:
        return [level.param for level in self.levels]


class IntegerLimits(Section):
    min: int
    max: int


class RangeParams(Section):
    """The URL parameters of a range's bounds."""

    from_: str = Field(alias="from")
    to: str


class HistogramConfig(Section):
    interval: int
    max_bars: int


class TermsFacetConfig(FacetBase):
    """One field's values (venue, year); `integer` for whole numbers, `range` for from/to bounds on them,
    `histogram` for a chart of papers per value, `allowed` when only those values exist (record type, language): the
    URL may carry no other (an enum in the OpenAPI document; DECISIONS.md D-178)."""

    type: Literal["terms"]
    param: str
    field: str
    size: int
    integer: IntegerLimits | None = None
    range: RangeParams | None = None
    histogram: HistogramConfig | None = None
    labels: str | None = None  # the values' labels are the translations <labels>.<value>
    allowed: Annotated[list[str], Field(min_length=1)] | None = None

    def params(self) -> list[str]:
        """The URL parameters of its values and bounds."""
        return [self.param, *([self.range.from_, self.range.to] if self.range else [])]

    @model_validator(mode="after")
    def _range_needs_integers(self) -> TermsFacetConfig:
        if (self.range or self.histogram) and self.integer is None:
            raise ValueError(f"facet {self.name!r} has a range or histogram but no integer min/max")
        if self.allowed and self.integer:
            raise ValueError(f"facet {self.name!r} has both allowed values and integer limits")
        return self


FacetConfig = Annotated[HierarchyFacetConfig | TermsFacetConfig, Field(discriminator="type")]


# --- the rest ------------------------------------------------------------------------------------------------


class Names(Section):
    # The spellings of a surname one look-up groups into people: what an author page may cost (DECISIONS.md D-180).
    candidates: Annotated[int, Field(ge=1, le=10_000)]
    people: Annotated[int, Field(ge=1)]


class Groups(Section):
    papers: int
    min_papers: int
    # A Latin-script name of one first name: co-author circles of at least coauthor_min_papers papers each
    # (papers without a co-author are in none): two of them are several people (DECISIONS.md D-208).
    coauthor_min_papers: Annotated[int, Field(ge=2)]
    coauthor_circles: Annotated[int, Field(ge=2)]  # or this many circles, none with half of the papers


class TopicPage(Section):
    newest: int
    authors: int
    concepts: int
    concept_papers: int


class Profiles(Section):
    sort: str
    query_sort: str
    coauthors: int
    spellings: Annotated[int, Field(ge=1)]  # names counted on a person's papers: every spelling of theirs is among them
    names: Names
    groups: Groups
    topic: TopicPage


class LargeIndex(Section):
    above: int
    sample: int
    seed: int


class ResultCache(Section):
    within: Annotated[int, Field(ge=0)]

    def covers(self, offset: int, size: int) -> bool:
        """Whether a page of hits from `offset` asks for the shard request cache (DECISIONS.md D-228)."""
        return offset + size <= self.within


class QueryCost(Section):
    max_clauses: int
    clauses_per_unit: int
    concept_units: int
    results_per_unit: int
    max_units: int
    max_concurrent_units_per_client: int


class Similar(Section):
    fields: list[str]
    min_term_freq: int
    min_doc_freq: int
    max_query_terms: int
    minimum_should_match: str


class SearchConfig(Section):
    query_fields: Weights
    phrase_fields: Weights
    phrase_slop: int
    word_tie_breaker: Number
    function_words: frozenset[str] = frozenset()
    other_script_weight: Number
    typed_names: TypedNames
    topic_boost: ByLanguage
    rescore: Rescore
    typos: Typos
    spelling: Spelling
    word_pairs: WordPairs
    relaxation: Relaxation
    cross_lingual: CrossLingual
    glosses: Glosses
    field_aliases: FieldAliases
    highlight: Highlight
    facets: list[FacetConfig]
    sorts: dict[str, list[dict[str, Any]]]  # Elasticsearch sort clauses, sent as written
    default_sort: str
    page_sizes: Annotated[list[int], Field(min_length=1)]
    default_page_size: int
    max_result_window: int
    profiles: Profiles
    large_index: LargeIndex
    result_cache: ResultCache
    max_query_length: int
    max_searched_length: int
    query_cost: QueryCost
    suggest_field: str
    similar: Similar
    meaning: Meaning

    @model_validator(mode="after")
    def _names_agree(self) -> SearchConfig:
        """Names that point at other entries: a sort, a facet's name and URL parameters."""
        for where, sort in (("default_sort", self.default_sort), ("profiles.sort", self.profiles.sort),
                            ("profiles.query_sort", self.profiles.query_sort)):
            if sort not in self.sorts:
                raise ValueError(f"{where} {sort!r} is none of the sorts ({', '.join(self.sorts)})")
        names = [f.name for f in self.facets]
        if len(set(names)) < len(names):
            raise ValueError(f"facet names repeat: {names}")
        params = [p for f in self.facets for p in f.params()]
        if len(set(params)) < len(params):
            raise ValueError(f"facets' URL parameters repeat: {params}")
        return self


class ConfigError(ValueError):
    """config/index.json is not what the code reads: which keys, and what is wrong with each."""


def key_path(data: Any, error: ErrorDetails) -> list[str]:
    """A pydantic error's location as the keys of the file: without the union tags pydantic puts in between
    ("facets.1.terms.size" is the file's facets.1.size), and a facet's unknown type at its "type"."""
    path: list[str] = []
    loc = error["loc"]
    for i, part in enumerate(loc):
        if isinstance(data, dict) and part not in data and not (i == len(loc) - 1 and error["type"] == "missing"):
            continue  # a tag, not a key
        path.append(str(part))
        data = data[part] if isinstance(data, dict | list) and _has(data, part) else None
    return [*path, "type"] if error["type"] == "union_tag_invalid" else path


def _has(data: dict[str, Any] | list[Any], part: str | int) -> bool:
    return part in data if isinstance(data, dict) else isinstance(part, int) and 0 <= part < len(data)


def validated(model: type[M], section: dict[str, Any], where: str = "search") -> M:
    """The section as `model`, or a ConfigError naming each offending key's path in the file."""
    try:
        return model.model_validate(section)
    except ValidationError as exc:
        problems = [f"{'.'.join([where, *key_path(section, e)])}: {e['msg']}" for e in exc.errors()]
        raise ConfigError("config/index.json: " + "; ".join(problems)) from None
