"""Feed, export, sitemap and OpenSearch-suggestion controllers. Each returns (data, HTTP status); streams
come back with their first request answered, so a failure before anything is sent is a clean 400/503.

None of these is written to the query log: a feed reader polling a feed is not a person searching.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TypeVar

from werkzeug.datastructures import MultiDict

from papersearch.taxonomy import Topic
from webapp.controllers import search as search_controller
from webapp.controllers.asked import Asked
from webapp.controllers.list_params import ListArgs
from webapp.controllers.params import RequestArgs
from webapp.domain import BadQuery, Hit, SearchResult, SearchUnavailable, Suggestion
from webapp.services.pages.long_lists import Listing, PaperEntry
from webapp.services.pages.profiles import ProfileService
from webapp.services.search import SearchService
from webapp.views.facet_labels import labelled_result

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Export:
    fmt: str
    hits: Iterator[Hit]


@dataclass
class Sitemap:
    """Either one file's papers (few enough of them, with the topics) or where each file of an index starts
    (streamed; the topics have a file of their own)."""

    ids: Iterator[PaperEntry] | None = None
    starts: Iterator[str | None] = field(default_factory=lambda: iter(()))
    topics: list[tuple[Topic, str | None]] = field(default_factory=list)  # topic pages, the newest paper's day


def feed(service: SearchService, asked: Asked) -> tuple[SearchResult, int]:
    return labelled_result(service.search(asked.params, prepared=asked.prepared), service.config,
                           service.labels), HTTPStatus.OK


def export(service: SearchService, asked: Asked) -> tuple[Export, int]:
    _, hits = Listing(service).results(asked.params, asked.limit, asked.prepared)
    return Export(asked.fmt, hits), HTTPStatus.OK


def index_version(service: SearchService) -> str:
    return Listing(service).version()


def sitemap(service: SearchService, profiles: ProfileService, per_file: int) -> tuple[Sitemap, int]:
    """One file while every paper and topic page fits into it, else an index of files."""
    listing = Listing(service)
    topics = profiles.topics_with_papers()
    if listing.count() + len(topics) <= per_file:
        return Sitemap(ids=listing.paper_entries(None, per_file), topics=topics), HTTPStatus.OK
    return Sitemap(starts=listing.file_starts(per_file), topics=topics), HTTPStatus.OK


def sitemap_file(service: SearchService, args: MultiDict, list_args: ListArgs,
                 per_file: int) -> tuple[Iterator[PaperEntry], int]:
    return Listing(service).paper_entries(list_args.sitemap_after(args), per_file), HTTPStatus.OK


def suggestions(service: SearchService, args: MultiDict,
                request_args: RequestArgs) -> tuple[tuple[str, list[Suggestion]], int]:
    found, status = search_controller.suggest(service, args, request_args)
    return (request_args.suggest(args), found), status


def until_failure(pieces: Iterator[T], what: str) -> Iterator[T]:
    """A stream that ends, logged, when the cluster fails in the middle: its status was sent already."""
    try:
        yield from pieces
    except (SearchUnavailable, BadQuery) as exc:
        log.error("%s cut short: %s", what, exc)
