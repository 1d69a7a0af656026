"""Request arguments → SearchParams or a suggestion prefix: normalised, length-checked and validated here, once,
for every route that takes a search (the pages, the API, author pages, feeds and exports: `search_params` of the
route's own documented model, DECISIONS.md D-178).

The argument models are built from config/index.json when the app starts (`RequestArgs(config)`); the
same models generate the OpenAPI parameters (webapp/openapi.py), so the document declares exactly what
is validated (see DECISIONS.md D-025). Limits apply to the values
as sent; whitespace is collapsed afterwards. An empty value (`?page=`) is the same as leaving the
parameter out (a repeatable one's empty repetitions count towards its MAX_FILTER_VALUES, as the document's
maxItems counts them); a parameter that is not repeatable may be given once.

Every number that comes in has a range, declared once (DECISIONS.md D-078). A route of its own declares its arguments
as a model on `Args` with integers from `bounded()`,
documents them with `openapi.query_parameters(model)` and parses them with `RequestArgs.validate`: the
document then shows the minimum and maximum, and a value outside them is a 400 (JSON under /api, the
error page elsewhere) naming the parameter and the range, never a 500.
"""

from __future__ import annotations

import functools
import re
import typing
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model
from pydantic_core import PydanticCustomError
from werkzeug.datastructures import MultiDict

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import SearchParams
from webapp.serializers.citation_fields import FORMATS as CITATION_FORMATS
from webapp.services.query.parser import FACET_PREFIXES_ZH, take_filters, year_span
from webapp.services.search_settings import WebSearchConfig

# Per parameter; more is a malformed or hostile URL, not a person. Every value is echoed in every link of the
# page (facets, chips, pagination), so the page grows with the square of their number: at 50 per parameter a
# 4.9 KB URL bought 2.72 MB of HTML (DECISIONS.md D-124).
MAX_FILTER_VALUES = 10
MAX_FILTER_LENGTH = 300
# "Area > Subarea": something on both sides of the first separator. "Something" is not blank in Python's
# sense nor in ECMA-262's, which the OpenAPI document's readers use: each counts characters as blank that the
# other does not (\x1c-\x1f and \x85; \ufeff), so `\S` would let a checker send what we refuse.
_SEP = re.escape(PATH_SEPARATOR.strip())
_BLANK = r"\s\x1c-\x1f\x85\ufeff"
SUBAREA_PATTERN = rf"^[^{_SEP}]*[^{_SEP}{_BLANK}][^{_SEP}]*{_SEP}.*[^{_BLANK}].*$"


class ParamError(Exception):
    """A bad request parameter. `key` names a translation; `values` fill it in; answered with `status`."""

    status = 400

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


def collapse(value: str) -> str:
    return " ".join(value.split())


def _distinct(values: list) -> list:
    """Whitespace collapsed, blanks and repeats dropped (a link may carry a value twice), order kept."""
    cleaned = (collapse(v) if isinstance(v, str) else v for v in values)
    return list(dict.fromkeys(v for v in cleaned if v != ""))


def _one_of(allowed: tuple[int, ...]):
    def check(value: int) -> int:
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(map(str, allowed))}")
        return value
    return check


class Args(BaseModel):
    """The base of every argument model. `messages`: a parameter's own translation for a value outside its enum
    or range (filled in with value, allowed or low/high), where the generic one would say less."""

    # Python's regular expressions, like the generators that test the OpenAPI document against us.
    model_config = ConfigDict(regex_engine="python-re", extra="ignore")
    messages: ClassVar[dict[str, str]] = {}


_INTEGER_TEXT = re.compile(r"\s*[+-]?\d+\s*", re.ASCII)


def _integer_text(value: Any) -> Any:
    """Digits only, as the document's `integer` says ("1.0" and "1e3" are not page numbers)."""
    if isinstance(value, str) and not _INTEGER_TEXT.fullmatch(value):
        raise PydanticCustomError("int_parsing", "Input should be a valid integer")
    return value


