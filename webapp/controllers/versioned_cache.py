"""What crawlers fetch, kept per index version: a sitemap costs a pass over every paper id (at 13k papers
1.26 MB, ~0.8 s of Elasticsearch CPU and ~0.4 s of ours), and does not change until the index does.

Each worker keeps its own copies, up to MAX_BYTES; a request first asks the index for its version (one
search of one hit, webapp/services/pages/long_lists.py `Listing.version`), and a new version drops every copy of the
old. Beyond MAX_BYTES (a million papers make 20 files of 3 MB) the rest is built per request, as before; the
limiter weighs these routes by their cost either way (webapp/headers_and_limits.py). DECISIONS.md D-122.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

MAX_BYTES = 32 * 1024 * 1024  # per worker


class VersionedCache:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._version: str | None = None
        self._entries: dict[Hashable, bytes] = {}
        self._size = 0
        self.builds = 0  # how often `build` ran (tests, and what a cache is for)

    def get(self, version: str, key: Hashable, build: Callable[[], bytes]) -> bytes:
        """The bytes of `key` for this version of the index, built once while they fit."""
        with self._lock:
            if version != self._version:
                self._version, self._entries, self._size = version, {}, 0
            found = self._entries.get(key)
        if found is not None:
            return found
        data = build()
        with self._lock:
            self.builds += 1
            if version == self._version and key not in self._entries and self._size + len(data) <= self.max_bytes:
                self._entries[key] = data
                self._size += len(data)
        return data
