"""The webapp's search settings: config/index.json's search section (papersearch/search_config.py) with each
facet as the class of its kind (facets/kinds.py), validated once when the app starts."""

from __future__ import annotations

from functools import lru_cache
from typing import cast

from pydantic import model_validator

from papersearch import index_definition
from papersearch.search_config import SearchConfig, validated
from webapp.services.facets.kinds import FacetKind, HierarchyFacet, TermsFacet


class WebSearchConfig(SearchConfig):
    facets: list[FacetKind]

    @model_validator(mode="after")
    def _has_topics(self) -> WebSearchConfig:
        # The domain has one hierarchy, the topics (SearchParams.areas, subareas): author and topic pages and the
        # sitemap read its levels.
        if [type(f) for f in self.facets if f.name == "topic" or isinstance(f, HierarchyFacet)] != [HierarchyFacet]:
            raise ValueError("facets: one hierarchy facet, named topic, is needed")
        return self

    def facet(self, name: str) -> FacetKind:
        return next(f for f in self.facets if f.name == name)

    @property
    def topic(self) -> HierarchyFacet:
        """The topic facet, which author and topic pages and the sitemap read its levels from."""
        return cast(HierarchyFacet, self.facet("topic"))

    @property
    def terms_facets(self) -> list[TermsFacet]:
        """The facets whose values are one field's values (venue, year), in config order."""
        return [f for f in self.facets if isinstance(f, TermsFacet)]


@lru_cache(maxsize=1)
def search_config() -> WebSearchConfig:
    return validated(WebSearchConfig, index_definition.load()["search"])
