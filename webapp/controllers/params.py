"""Request arguments → SearchParams or a suggestion prefix: normalised, length-checked and validated here, once.

The argument models are built from config/index.json when the app starts (`RequestArgs(config)`); the
same models generate the OpenAPI parameters (webapp/openapi.py), so the document declares exactly what
is validated (see DECISIONS.md "OpenAPI generated from the pydantic models"). Limits apply to the values
as sent; whitespace is collapsed afterwards. An empty value (`?page=`) is the same as leaving the
parameter out.
"""

from __future__ import annotations

import re
import typing
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model
from werkzeug.datastructures import MultiDict

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import SearchParams

MAX_FILTER_VALUES = 50  # per parameter; more is a malformed or hostile URL, not a person
MAX_FILTER_LENGTH = 300
YEARS = (1, 9999)  # a year filter is at most four digits (the index field is a short)
# "Area > Subarea": something on both sides of the first separator.
_SEP = re.escape(PATH_SEPARATOR.strip())
SUBAREA_PATTERN = rf"^[^{_SEP}]*\S[^{_SEP}]*{_SEP}.*\S.*$"


class ParamError(Exception):
    """A bad request parameter. `key` names a translation; `values` fill it in."""

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


class _Args(BaseModel):
    # Python's regular expressions, like the generators that test the OpenAPI document against us.
    model_config = ConfigDict(regex_engine="python-re", extra="ignore")


def _query(limit: int, description: str) -> Any:
    return Annotated[str, Field(max_length=limit, description=description), AfterValidator(collapse)]


def _filter(description: str, item: Any) -> Any:
    return Annotated[list[item], Field(max_length=MAX_FILTER_VALUES, description=description),
                     AfterValidator(_distinct)]


def search_args_model(config: dict[str, Any]) -> type[BaseModel]:
    """Every parameter a search URL may carry, with the limits, patterns and defaults of config/index.json."""
    sizes = tuple(int(s) for s in config["page_sizes"])
    sorts = tuple(config["sorts"])
    text = Annotated[str, Field(max_length=MAX_FILTER_LENGTH)]
    return create_model(
        "SearchArgs", __base__=_Args,
        q=(_query(int(config["max_query_length"]),
                  'Words, "phrases", -excluded, author:"…", title:"…", abstract:…, topic:…'), ""),
        area=(_filter("Topic area (repeatable; OR within the facet)", text), []),
        subarea=(_filter('Subarea as "Area > Subarea" (repeatable)',
                         Annotated[str, Field(max_length=MAX_FILTER_LENGTH, pattern=SUBAREA_PATTERN)]), []),
        year=(_filter("Year (repeatable)", Annotated[int, Field(ge=YEARS[0], le=YEARS[1])]), []),
        sort=(typing.Literal[sorts], Field(config["default_sort"], description="Order of the results")),
        page=(int, Field(1, ge=1, description="Results page, from 1")),
        size=(Annotated[int, AfterValidator(_one_of(sizes)), Field(json_schema_extra={"enum": list(sizes)})],
              Field(int(config["default_page_size"]), description="Results per page")),
        xl=(bool, Field(True, description="Also search the glossary concepts recognised in the query in the other "
                                          "language (0: only the words as typed)")),
    )


def suggest_args_model(config: dict[str, Any]) -> type[BaseModel]:
    return create_model("SuggestArgs", __base__=_Args,
                        q=(_query(int(config["max_query_length"]), "The prefix typed so far"), ""))


class RequestArgs:
    """The argument models of one app (built once at start) and the parsing of request arguments."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.search_model = search_args_model(config)
        self.suggest_model = suggest_args_model(config)

    def search(self, args: MultiDict) -> SearchParams:
        a = _validate(self.search_model, args, self.config)
        return SearchParams(q=a.q, areas=a.area, subareas=a.subarea, years=a.year, sort=a.sort, page=a.page,
                            size=a.size, xl=a.xl)

    def suggest(self, args: MultiDict) -> str:
        return _validate(self.suggest_model, args, self.config).q


def _validate(model: type[BaseModel], args: MultiDict, config: dict[str, Any]) -> Any:
    data: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if typing.get_origin(field.annotation) is list:
            data[name] = [v for v in args.getlist(name) if v != ""]
        elif args.get(name, ""):
            data[name] = args[name]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _param_error(exc.errors()[0], config) from None


def _param_error(error: Any, config: dict[str, Any]) -> ParamError:
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
    if name == "year":
        if kind == "int_parsing":
            return ParamError("error.year", value=value[:40])
        return ParamError("error.year_range", value=value[:40], low=YEARS[0], high=YEARS[1])
    if kind == "int_parsing":
        return ParamError("error.not_integer", param=name, value=value[:40])
    if name == "page":
        return ParamError("error.page", value=value[:40])
    if name == "size":
        return ParamError("error.size", value=value[:40], allowed=", ".join(map(str, config["page_sizes"])))
    if name == "xl":
        return ParamError("error.xl", value=value[:40])
    if name == "sort":
        return ParamError("error.sort", value=value[:40], allowed=", ".join(config["sorts"]))
    return ParamError("error.invalid", param=".".join(map(str, error["loc"])), detail=error["msg"])
