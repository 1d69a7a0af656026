"""What the name lifts cost (DECISIONS.md D-210, D-211): each query's first request (the words as typed) as the
search service renders it, and the same body without the lifts, sent alternately to an existing alias with the
request cache off; the median of Elasticsearch's `took` for each.

    .venv/bin/python -m bench.name_lift_cost --alias papersbench_names_mixed_plugin --repeats 30 LoRA Hinton …
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from papersearch.author_keys import WORDS_FIELD
from papersearch.es import make_client
from papersearch.introduces import FIELD as INTRODUCES
from webapp.domain import SearchParams
from webapp.services.bodies import render
from webapp.services.search import SearchService

_LIFT_FIELDS = (f'"{INTRODUCES}"', f'"{WORDS_FIELD}"')


def _is_lift(clause: Any) -> bool:
    text = json.dumps(clause)
    return isinstance(clause, dict) and "constant_score" in clause and any(f in text for f in _LIFT_FIELDS)


def without_lifts(node: Any) -> Any:
    """The body with every lift taken out of the should-lists that hold it."""
    if isinstance(node, list):
        return [without_lifts(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "should" and isinstance(value, list):
            value = [x for x in value if not _is_lift(x)]
            if not value:
                continue
        out[key] = without_lifts(value)
    return out


def first_body(service: SearchService, q: str) -> dict[str, Any]:
    """The body of the first request the service sends for q."""
    params = SearchParams(q=q)
    search = service.plan(params)
    first = next(search.rounds(lambda parsed: tuple(service._expansions(parsed, params))))
    return render.body(first.requests[0], service.config)  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alias", required=True)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("queries", nargs="+")
    args = parser.parse_args()
    es = make_client("web")
    service = SearchService(es, args.alias)
    for q in args.queries:
        bodies = {"with": first_body(service, q)}
        bodies["without"] = without_lifts(bodies["with"])
        took: dict[str, list[int]] = {name: [] for name in bodies}
        for _ in range(args.repeats):
            for name, body in bodies.items():
                took[name].append(es.search(index=args.alias, body=body, request_cache=False)["took"])
        print(f"{q!r}: with the lifts {statistics.median(took['with'])} ms, "
              f"without {statistics.median(took['without'])} ms (median of {args.repeats})")


if __name__ == "__main__":
    main()
