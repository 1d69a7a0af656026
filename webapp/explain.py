"""Show every request a search sends, in order, each with its plan and its body: the search is run by the
service itself (SearchService.search with a trace), on the site's index, so what is shown is what is sent.

    .venv/bin/python -m webapp.explain "图神经网络 方法" [--area …] [--year …] [--sort year] [--page 2]
                                       [--no-xl] [--alias NAME] [--json]

For each request: what webapp/services/plan/ladder.py decided (describe.py), the body webapp/services/bodies/render.py
made of it, and how many papers it found (--json: the bodies only, one JSON document per line). It connects
as the web user (the settings and .local/credentials.json, as the site does). Every search also logs its
pages' plans at DEBUG level (logger webapp.services.search).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from werkzeug.datastructures import MultiDict

from papersearch.es import make_client
from papersearch.settings import get_settings
from webapp.controllers.params import ParamError, RequestArgs
from webapp.domain import BadQuery, SearchUnavailable
from webapp.services.plan.describe import describe
from webapp.services.plan.requests import Request
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

PARAMS = ("area", "subarea", "venue", "year", "year_from", "year_to", "sort", "page", "size")


def _found(answer: Any) -> str:
    answers = answer if isinstance(answer, list) else [answer]
    # Without a total (search by meaning's requests count nothing): the hits it answered.
    totals = [(a["hits"]["total"]["value"] if "total" in a["hits"] else f"{len(a['hits']['hits'])} answered")
              if "hits" in a else "error" for a in answers]
    return "found " + ", ".join(map(str, totals)) + (" (one per body)" if len(totals) > 1 else "")


def _short_vectors(body: Any) -> Any:
    """The body with a query vector (512 numbers, search by meaning) shown by its first three and its length."""
    if isinstance(body, dict):
        return {k: (f"[{', '.join(f'{x:.4f}' for x in v[:3])}, … {len(v)} numbers]" if k == "query_vector"
                    else _short_vectors(v)) for k, v in body.items()}
    return [_short_vectors(v) for v in body] if isinstance(body, list) else body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("q")
    parser.add_argument("--no-xl", action="store_true", help="without the glossary's concepts (xl=0)")
    parser.add_argument("--alias", help="the index to search (default: the site's, PAPERSEARCH_ALIAS)")
    parser.add_argument("--json", action="store_true", help="print the bodies only, one per line")
    for name in PARAMS:
        parser.add_argument(f"--{name.replace('_', '-')}", dest=name, action="append", default=[])
    args = parser.parse_args(argv)
    config = search_config()
    url = MultiDict([("q", args.q), *[(k, v) for k in PARAMS for v in getattr(args, k)]])
    if args.no_xl:
        url.add("xl", "0")
    try:
        params = RequestArgs(config).search(url, api=True)
    except ParamError as exc:
        print(f"explain: {exc}", file=sys.stderr)
        return 2
    service = SearchService(make_client("web"), args.alias or get_settings().alias, config)
    sent: list[tuple[Request, Any, Any]] = []
    try:
        result = service.search(params, trace=lambda r, body, answer: sent.append((r, body, answer)))
    except (SearchUnavailable, BadQuery) as exc:
        print(f"explain: the search failed: {exc}", file=sys.stderr)
        return 1
    for i, (request, body, answer) in enumerate(sent, 1):
        if args.json:
            print(json.dumps(body, ensure_ascii=False))
            continue
        print(f"--- request {i} of {len(sent)}: {describe(request)}\n    {_found(answer)}")
        print(json.dumps(_short_vectors(body), ensure_ascii=False, indent=1))
    if not args.json:
        print(f"--- shown: {result.total} papers" + (f", fallbacks {', '.join(result.fallbacks)}"
                                                     if result.fallbacks else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
