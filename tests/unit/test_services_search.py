"""A paper page, similar papers and completions send within the per-search time budget (issue 43.1): each
request's timeout is what is left of one budget, not the client's own timeout per request (DECISIONS.md D-103)."""

from __future__ import annotations

from typing import Any

import pytest
from recorded_requests import RecordingClient, World

from webapp.services.search import SearchService, SearchUnavailable
from webapp.services.search_settings import search_config


class TimedClient(RecordingClient):
    """Records the request timeout each request is sent with."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.timeouts: list[float | None] = []
        self._next: float | None = None

    def options(self, **kwargs: Any) -> TimedClient:
        self._next = kwargs.get("request_timeout")
        return self

    def search(self, index: str, body: Any = None, **kwargs: Any) -> Any:
        self.timeouts.append(self._next)
        self._next = None
        return super().search(index, body, **kwargs)


def service(budget: float | None) -> tuple[SearchService, TimedClient]:
    client = TimedClient(World())
    return SearchService(client, "papers", search_config(), budget=budget), client  # type: ignore[arg-type]


@pytest.mark.parametrize("lookup", [
    lambda s: s.papers.paper_and_similar("p1"), lambda s: s.papers.get_paper("p1"), lambda s: s.papers.similar("p1"),
    lambda s: s.papers.suggest("grap"),
])
def test_each_lookup_request_gets_what_is_left_of_one_budget(lookup) -> None:
    search, client = service(budget=1.5)
    lookup(search)
    assert client.timeouts, "the look-up sent nothing"
    assert all(t is not None and 0 < t <= 1.5 for t in client.timeouts), client.timeouts
    assert client.timeouts == sorted(client.timeouts, reverse=True)  # one budget shared, not one each


def test_a_used_up_budget_stops_the_paper_page() -> None:
    search, _ = service(budget=0.01)  # below MIN_REQUEST_TIME: not worth sending
    with pytest.raises(SearchUnavailable):
        search.papers.paper_and_similar("p1")


def test_without_a_budget_the_clients_own_timeout_holds() -> None:
    search, client = service(budget=None)
    search.papers.paper_and_similar("p1")
    assert client.timeouts and all(t is None for t in client.timeouts)
