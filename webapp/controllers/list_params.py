"""The arguments of the feed, export and sitemap routes: the search's own (words, filters, sort, xl; never
page or size, which these routes set themselves) plus a few of their own, each integer with a documented
maximum. The models also generate the routes' OpenAPI parameters (webapp/openapi_lists.py).

Each route's arguments are validated with the model its OpenAPI parameters come from (the search's fields and
its own), by RequestArgs.validate and search_params (controllers/params.py), the path every route that takes a
search shares: one parse, the API's messages, nothing the document does not say (DECISIONS.md D-178).
"""

from __future__ import annotations

import copy
import typing
from typing import Any, ClassVar

from pydantic import BaseModel, Field, create_model
from werkzeug.datastructures import MultiDict

from papersearch.text import MAX_ID_BYTES
from webapp.controllers.params import Args, RequestArgs, bounded
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
    messages: ClassVar[dict[str, str]] = {"format": "error.export_format", "limit": "error.export_limit"}
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

    def feed(self, args: MultiDict) -> SearchParams:
        """The search a feed follows: its newest FEED_ENTRIES papers unless a sort is given."""
        search = self.request_args.search_params(self.request_args.validate(self.feed_model, args))
        return search.model_copy(update={"page": 1, "size": FEED_ENTRIES})

    def export(self, args: MultiDict) -> tuple[SearchParams, str, int]:
        """The search, the format and how many papers: all validated before anything is searched or sent."""
        valid = self.request_args.validate(self.export_model, args)
        return self.request_args.search_params(valid), valid.format, valid.limit

    def sitemap_after(self, args: MultiDict) -> str | None:
        return self.request_args.validate(SitemapArgs, args).after or None
