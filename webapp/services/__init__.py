"""Services between the controllers and Elasticsearch: query parsing, query building, search."""

from webapp.services.search import SearchService

__all__ = ["SearchService"]
