"""Show the plan of a search, and the Elasticsearch body it becomes, without running it.

    .venv/bin/python -m webapp.explain "图神经网络 方法" [--area …] [--year …] [--sort year] [--page 2]
                                       [--relaxed] [--core] [--no-xl] [--json]

The first request's plan (--relaxed: the ladder's relaxed request, typo-tolerant on the words no paper
contains — here: every word that has a typo fallback; --core: as on an index without our plugin), then
the body webapp/services/render.py makes of it (--json: the body only). Every search also logs its plans
at DEBUG level (logger webapp.services.search).
"""

from __future__ import annotations

import argparse
import json
import sys

from werkzeug.datastructures import MultiDict

from papersearch import concepts
from papersearch.index_definition import search_config
from webapp.controllers.params import ParamError, RequestArgs
from webapp.services import expansion, plan, render
from webapp.services.query_parser import parse_query


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("q")
    parser.add_argument("--relaxed", action="store_true")
    parser.add_argument("--core", action="store_true", help="as on a core-profile index (typo-tolerant everywhere)")
    parser.add_argument("--no-xl", action="store_true", help="without the glossary's concepts (xl=0)")
    parser.add_argument("--json", action="store_true", help="print the body only")
    for name in ("area", "subarea", "venue", "year", "year_from", "year_to", "sort", "page", "size"):
        parser.add_argument(f"--{name.replace('_', '-')}", dest=name, action="append", default=[])
    args = parser.parse_args(argv)
    config = search_config()
    url = MultiDict([("q", args.q), *[(k, v) for k in ("area", "subarea", "venue", "year", "year_from", "year_to",
                                                          "sort", "page", "size") for v in getattr(args, k)]])
    if args.no_xl:
        url.add("xl", "0")
    try:
        params = RequestArgs(config).search(url, api=True)
    except ParamError as exc:
        print(f"explain: {exc}", file=sys.stderr)
        return 2
    parsed = parse_query(params.q)
    xl = config["cross_lingual"]
    found = (expansion.expansions(parsed.terms, concepts.matcher(), xl["max_forms"], xl["max_concepts"],
                                  xl["max_term_length"]) if params.xl else [])
    if args.relaxed:
        made = plan.relaxed(parsed, params, config, found, True, as_typed_fuzzy=args.core)
    else:
        made = plan.first(parsed, params, config, found, fuzzy=args.core, as_typed_fuzzy=args.core)
    body = render.body(made, config)
    if not args.json:
        print(plan.describe(made), end="\n\n")
    print(json.dumps(body, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
