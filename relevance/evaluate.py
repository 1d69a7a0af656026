"""Search relevance on the shipped sample: our ranking (the webapp's SearchService) vs a plain multi_match.

    .venv/bin/python -m relevance.evaluate [--profile auto|plugin|core] [--baseline]
                                                 [--alias NAME] [--out FILE] [--quiet]

Without --alias the 40 sample papers (indexer/sample/papers.jsonl) are loaded into a temporary alias
(papersbench_rel_*) through the real indexer (full reindex, the chosen analysis profile) and deleted
afterwards; with --alias an existing alias is searched as it is (its profile is whatever it was built
with). Every query of queries.json runs through SearchService.search(SearchParams(q=…, size=10)) as the
read-only web user, exactly as the results page does.
--baseline also runs each query as one plain
multi_match over the same fields (no boosts, no phrase or proximity clause, no fuzziness, default
operator "or"), searched by the same user on the same alias.

Metrics over the top K=10 (relevance/metrics.py): MRR@10, hit@10, recall@10, nDCG@10 and the
zero-result rate, plus per-kind MRR, and for every query the ranks of its expected papers. The JSON report goes to
--out (default relevance/results-<profile>.json).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

from elasticsearch import Elasticsearch

from relevance.metrics import K, QueryResult, run_queries, summarize
from relevance.systems import baseline, ours

ROOT = Path(__file__).resolve().parents[2]
QUERIES = Path(__file__).with_name("queries.json")
SAMPLE = ROOT / "indexer" / "sample" / "papers.jsonl"
ALIAS_PREFIX = "papersbench_rel_"  # the roles cover papers*; everything we create starts with this

# --- the query set -------------------------------------------------------------------------------------


def load_queries(path: Path = QUERIES) -> list[dict[str, Any]]:
    queries = json.loads(path.read_text(encoding="utf-8"))["queries"]
    seen: set[str] = set()
    for query in queries:
        if query["id"] in seen:
            raise ValueError(f"duplicate query id {query['id']}")
        seen.add(query["id"])
        if not query.get("expected"):
            raise ValueError(f"query {query['id']} has no expected paper")
    return queries


def sample_ids(path: Path = SAMPLE) -> set[str]:
    return {json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


# --- the temporary alias ----------------------------------------------------------------------------------


def build_sample_alias(profile: str, settings=None) -> tuple[str, str]:
    """Load the sample through the real indexer behind a fresh alias; returns (alias, analysis profile used)."""
    from indexer import operations
    from indexer.loading.rejects import RejectsWriter
    from papersearch.es import make_client
    from papersearch.settings import Settings

    alias = f"{ALIAS_PREFIX}{profile}_{uuid.uuid4().hex[:8]}"
    base = settings or Settings()
    settings = base.model_copy(update={"alias": alias, "analysis_profile": profile})
    try:
        with RejectsWriter(None) as rejects:
            report = operations.reindex(make_client("indexer", settings), settings, [SAMPLE], rejects,
                                        progress=False)
    except BaseException:
        drop_alias(alias, base)  # the build lock's index, at least
        raise
    return alias, report.profile


def drop_alias(alias: str, settings=None) -> None:
    from papersearch.es import make_client
    from papersearch.settings import Settings

    if not alias.startswith(ALIAS_PREFIX):
        raise ValueError(f"refusing to delete {alias!r}: only {ALIAS_PREFIX}* is ours")
    client = make_client("indexer", settings or Settings())
    names = [n for n in client.indices.get(index=f"{alias}*", allow_no_indices=True, expand_wildcards="all")
             if n.startswith(ALIAS_PREFIX)]
    if names:
        client.indices.delete(index=",".join(names))


def alias_profile(client: Elasticsearch, alias: str) -> str:
    mappings = client.indices.get_mapping(index=alias).body
    return next(iter(mappings.values()))["mappings"].get("_meta", {}).get("analysis_profile", "unknown")


# --- evaluation -------------------------------------------------------------------------------------------


def evaluate(web: Elasticsearch, alias: str, queries: list[dict[str, Any]],
             with_baseline: bool = True) -> dict[str, list[QueryResult]]:
    systems = {"ours": run_queries(ours(web, alias), queries)}
    if with_baseline:
        systems["baseline"] = run_queries(baseline(web, alias), queries)
    return systems


def report(systems: dict[str, list[QueryResult]], profile: str, alias: str) -> dict[str, Any]:
    """Summaries, then one entry per query with every system's outcome (top ids only for ours and baseline)."""
    per_query = []
    for i, first in enumerate(next(iter(systems.values()))):
        outcome = {}
        for name, results in systems.items():
            r = results[i]
            outcome[name] = {"first_rank": r.first_rank, "ranks": r.ranks, "total": r.total,
                             "rr": r.rr, "recall": round(r.recall, 4), "ndcg": round(r.ndcg, 4)}
            if name in ("ours", "baseline"):
                outcome[name]["top"] = r.top
        per_query.append({"id": first.id, "kind": first.kind, "q": first.q, "expected": first.expected,
                          "systems": outcome})
    return {
        "k": K,
        "profile": profile,
        "alias": alias,
        "summary": {name: asdict(summarize(name, results)) for name, results in systems.items()},
        "queries": per_query,
    }


