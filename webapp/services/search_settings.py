"""The webapp's search settings: config/index.json's search section (papersearch/search_config.py), validated once
when the app starts; its facets stay data, and `faceted` is them as the classes of their kinds (facets/)."""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import cast

from pydantic import model_validator

from papersearch import index_definition
from papersearch.search_config import HierarchyFacetConfig, SearchConfig, TermsFacetConfig, validated
from webapp.services.facets.faceted import Faceted
from webapp.services.facets.topics import TopicFacet


class WebSearchConfig(SearchConfig):
    @model_validator(mode="after")
    def _has_topics(self) -> WebSearchConfig:
        # The domain has one hierarchy, the topics (SearchParams.areas, subareas): author and topic pages and the
        # sitemap read its levels.
        if [type(f) for f in self.facets if f.name == "topic" or isinstance(f, HierarchyFacetConfig)] != [
                HierarchyFacetConfig]:
            raise ValueError("facets: one hierarchy facet, named topic, is needed")
        return self

    @cached_property
    def faceted(self) -> Faceted:
        """The facets as the classes of their kinds, built once (the settings are read-only once loaded)."""
        return Faceted(self.facets)

    @property
    def topic(self) -> TopicFacet:
        """The topic facet, which author and topic pages and the sitemap read its levels from."""
        return cast(TopicFacet, self.faceted.facet("topic"))

    @property
    def terms_facets(self) -> list[TermsFacetConfig]:
        """The configs of the facets whose values are one field's values (venue, year), in config order."""
        return [f for f in self.facets if isinstance(f, TermsFacetConfig)]


@lru_cache(maxsize=1)
def search_config() -> WebSearchConfig:
    return validated(WebSearchConfig, index_definition.load()["search"])
