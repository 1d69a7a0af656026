"""Request arguments → SearchParams, with messages a person can act on (HTTP 400)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from werkzeug.datastructures import MultiDict

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import SearchParams

MAX_FILTER_VALUES = 50  # per parameter; more is a malformed or hostile URL, not a person
MAX_FILTER_LENGTH = 300


class ParamError(Exception):
    """A bad request parameter. `key` names a translation; `values` fill it in."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


def _int(args: MultiDict, name: str, default: int) -> int:
    raw = args.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ParamError("error.not_integer", param=name, value=raw[:40]) from None


def _strings(args: MultiDict, name: str) -> list[str]:
    values: list[str] = []
    for raw in args.getlist(name):
        value = " ".join(raw.split())
        if len(value) > MAX_FILTER_LENGTH:
            raise ParamError("error.filter_too_long", param=name, limit=MAX_FILTER_LENGTH)
        if value and value not in values:
            values.append(value)
    if len(values) > MAX_FILTER_VALUES:
        raise ParamError("error.too_many_values", param=name, limit=MAX_FILTER_VALUES)
    return values


def _years(args: MultiDict) -> list[int]:
    years: list[int] = []
    for raw in _strings(args, "year"):
        try:
            year = int(raw)
        except ValueError:
            raise ParamError("error.year", value=raw[:40]) from None
        if year not in years:
            years.append(year)
    return years


def parse_search_args(args: MultiDict, config: dict[str, Any]) -> SearchParams:
    """Validate everything a search URL may carry (q, area, subarea, year, sort, page, size)."""
    q = " ".join(args.get("q", "").split())
    limit = int(config["max_query_length"])
    if len(q) > limit:
        raise ParamError("error.query_too_long", limit=limit, length=len(q))
    sort = args.get("sort", "").strip() or "relevance"
    if sort not in config["sorts"]:
        raise ParamError("error.sort", value=sort[:40], allowed=", ".join(config["sorts"]))
    page = _int(args, "page", 1)
    if page < 1:
        raise ParamError("error.page", value=page)
    sizes = [int(s) for s in config["page_sizes"]]
    size = _int(args, "size", int(config.get("default_page_size", sizes[0])))
    if size not in sizes:
        raise ParamError("error.size", value=size, allowed=", ".join(map(str, sizes)))
    subareas = _strings(args, "subarea")
    for value in subareas:
        area, sep, sub = value.partition(PATH_SEPARATOR.strip())
        if not (sep and area.strip() and sub.strip()):
            raise ParamError("error.subarea", value=value[:80])
    try:
        return SearchParams(q=q, areas=_strings(args, "area"), subareas=subareas, years=_years(args),
                            sort=sort, page=page, size=size)
    except ValidationError as exc:  # the model's own checks, should ours ever be looser
        first = exc.errors()[0]
        raise ParamError("error.invalid", param=".".join(map(str, first["loc"])), detail=first["msg"]) from None


def parse_prefix(args: MultiDict, config: dict[str, Any]) -> str:
    prefix = " ".join(args.get("q", "").split())
    limit = int(config["max_query_length"])
    if len(prefix) > limit:
        raise ParamError("error.query_too_long", limit=limit, length=len(prefix))
    return prefix