def bounded(low: int, high: int) -> Any:
    """An integer from `low` to `high`: the one way to declare a number a URL may carry."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_integer_text)]


def _query(limit: int, description: str) -> Any:
    return Annotated[str, Field(max_length=limit, description=description), AfterValidator(collapse)]


def _filter(description: str, item: Any) -> Any:
    return Annotated[list[item], Field(max_length=MAX_FILTER_VALUES, description=description),
                     AfterValidator(_distinct)]


def _as_allowed(allowed: typing.Sequence[str]) -> typing.Callable[[Any], Any]:
    """A closed set's value in its own spelling whatever the case it came in (language=EN, type=Conference-paper:
    issue 57.7); anything else as it came, for the enum to refuse."""
    spelt = {value.casefold(): value for value in allowed}
    return lambda value: spelt.get(value.casefold(), value) if isinstance(value, str) else value


def _facet_fields(config: WebSearchConfig) -> dict[str, Any]:
    """One repeatable parameter per terms facet of config/index.json, and from/to for a facet's range (which
    the config's validation gives integer limits)."""
    fields: dict[str, Any] = {}
    for facet in config.terms_facets:
        name, limits = facet.name, facet.integer
        if limits:
            item: Any = bounded(limits.min, limits.max)
        elif facet.allowed:  # a closed set (record type, language): an enum in the document, whatever the case typed
            item = Annotated[typing.Literal[tuple(facet.allowed)], BeforeValidator(_as_allowed(facet.allowed))]
        else:
            item = Annotated[str, Field(max_length=MAX_FILTER_LENGTH)]
        fields[facet.param] = (_filter(f"{name.capitalize()} (repeatable; OR within the facet)", item), [])
        if facet.range and limits:
            bound = bounded(limits.min, limits.max) | None
            for param, word in ((facet.range.from_, "at least"), (facet.range.to, "at most")):
                fields[param] = (bound, Field(None, description=f"{name.capitalize()} {word}"))
    return fields


def search_args_model(config: WebSearchConfig, any_size: bool = False) -> type[BaseModel]:
    """Every parameter a search URL may carry, with the limits, patterns and defaults of config/index.json.

    The page offers `page_sizes`; with `any_size` (the API) every size from 1 to the largest is allowed."""
    sizes = tuple(config.page_sizes)
    sorts = tuple(config.sorts)
    text = Annotated[str, Field(max_length=MAX_FILTER_LENGTH)]
    if any_size:
        size_type: Any = bounded(1, max(sizes))
    else:
        size_type = Annotated[int, AfterValidator(_one_of(sizes)), Field(json_schema_extra={"enum": list(sizes)})]
    return create_model(
        "ApiSearchArgs" if any_size else "SearchArgs", __base__=Args,
        q=(_query(int(config.max_query_length),
                  'Words, "phrases", -excluded, word OR word, author:"…", title:"…", abstract:…, topic:…; '
                  'venue:… and year:… (year:2019-2021) become the venue and year filters. A longer query than '
                  f'{config.max_searched_length} characters or {config.query_cost.max_clauses} words is '
                  'searched cut to them (the result\'s `searched` is what was searched)'), ""),
        area=(_filter("Topic area (repeatable; OR within the facet)", text), []),
        subarea=(_filter('Subarea as "Area > Subarea" (repeatable)',
                         Annotated[str, Field(max_length=MAX_FILTER_LENGTH, pattern=SUBAREA_PATTERN)]), []),
        **_facet_fields(config),
        sort=(typing.Literal[sorts], Field(config.default_sort, description="Order of the results")),
        page=(bounded(1, SearchParams.deepest_page(config.max_result_window)),
              Field(1, description="Results page, from 1")),
        size=(size_type, Field(config.default_page_size, description="Results per page")),
        xl=(bool, Field(True, description="Also search the glossary concepts recognised in the query in the other "
                                          "language (0: only the words as typed)")),
        spell=(bool, Field(True, description="When no paper has the words as typed and a correction does, show "
                                             "the corrected query's results (0: only the words as typed)")),
    )


def _without(model: type[BaseModel], name: str, *left_out: str) -> type[BaseModel]:
    """The same argument model without some of its parameters."""
    fields = {n: (f.annotation, f) for n, f in model.model_fields.items() if n not in left_out}
    return create_model(name, __base__=Args, **fields)


