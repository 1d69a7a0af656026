"""The Chinese labels of topics for results pages, looked up once per process per topic name.

Taxonomy.label_zh folds the names it is given (Unicode normalisation, case, punctuation) before looking
them up; a results page asks for every topic of its facet and of each hit, ~70 look-ups, the same few
hundred names every time (see DECISIONS.md D-056).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from papersearch.taxonomy import Taxonomy

# Topic names come from the index and from URLs (?area=…): bounded, so a crafted URL cannot grow it.
CACHED_NAMES = 4096


class Labels(Protocol):
    def label_zh(self, area: str | None, subarea: str | None = None) -> str | None: ...


class TopicLabels:
    """Taxonomy.label_zh, memoised (Taxonomy itself fits wherever Labels is asked for)."""

    def __init__(self, taxonomy: Taxonomy) -> None:
        self.taxonomy = taxonomy
        self._label_zh = lru_cache(maxsize=CACHED_NAMES)(taxonomy.label_zh)

    def label_zh(self, area: str | None, subarea: str | None = None) -> str | None:
        return self._label_zh(area, subarea)
