"""What a request that runs a visitor's query asks for, validated and parsed once (issue 54.2): the search's
parameters, its query parsed with the concepts found in it (SearchService.prepare), what one of its searches
weighs (plan.cost) and how many searches the route sends; an export's own arguments. The rate limit prices the
request from it and the route runs it, so neither validates nor parses again (DECISIONS.md D-183); the request
keeps it (webapp/routes/__init__.py asked()).

Invalid arguments raise ParamError and a query of too many clauses BadQuery, as the routes did themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from werkzeug.datastructures import MultiDict

from webapp.controllers.list_params import ListArgs
from webapp.controllers.params import RequestArgs
from webapp.domain import SearchParams
from webapp.services.pages.long_lists import Listing
from webapp.services.search import Prepared, SearchService


@dataclass(frozen=True)
class Asked:
    params: SearchParams
    prepared: Prepared
    units: int  # what one of its searches weighs (plan.cost: clauses, concepts, results asked for)
    searches: int = 1  # how many such searches the route sends
    fmt: str = ""  # an export's format
    limit: int = 0  # an export's papers

    @property
    def price(self) -> int:
        """The request's weight in the rate limit: the searches it sends, each at the plan's price."""
        return self.units * self.searches


def _asked(service: SearchService, params: SearchParams, **route: int | str) -> Asked:
    prepared = service.prepare(params)
    return Asked(params, prepared, service.cost(params, prepared), **route)  # type: ignore[arg-type]


def search(service: SearchService, args: MultiDict, request_args: RequestArgs, api: bool) -> Asked:
    """The search page's (or, api, the API's, which allows any page size up to the largest)."""
    return _asked(service, request_args.search(args, api=api))


def author(service: SearchService, args: MultiDict, request_args: RequestArgs, api: bool) -> Asked:
    """An author page's words, filters and page: its words are searched within the person's papers, once."""
    return _asked(service, request_args.author(args, api=api))


def feed(service: SearchService, args: MultiDict, list_args: ListArgs) -> Asked:
    return _asked(service, list_args.feed(args))


def export(service: SearchService, args: MultiDict, list_args: ListArgs) -> Asked:
    """An export: the search's pages of the largest size, one search each, up to its limit."""
    params, fmt, limit = list_args.export(args)
    listing = Listing(service)
    return _asked(service, params.model_copy(update={"size": min(limit, listing.page_size)}),
                  searches=listing.searches(limit), fmt=fmt, limit=limit)