class CitationArgs(Args):
    messages: ClassVar[dict[str, str]] = {"format": "error.citation_format"}
    format: typing.Literal[CITATION_FORMATS] = Field("bibtex", description="Citation format")


def suggest_args_model(config: WebSearchConfig) -> type[BaseModel]:
    return create_model("SuggestArgs", __base__=Args,
                        q=(_query(config.max_query_length, "The prefix typed so far"), ""))


class RequestArgs:
    """The argument models of one app (built once at start) and the parsing of request arguments."""

    def __init__(self, config: WebSearchConfig) -> None:
        self.config = config
        self.search_model = search_args_model(config)
        self.api_search_model = search_args_model(config, any_size=True)
        # An author page's: the search's but the order (newest first, by relevance with words) and corrections.
        self.author_model = _without(self.search_model, "AuthorArgs", "sort", "spell")
        self.api_author_model = _without(self.api_search_model, "ApiAuthorArgs", "sort", "spell")
        self.suggest_model = suggest_args_model(config)
        self.citation_model = CitationArgs

    def search(self, args: MultiDict, api: bool = False) -> SearchParams:
        """The search page's parameters, or (api) the API's, which allow any page size up to the largest."""
        return self.search_params(self.validate(self.api_search_model if api else self.search_model, args))

    def author(self, args: MultiDict, api: bool = False) -> SearchParams:
        """An author page's words, filters and page (the order is the page's own)."""
        return self.search_params(self.validate(self.api_author_model if api else self.author_model, args))

    def search_params(self, a: Any) -> SearchParams:
        """A validated model with the search's fields (any route's: page, API, author, feed, export) → the
        search. A model without page or size (feed, export: the route sets them) gets the first default page."""
        filters = {f.param: [str(v) for v in getattr(a, f.param)] for f in self.config.terms_facets}
        q, typed = self._typed_filters(a.q)
        ranges: dict[str, int] = {}
        for facet in self.config.terms_facets:
            spec, limits = facet.range, facet.integer
            for value in typed.get(facet.param, []):
                span = year_span(value) if spec else None  # 2019-2021, >2022, <=2020
                if facet.allowed:
                    value = _as_allowed(facet.allowed)(value)
                if span and limits and all(limits.min <= v <= limits.max for v in span if v is not None):
                    for param, v in zip((spec.from_, spec.to), span, strict=True):
                        if v is not None:
                            setattr(a, param, v)
                elif (value in facet.allowed if facet.allowed else not limits) or (
                        limits and value.isascii() and value.isdigit() and limits.min <= int(value) <= limits.max):
                    filters[facet.param] = _distinct(filters[facet.param] + [value])[:MAX_FILTER_VALUES]
                else:  # year:soon is no year, type:poem no record type: the words stay words
                    q = f"{q} {facet.param}:{value}".strip()
            if not spec:
                continue
            low, high = getattr(a, spec.from_), getattr(a, spec.to)
            if low is not None and high is not None and low > high:
                low, high = high, low  # typed the wrong way round: the years between them
            ranges |= {p: v for p, v in ((spec.from_, low), (spec.to, high)) if v is not None}
        return SearchParams(q=q, areas=a.area, subareas=a.subarea, filters={p: v for p, v in filters.items() if v},
                            ranges=ranges, sort=getattr(a, "sort", self.config.default_sort),
                            page=getattr(a, "page", 1), size=getattr(a, "size", self.config.default_page_size),
                            xl=a.xl, spell=getattr(a, "spell", True))

    def _typed_filters(self, q: str) -> tuple[str, dict[str, list[str]]]:
        """The query without the facet clauses typed in it, and their values by facet parameter."""
        prefixes = {f.param: f.param for f in self.config.terms_facets} | {
            name: param for name, param in FACET_PREFIXES_ZH.items()
            if any(f.param == param for f in self.config.terms_facets)}
        rest, taken = take_filters(q, prefixes)
        typed: dict[str, list[str]] = {}
        for param, value in taken:
            typed.setdefault(param, []).append(value[:MAX_FILTER_LENGTH])
        return (rest, typed) if taken else (q, {})

    def suggest(self, args: MultiDict) -> str:
        return self.validate(self.suggest_model, args).q

    def citation_format(self, args: MultiDict) -> str:
        return self.validate(self.citation_model, args).format

    def validate(self, model: type[BaseModel], args: MultiDict) -> Any:
        """Request arguments → an instance of `model` (an `Args`), or the ParamError a person can act on."""
        data: dict[str, Any] = {}
        for name, field in model.model_fields.items():
            sent = args.getlist(name)
            values = [v for v in sent if v != ""]
            if typing.get_origin(field.annotation) is list:
                # An empty repetition adds no value but counts, as the document's maxItems counts it.
                if len(sent) > MAX_FILTER_VALUES:
                    raise ParamError("error.too_many_values", param=name, limit=MAX_FILTER_VALUES)
                data[name] = values
            elif len(values) > 1:
                raise ParamError("error.repeated", param=name)
            elif values:
                data[name] = values[0]
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise _param_error(exc.errors()[0], model, self.config) from None


