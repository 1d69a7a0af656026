"""The shape of an Elasticsearch query, and the few compound queries the renderer builds from clauses.

Plain dicts, as the client sends them: the client's DSL objects would be built and turned back into
dicts on every search for the same body (DECISIONS.md D-095).
Only webapp/services/bodies/ (render.py, clauses.py, text_query.py) and facets/ (each kind, faceted.py) write
Elasticsearch syntax. `Query` is defined here only; the other modules (and bench/, tests/unit/bodies.py) import it.
"""

from __future__ import annotations

from typing import Any

Query = dict[str, Any]


def bool_query(must: list[Query] | None = None, should: list[Query] | None = None,
               filter: list[Query] | None = None, must_not: list[Query] | None = None,
               minimum_should_match: int | str | None = None, **extra: Any) -> Query:
    """A bool query of the non-empty parts given, in Elasticsearch's own key order."""
    body: Query = {}
    for key, value in (("must", must), ("should", should), ("filter", filter), ("must_not", must_not)):
        if value is not None:
            body[key] = value
    if minimum_should_match is not None:
        body["minimum_should_match"] = minimum_should_match
    return {"bool": {**body, **extra}}


def any_of(clauses: list[Query], required: int | str = 1) -> Query:
    """At least `required` of the clauses (the one clause itself when there is one)."""
    return clauses[0] if len(clauses) == 1 else bool_query(should=clauses, minimum_should_match=required)


def all_of(clauses: list[Query]) -> Query:
    return clauses[0] if len(clauses) == 1 else bool_query(must=clauses)


def filtered(query: Query, filters: list[Query]) -> Query:
    """The query, restricted by filters that do not score."""
    return bool_query(must=[query], filter=filters) if filters else query


def named(query: Query, name: str) -> Query:
    """The same query, reporting `name` in each hit's matched_queries when it matches."""
    (kind, body), = query.items()
    return {kind: {**body, "_name": name}}
