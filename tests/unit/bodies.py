"""The request bodies the search service sends, made the way it makes them (plan → render), for unit tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webapp.domain import SearchParams
from webapp.services import plan, render
from webapp.services.expansion import Expansion
from webapp.services.query_parser import ParsedQuery
from webapp.services.word_queries import Fuzzy

Query = dict[str, Any]


def search_body(parsed: ParsedQuery, params: SearchParams, config: dict, fuzzy: Fuzzy = True, relaxed: bool = False,
                expansions: Sequence[Expansion] = (), as_typed_fuzzy: bool = False) -> Query:
    """The first request (fuzzy: typo fallbacks on these words), or the relaxed one (typo-tolerant on fuzzy)."""
    found = list(expansions)
    if relaxed:
        return render.body(plan.relaxed(parsed, params, config, found, fuzzy, as_typed_fuzzy), config)
    return render.body(plan.first(parsed, params, config, found, fuzzy, as_typed_fuzzy), config)


def build_query(parsed: ParsedQuery, config: dict, fuzzy: Fuzzy = True, relaxed: bool = False,
                expansions: Sequence[Expansion] = ()) -> Query:
    """The scoring query of that request (without the relaxed page's tiers)."""
    p = (plan.relaxed(parsed, SearchParams(), config, list(expansions), fuzzy) if relaxed
         else plan.first(parsed, SearchParams(), config, list(expansions), fuzzy))
    return render.scoring_query(p, config)


def text_query(terms: list[str], found: Sequence[Expansion], config: dict, fuzzy: Fuzzy = True,
               relaxed: bool = False, other_language: bool = True) -> Query | None:
    """The words' clause, with the concepts recognised among them."""
    text = plan.text(terms, list(found), config, fuzzy, relaxed, other_language)
    return render.text_query(text, config) if text else None


def exists_body(parsed: ParsedQuery, params: SearchParams, config: dict) -> Query:
    return render.body(plan.check(parsed, params, config), config)