@functools.cache
def _choices(model: type[BaseModel], name: str) -> tuple[str, ...]:
    """The values a parameter's schema allows (its enum, or its items' enum), for its message."""
    prop = model.model_json_schema()["properties"][name]
    return tuple(prop.get("enum") or prop["items"]["enum"])


@functools.cache
def _bounds(model: type[BaseModel], name: str) -> tuple[int, int]:
    """The minimum and maximum a parameter's schema declares (the document's own numbers), for its message."""
    prop = model.model_json_schema()["properties"][name]
    for schema in (prop, prop.get("items", {}), *prop.get("anyOf", ())):
        if "maximum" in schema:
            return schema["minimum"], schema["maximum"]
    raise KeyError(f"{model.__name__}.{name} has no range")


def _param_error(error: Any, model: type[BaseModel], config: WebSearchConfig) -> ParamError:
    """A pydantic error → the message a person can act on (translations/*.json)."""
    name, kind, raw = str(error["loc"][0]), error["type"], error["input"]
    value = str(raw)[:80]
    in_list = len(error["loc"]) > 1
    if name == "q" and kind == "string_too_long":
        return ParamError("error.query_too_long", limit=error["ctx"]["max_length"], length=len(raw))
    if kind == "too_long":
        return ParamError("error.too_many_values", param=name, limit=MAX_FILTER_VALUES)
    if in_list and kind == "string_too_long":
        return ParamError("error.filter_too_long", param=name, limit=MAX_FILTER_LENGTH)
    if name == "subarea" and kind == "string_pattern_mismatch":
        return ParamError("error.subarea", value=value)
    out_of_range = kind in ("greater_than_equal", "less_than_equal", "int_parsing_size")  # _size: too many digits
    own = getattr(model, "messages", {}).get(name)
    if own and kind == "literal_error":
        return ParamError(own, param=name, value=value[:40], allowed=", ".join(_choices(model, name)))
    if own and out_of_range:
        low, high = _bounds(model, name)
        return ParamError(own, param=name, value=value[:40], low=low, high=high)
    if in_list and kind == "literal_error":  # a repeatable parameter's closed set of values (record type, language)
        return ParamError("error.unknown_value", param=name, value=value[:40], allowed=", ".join(_choices(model, name)))
    if out_of_range:
        low, high = _bounds(model, name)
        key = {"size": "error.size_range", "page": "error.page"}.get(name, "error.out_of_range")
        return ParamError(key, param=name, value=value[:40], low=low, high=high)
    if kind == "int_parsing":
        return ParamError("error.not_integer", param=name, value=value[:40])
    if name == "size":
        return ParamError("error.size", value=value[:40], allowed=", ".join(map(str, config.page_sizes)))
    if name in ("xl", "spell"):
        return ParamError("error.flag", param=name, value=value[:40])
    if name == "sort":
        return ParamError("error.sort", value=value[:40], allowed=", ".join(config.sorts))
    return ParamError("error.invalid", param=".".join(map(str, error["loc"])), detail=error["msg"])
