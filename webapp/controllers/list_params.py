"""The arguments of the feed, export and sitemap routes: the search's own (words, filters, sort, xl; never
page or size, which these routes set themselves) plus a few of their own, each integer with a documented
maximum. The models also generate the routes' OpenAPI parameters (webapp/openapi_lists.py).

The search's arguments are validated by RequestArgs.search (controllers/params.py), exactly as for the
API, so the messages are the same; this module checks only what it adds.
"""

from __future__ import annotations

import copy
import typing
from typing import Any

from pydantic import BaseModel, Field, ValidationError, create_model
from werkzeug.datastructures import MultiDict

from papersearch.text import MAX_ID_BYTES
from webapp.controllers.params import Args, ParamError, RequestArgs, bounded
from webapp.domain import SearchParams
from webapp.serializers.export import FORMATS as EXPORT_FORMATS

EXPORT_MAX = 500  # papers in one export: the documented cap (README, OpenAPI)
FEED_ENTRIES = 50  # the newest papers a feed shows
FEED_SORT = "added"  # a feed's default order: newest added first (config/index.json "sorts")
_SET_BY_THE_ROUTE = ("page", "size")


def _search_fields(request_args: RequestArgs, **defaults: Any) -> dict[str, Any]:
    fields = {}
    for name, info in request_args.api_search_model.model_fields.items():
        if name in _SET_BY_THE_ROUTE:
            continue
        if name in defaults:
            info = copy.copy(info)
            info.default = defaults[name]
        fields[name] = (info.annotation, info)
    return fields


class ExportOwnArgs(Args):
    format: typing.Literal[EXPORT_FORMATS] = Field("bibtex", description="Export format")
    limit: bounded(1, EXPORT_MAX) = Field(EXPORT_MAX, description=f"Papers to export, in the order of the "
                       f"results pages (at most {EXPORT_MAX})")


class SitemapArgs(Args):
    after: str = Field("", max_length=MAX_ID_BYTES, description="The file's ids come after this paper id "
                       "(as /sitemap.xml lists it); empty: from the first")


class ListArgs:
    """The argument models of the list routes (built once per app) and their parsing."""

    def __init__(self, request_args: RequestArgs) -> None:
        self.request_args = request_args
        self.feed_model: type[BaseModel] = create_model(
            "FeedArgs", __base__=Args, **_search_fields(request_args, sort=FEED_SORT))
        self.export_model: type[BaseModel] = create_model(
            "ExportArgs", __base__=ExportOwnArgs, **_search_fields(request_args))
        self.sitemap_model = SitemapArgs

    def _search(self, args: MultiDict, sort: str | None = None) -> SearchParams:
        kept = MultiDict([(k, v) for k, v in args.items(multi=True) if k not in _SET_BY_THE_ROUTE])
        if sort and not kept.get("sort"):
            kept["sort"] = sort
        return self.request_args.search(kept, api=True)

    def feed(self, args: MultiDict) -> SearchParams:
        """The search a feed follows: its newest FEED_ENTRIES papers unless a sort is given."""
        return self._search(args, FEED_SORT).model_copy(update={"page": 1, "size": FEED_ENTRIES})

    def export(self, args: MultiDict) -> tuple[SearchParams, str, int]:
        own = _own(ExportOwnArgs, args)
        return self._search(args), own.format, own.limit

    def sitemap_after(self, args: MultiDict) -> str | None:
        return _own(SitemapArgs, args).after or None


def _own(model: type[BaseModel], args: MultiDict) -> Any:
    data = {name: args[name] for name in model.model_fields if args.get(name, "")}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        name, value = str(error["loc"][0]), str(error["input"])[:40]
        if name == "format":
            raise ParamError("error.export_format", value=value, allowed=", ".join(EXPORT_FORMATS)) from None
        if name == "limit" and error["type"] == "int_parsing":
            raise ParamError("error.not_integer", param=name, value=value) from None
        if name == "limit":
            raise ParamError("error.export_limit", value=value, high=EXPORT_MAX) from None
        raise ParamError("error.invalid", param=name, detail=error["msg"]) from None