def write_report(data: dict[str, Any], path: Path) -> None:
    """Readable but compact: the summary indented, one line per query."""
    head = {k: v for k, v in data.items() if k != "queries"}
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]  # drop the closing "\n}"
    lines = [json.dumps(q, ensure_ascii=False) for q in data["queries"]]
    text += ',\n "queries": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
    path.write_text(text, encoding="utf-8")


def print_report(systems: dict[str, list[QueryResult]], profile: str, quiet: bool = False) -> None:
    names = list(systems)
    if not quiet:
        header = "  ".join(f"{n[:8]:>8}" for n in names)
        print(f"{'query':<22} {'kind':<10} {header}  text")
        for i, first in enumerate(systems[names[0]]):
            cells = []
            for n in names:
                r = systems[n][i]
                rank = r.first_rank
                cell = "-" if rank is None else str(rank)
                if len(r.expected) > 1:
                    cell += f" {r.recall:.0%}"
                if r.total == 0:
                    cell = "0 hits"
                cells.append(f"{cell:>8}")
            print(f"{first.id:<22} {first.kind:<10} {'  '.join(cells)}  {first.q}")
        print("(rank of the first expected paper in the top 10, '-' if none; for several expected papers also "
              "recall@10)")
        print()
    print(f"profile {profile}")
    for n in names:
        summary = summarize(n, systems[n])
        print(summary.line())
        print("          by kind: " + ", ".join(f"{k} {v['mrr']:.2f}" for k, v in summary.by_kind.items()))


def evaluate_sample(web: Elasticsearch, profile: str, queries: list[dict[str, Any]],
                    with_baseline: bool) -> tuple[str, str, dict[str, list[QueryResult]]]:
    """Load the sample behind a temporary alias, run the queries, drop the alias."""
    alias, used = build_sample_alias(profile)
    try:
        return alias, used, evaluate(web, alias, queries, with_baseline)
    finally:
        try:
            wait_healthy()
            drop_alias(alias)
        except Exception as exc:  # never hide the real error behind a cleanup failure
            print(f"could not delete the temporary alias {alias}'s indices: {exc}", file=sys.stderr)


def wait_healthy(timeout: float = 300.0) -> None:
    """Block until the cluster answers (other work on this machine may restart the local node)."""
    from papersearch.es import make_client

    client = make_client("indexer", request_timeout=15, max_retries=0)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if client.cluster.health(wait_for_status="yellow", timeout="10s").get("status") in ("green", "yellow"):
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"Elasticsearch not healthy after {timeout:.0f}s")
        time.sleep(3)


def survive_restarts(fn, attempts: int = 3):
    """Run fn() again (from scratch) if the node went away in the middle."""
    from elastic_transport import ConnectionError as TransportConnectionError

    from webapp.domain import SearchUnavailable

    for attempt in range(1, attempts + 1):
        wait_healthy()
        try:
            return fn()
        except (SearchUnavailable, TransportConnectionError) as exc:
            if attempt == attempts:
                raise
            print(f"the node went away ({exc}); starting again", file=sys.stderr)
    raise AssertionError("unreachable")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--profile", choices=["auto", "plugin", "core"], default="auto",
                        help="analysis profile of the temporary index (auto = the plugin when installed)")
    parser.add_argument("--baseline", action="store_true", help="also run the plain multi_match baseline")
    parser.add_argument("--alias", help="search this existing alias instead of loading the sample")
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--out", type=Path, help="JSON report (default relevance/results-<profile>.json)")
    parser.add_argument("--quiet", action="store_true", help="summary only, no per-query table")
    args = parser.parse_args(argv)

    from papersearch.es import make_client

    queries = load_queries(args.queries)
    web = make_client("web")
    if args.alias:
        alias = args.alias
        profile, systems = survive_restarts(lambda: (
            alias_profile(web, alias), evaluate(web, alias, queries, args.baseline)))
    else:
        alias, profile, systems = survive_restarts(
            lambda: evaluate_sample(web, args.profile, queries, args.baseline))
    print_report(systems, profile, quiet=args.quiet)
    out = args.out or Path(__file__).with_name(f"results-{profile}.json")
    write_report(report(systems, profile, alias), out)
    print(f"report written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
