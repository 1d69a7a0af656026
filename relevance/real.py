"""Relevance on the real corpora: the cross-lingual set (issue 12) and generated known-item queries (issue 13),
for the system under test (/api/search of a webapp) next to a plain multi_match baseline on the same index.

    .venv/bin/python -m relevance.real --corpora ../shared/corpora [--api URL [--alias NAME]]
        [--api-notitle URL [--notitle-alias NAME]] [--profile auto|plugin|core] [--reload]
        [--per-kind 200] [--seed 13] [--workers 2] [--xl-queries FILE] [--skip xl,known,notitle] [--out FILE]

1. Reads the corpora (--corpora DIR with ml-papers-iclr.jsonl.gz and csl-zh-dev.jsonl.gz, or --en/--zh FILE;
   a missing file is skipped, with the parts that need it).
2. Loads both into one mixed index with `papersearch-admin --alias papersbench_real_mixed_<profile> reindex`,
   and the English corpus with its titles removed (as listing pages come) into papersbench_real_notitle_<profile>;
   an alias that already holds exactly those papers is reused (--reload rebuilds).
3. Runs every query through /api/search: of the webapp at --api / --api-notitle when given (it must serve that
   alias; checked by its paper count), else of a gunicorn started here on a free port (rate limit and query
   log off).
   The baseline is one multi_match over the same fields at boost 1 (relevance/systems.py), on the alias.
4. Prints the tables and the worst queries of the system under test, and writes every query's outcome to
   --out (default relevance/results-real-<profile>.json).

Held-out sets run the same way: other corpus files with --en/--zh, another concept set with --xl-queries.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import log
from relevance import crosslingual as xlset
from relevance import graded as gr
from relevance import known_items as ki
from relevance.corpora import (
    ALIAS_PREFIX,
    EN_FILE,
    ZH_FILE,
    alias_count,
    ensure_loaded,
    heading,
    locate,
    read_jsonl,
    write_without_titles,
)
from relevance.metrics import ConceptResult, QueryResult, Runner, run_queries
from relevance.real_report import (
    known_summary,
    print_failures,
    print_graded,
    print_tables,
    write_json,
    xl_summary,
)
from relevance.systems import api, api_search, baseline, baseline_scored, ours_scored

HERE = Path(__file__).parent
PARTS = ("xl", "known", "notitle", "graded")


@contextmanager
def served(alias: str, url: str | None) -> Iterator[str]:
    """The webapp to query: the given one, else our own gunicorn on the alias."""
    if url:
        yield url.rstrip("/")
        return
    from bench.search_load import Gunicorn

    # evaluation queries are not users' queries: no query log
    with Gunicorn(alias, workers=2, env={"PAPERSEARCH_QUERY_LOG": "false"}, name="gunicorn-relevance") as server:
        log(f"serving {alias} at {server.url}")
        yield server.url


def check_serves(url: str, alias: str) -> None:
    import requests

    total = api_search(requests.Session(), url, {"q": "", "size": 10})["total"]
    have = alias_count(alias)
    if total != have:
        raise SystemExit(f"the webapp at {url} serves {total} papers but {alias} holds {have}: "
                         "pass the alias it serves with --alias/--notitle-alias")


_LOADED: set[str] = set()  # aliases this run has (re)built already: --reload rebuilds each once


def load(alias: str, sources: list[Path], expected: int, args: argparse.Namespace) -> None:
    if alias.startswith(ALIAS_PREFIX):
        ensure_loaded(alias, sources, expected, args.profile, args.reload and alias not in _LOADED)
        _LOADED.add(alias)
    elif alias_count(alias) != expected:
        raise SystemExit(f"{alias} does not hold the {expected} papers of {', '.join(map(str, sources))}; "
                         f"only {ALIAS_PREFIX}* aliases are loaded by this script")


def systems(url: str, alias: str) -> dict[str, Runner]:
    from papersearch.es import make_client

    return {"ours": api(url), "baseline": baseline(make_client("web"), alias)}


def graded_sets(args: argparse.Namespace, en_path: Path | None, en: list[dict[str, Any]], zh: list[dict[str, Any]],
                mixed: str, notitle: str) -> dict[str, list[gr.GradedResult]]:
    """The graded sets (relevance/graded.py) per system, searched in this process (scores are read):
    author keywords on the mixed index, topics and descriptive questions on the English papers with titles
    (an index of their own: Chinese papers are not judged by English patterns) and without."""
    from papersearch.es import make_client

    web = make_client("web")
    concepts, questions = xlset.load(args.xl_queries), gr.load_descriptive(args.descriptive)
    runs: list[tuple[str, list[gr.GradedQuery]]] = []
    if zh:
        runs.append((mixed, gr.keyword_queries(en + zh, args.per_kind, args.seed)))
    if en_path:
        titled = gr.Grader(en, titled=True)
        english = args.en_alias or f"{ALIAS_PREFIX}en_{args.profile}"
        load(english, [en_path], len(en), args)
        runs.append((english, gr.topic_queries(concepts, titled) + gr.descriptive_queries(questions, titled)))
        bare = gr.Grader(en, titled=False)
        runs.append((notitle, gr.topic_queries(concepts, bare, "notitle_")
                     + gr.descriptive_queries(questions, bare, "notitle_")))
    out: dict[str, list[gr.GradedResult]] = {"ours": [], "baseline": []}
    for alias, queries in runs:
        for name, runner in (("ours", ours_scored(web, alias)), ("baseline", baseline_scored(web, alias))):
            out[name] += timed(f"graded on {alias}, {name}",
                               lambda r=runner, q=queries: gr.evaluate(r, q, args.workers))
    return out


def timed(what: str, fn):
    start = time.monotonic()
    out = fn()
    log(f"{what}: {time.monotonic() - start:.0f} s")
    return out


def run(args: argparse.Namespace) -> int:
    en_path = locate(args.corpora, args.en, EN_FILE)
    zh_path = locate(args.corpora, args.zh, ZH_FILE)
    if not en_path and not zh_path:
        log("no corpus found: nothing to evaluate (skipped)")
        return 0
    en = read_jsonl(en_path) if en_path else []
    zh = read_jsonl(zh_path) if zh_path else []
    papers = {p["id"]: p for p in en + zh}
    skip = set(args.skip)

    queries = xlset.load(args.xl_queries) if "xl" not in skip else []
    relevant = xlset.relevance(queries, papers.values())
    unjudged = [q.id for q in queries if not relevant[q.id]]
    if unjudged:
        log(f"{len(unjudged)} cross-lingual queries have no relevant paper in these corpora, left out: "
            + ", ".join(unjudged))
    items: list[dict[str, Any]] = []
    if "known" not in skip:
        items += ki.english_items(en, args.per_kind, args.seed) + ki.chinese_items(zh, args.per_kind, args.seed)
    notitle = ki.notitle_items(en, args.per_kind, args.seed) if en and "notitle" not in skip else []

    from papersearch.es import make_client
    from papersearch.index_definition import choose_profile

    profile = args.profile = choose_profile(make_client("indexer"), args.profile)
    mixed = args.alias or f"{ALIAS_PREFIX}mixed_{profile}"
    xl: dict[str, list[ConceptResult]] = {}
    known: dict[str, list[QueryResult]] = {}
    if queries or items:
        load(mixed, [p for p in (en_path, zh_path) if p], len(papers), args)
        with served(mixed, args.api) as url:
            check_serves(url, mixed)
            for name, r in systems(url, mixed).items():
                xl[name] = timed(f"cross-lingual, {name}", lambda r=r: xlset.run(r, queries, relevant, args.workers))
                known[name] = timed(f"known items, {name}", lambda r=r: run_queries(r, items, args.workers))
    notitle_alias = args.notitle_alias or f"{ALIAS_PREFIX}notitle_{profile}"
    if notitle and en_path:
        load(notitle_alias, [write_without_titles(en_path, en)], len(en), args)
        with served(notitle_alias, args.api_notitle) as url:
            check_serves(url, notitle_alias)
            for name, r in systems(url, notitle_alias).items():
                known.setdefault(name, []).extend(
                    timed(f"no-title known items, {name}", lambda r=r: run_queries(r, notitle, args.workers)))

    graded: dict[str, list[gr.GradedResult]] = {}
    if "graded" not in skip:
        if en_path:
            load(notitle_alias, [write_without_titles(en_path, en)], len(en), args)
        if zh:
            load(mixed, [p for p in (en_path, zh_path) if p], len(papers), args)
        graded = graded_sets(args, en_path, en, zh, mixed, notitle_alias)

    from relevance.evaluate import alias_profile

    used = alias_profile(make_client("web"), mixed if (queries or items) else notitle_alias)
    header = (f"real corpora: {len(en)} English ({en_path}), {len(zh)} Chinese ({zh_path}); "
              f"mixed index {mixed}, no-title index {notitle_alias}; analysis profile {used}; "
              f"seed {args.seed}, {args.per_kind} queries per kind")
    print_tables(xl_summary(xl) if queries else None, known_summary(known) if any(known.values()) else None, header)
    if graded:
        print_graded(graded)
    print_failures(xl.get("ours", []), known.get("ours", []),
                   lambda pid: heading(papers[pid]) if pid in papers else pid, args.failures)
    out = args.out or HERE / f"results-real-{used}.json"
    meta = {"command": "python -m relevance.real " + " ".join(args.argv),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "profile": used, "seed": args.seed,
            "per_kind": args.per_kind, "aliases": {"mixed": mixed, "notitle": notitle_alias},
            "api": {"mixed": args.api or "gunicorn started by the script",
                    "notitle": args.api_notitle or "gunicorn started by the script"},
            "corpora": {"en": str(en_path), "en_papers": len(en), "zh": str(zh_path), "zh_papers": len(zh)},
            "crosslingual_left_out": unjudged}
    write_json(out, meta, queries, xl, known, graded)
    log(f"report written to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpora", type=Path, help=f"directory with {EN_FILE} and {ZH_FILE}")
    parser.add_argument("--en", type=Path, help="English corpus file (default: CORPORA/" + EN_FILE + ")")
    parser.add_argument("--zh", type=Path, help="Chinese corpus file (default: CORPORA/" + ZH_FILE + ")")
    parser.add_argument("--api", help="base URL of a webapp serving the mixed index (default: start one)")
    parser.add_argument("--api-notitle", help="base URL of a webapp serving the no-title index (default: start one)")
    parser.add_argument("--alias", help=f"the mixed index (default {ALIAS_PREFIX}mixed_<profile>)")
    parser.add_argument("--notitle-alias", help=f"the no-title index (default {ALIAS_PREFIX}notitle_<profile>)")
    parser.add_argument("--en-alias", help=f"the English papers alone (default {ALIAS_PREFIX}en_<profile>)")
    parser.add_argument("--descriptive", type=Path, default=gr.DESCRIPTIVE, help="descriptive questions (JSON)")
    parser.add_argument("--profile", choices=["auto", "plugin", "core", "both"], default="auto",
                        help="analysis profile when loading (auto: the plugin when installed; both: plugin, core)")
    parser.add_argument("--reload", action="store_true", help="rebuild the indices even if they are loaded")
    parser.add_argument("--per-kind", type=int, default=200, help="known-item queries per kind")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--xl-queries", type=Path, default=xlset.QUERIES, help="cross-lingual set (JSON)")
    parser.add_argument("--skip", type=lambda s: [p for p in s.split(",") if p], default=[],
                        help="comma-separated parts to leave out: " + ", ".join(PARTS))
    parser.add_argument("--workers", type=int, default=2, help="queries in flight at once (results are the same)")
    parser.add_argument("--failures", type=int, default=5, help="worst queries to print per kind")
    parser.add_argument("--out", type=Path, help="JSON report (default relevance/results-real-<profile>.json)")
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    if unknown := set(args.skip) - set(PARTS):
        parser.error(f"--skip: unknown part(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}")
    if args.per_kind < 1:
        parser.error("--per-kind must be at least 1")
    if args.profile != "both":
        return run(args)
    failed = 0
    for profile in ("plugin", "core"):
        out = args.out.with_name(f"{args.out.stem}-{profile}{args.out.suffix}") if args.out else None
        failed |= run(argparse.Namespace(**{**vars(args), "profile": profile, "out": out}))
    return failed


if __name__ == "__main__":
    sys.exit(main())
