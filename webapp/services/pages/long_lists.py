"""Lists longer than a results page, for exports and sitemaps, built on SearchService's public behaviour.

- `results`: a search's hits in the order of its results pages, up to a limit: the search's own pages of
  the largest page size, one request after another, so an export holds exactly the papers the pages show.
- `paper_entries`: every paper id in id order with the day it was added, with search_after on the `id`
  keyword field: no point in time to open or close, so the web identity needs nothing beyond `read`
  (DECISIONS.md D-073); the date comes from doc values, not `_source`.

Each returns once its first request has answered (so a failure is a clean 503 before anything is sent) and
hands out the rest lazily.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from papersearch import added
from webapp.domain import Hit, SearchParams, SearchResult
from webapp.services.es.errors import es_errors
from webapp.services.search import Prepared, SearchService

ID_FIELD = "id"  # the paper id as a keyword with doc values (sorting on _id is disabled by default)
ID_PAGE = 10_000  # ids per request; at most the index's max_result_window
DAY = "yyyy-MM-dd"  # the added date as a sitemap's lastmod (W3C Datetime, day precision)


class PaperEntry(NamedTuple):
    id: str
    added: str | None  # the day it was added (None: indexed before added dates existed)


class Listing:
    def __init__(self, service: SearchService) -> None:
        self.service = service
        self.page_size = max(int(s) for s in service.config.page_sizes)

    # --- a search's results, page after page -----------------------------------------------------------

    def searches(self, limit: int) -> int:
        """How many searches `results` sends for `limit` hits at most: one per page."""
        return -(-limit // self.page_size)

    def results(self, params: SearchParams, limit: int,
                prepared: Prepared | None = None) -> tuple[SearchResult, Iterator[Hit]]:
        """The first page's result (total, fallbacks) and an iterator over up to `limit` hits in order; every page
        searches the query as `prepared` parsed it."""
        size = min(limit, self.page_size)
        first = self.service.search(params.model_copy(update={"page": 1, "size": size}), prepared=prepared)
        wanted = min(limit, first.total, self.service.config.max_result_window)
        return first, self._hits(params, first, size, wanted, prepared)

    def _hits(self, params: SearchParams, first: SearchResult, size: int, wanted: int,
              prepared: Prepared | None) -> Iterator[Hit]:
        page, result, given = 1, first, 0
        while True:
            yield from result.hits[:wanted - given]
            given += min(len(result.hits), wanted - given)
            if given >= wanted or len(result.hits) < size:
                return
            page += 1
            result = self.service.search(params.model_copy(update={"page": page, "size": size}), prepared=prepared)

    # --- every paper id ----------------------------------------------------------------------------------

    def version(self) -> str:
        """What changes whenever the papers behind the alias do: the concrete index (a reindex swaps it), the
        count and the highest sequence number (an `add` or a delete in place). One search of one hit."""
        body = {"size": 1, "sort": [{"_seq_no": "desc"}], "_source": False, "track_total_hits": True,
                "query": {"match_all": {}}}
        with es_errors(self.service.alias, "version"):
            response = self.service.client.search(index=self.service.alias, body=body,
                                                  filter_path="hits.total.value,hits.hits._index,hits.hits.sort")
        hits = response.get("hits", {})
        top = (hits.get("hits") or [{}])[0]
        return f"{top.get('_index', '')}:{hits.get('total', {}).get('value', 0)}:{(top.get('sort') or [''])[0]}"

    def count(self) -> int:
        with es_errors(self.service.alias, "count"):
            return int(self.service.client.count(index=self.service.alias)["count"])

    def paper_entries(self, after: str | None, limit: int) -> Iterator[PaperEntry]:
        """Up to `limit` papers in id order, those after `after` only (None: from the first)."""
        first = self._id_page(after, min(limit, ID_PAGE), dated=True)
        return self._entries(first, limit)

    def _entries(self, page: list[PaperEntry], limit: int) -> Iterator[PaperEntry]:
        given = 0
        while page:
            yield from page
            given += len(page)
            if given >= limit or len(page) < ID_PAGE:
                return
            page = self._id_page(page[-1].id, min(limit - given, ID_PAGE), dated=True)

    def file_starts(self, per_file: int) -> Iterator[str | None]:
        """Where each file of `per_file` ids in id order begins: None for the first, then the last id of the
        file before it (a file holds the ids after that). One pass over the ids, each start handed out as soon
        as a paper after it is seen (so a file is never empty), nothing kept."""
        yield None
        last: str | None = None
        in_file, start = 0, None
        while True:
            size = min(per_file - in_file, ID_PAGE)
            page = self._id_page(last, size)
            if not page:
                return
            if start is not None:
                yield start
                start = None
            last, in_file = page[-1].id, in_file + len(page)
            if in_file == per_file:
                start, in_file = last, 0
            if len(page) < size:
                return

    def _id_page(self, after: str | None, size: int, dated: bool = False) -> list[PaperEntry]:
        body: dict = {"query": {"match_all": {}}, "sort": [{ID_FIELD: "asc"}], "size": size, "_source": False,
                      "track_total_hits": False}
        if dated:
            body["docvalue_fields"] = [{"field": added.FIELD, "format": DAY}]
        if after is not None:
            body["search_after"] = [after]
        with es_errors(self.service.alias, "ids"):
            response = self.service.client.search(index=self.service.alias, body=body,
                                                  filter_path="hits.hits.sort,hits.hits.fields")
        return [PaperEntry(hit["sort"][0], (hit.get("fields", {}).get(added.FIELD) or [None])[0])
                for hit in response.get("hits", {}).get("hits", [])]
