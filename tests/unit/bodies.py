"""The request bodies the search service sends, made the way it makes them (plan → render), for unit tests."""

from __future__ import annotations

from collections.abc import Sequence

from webapp.domain import SearchParams
from webapp.services.bodies import render
from webapp.services.bodies import text_query as text_clauses
from webapp.services.es_syntax import Query
from webapp.services.plan import ladder as plan
from webapp.services.plan.requests import Live
from webapp.services.plan.words import Fuzzy
from webapp.services.query.expansion import Expansion
from webapp.services.query.parser import ParsedQuery


def searched(parsed: ParsedQuery, params: SearchParams | None = None, config: dict | None = None,
             expansions: Sequence[Expansion] = (), core: bool = False) -> plan.Search:
    from webapp.services.search_settings import search_config

    return plan.Search(parsed, params or SearchParams(), config or search_config(), tuple(expansions),
                       Live("core" if core else "plugin"))


def search_body(parsed: ParsedQuery, params: SearchParams, config: dict, fuzzy: Fuzzy = True, relaxed: bool = False,
                expansions: Sequence[Expansion] = (), as_typed_fuzzy: bool = False) -> Query:
    """The first request's page with typo fallbacks on `fuzzy` words, or the relaxed one (typo-tolerant on
    fuzzy); as_typed_fuzzy: as on a core index."""
    s = searched(parsed, params, config, expansions, as_typed_fuzzy)
    page = s.relaxed(fuzzy) if relaxed else s.page("as_typed", s.words.text(fuzzy))
    return render.body(page, config)


def build_query(parsed: ParsedQuery, config: dict, fuzzy: Fuzzy = True, relaxed: bool = False,
                expansions: Sequence[Expansion] = ()) -> Query:
    """The scoring query of that request (without the relaxed page's tiers)."""
    s = searched(parsed, SearchParams(), config, expansions)
    return render.scoring_query(s.relaxed(fuzzy) if relaxed else s.page("as_typed", s.words.text(fuzzy)), config)


def text_query(terms: list[str], found: Sequence[Expansion], config: dict, fuzzy: Fuzzy = True,
               relaxed: bool = False, other_language: bool = True) -> Query | None:
    """The words' clause, with the concepts recognised among them."""
    from webapp.services.query.parser import Clause

    s = searched(ParsedQuery(tuple(Clause(t) for t in terms)), SearchParams(), config, found)
    text = s.words.text(fuzzy, relaxed, other_language)
    return text_clauses.text_query(text, config) if text else None


def exists_body(parsed: ParsedQuery, params: SearchParams, config: dict) -> Query:
    return render.body(searched(parsed, params, config).check(parsed), config)
