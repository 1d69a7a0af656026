"""What our searches cost Elasticsearch, next to a plain BM25 request with the same facets, per query kind.

    .venv/bin/python -m bench.query_cost [--corpus FILE ...] [--sizes 13033,1000000] [--repeats 5]
                                         [--parts] [--reload] [--drop] [--out FILE]

For every query of bench/search_mix.py's mix, on every corpus:
  ours   every request SearchService.search sends for it (recorded from the service itself, as
         bench/search.py does: the words as typed, the relaxed request, the did-you-mean check), replayed
  plain  one multi_match over the main text fields carrying the same facet aggregations, post_filter,
         sort and page, and a simple highlight (bench/plain.py)
Each is run --repeats times with the request cache off; reported: the median of Elasticsearch's own
`took` (summed over our requests), and the node's CPU per search (the local node's JVM, CPU seconds
over all repeats / repeats). --parts also prices each part of our plan (webapp/services/plan/ladder.py): the
same request rendered without it, so the difference is what that part costs.

Corpora: --corpus files (real papers in our JSONL schema, e.g. ../shared/corpora/*.jsonl.gz) are loaded
together behind papersbench_cost_real; --sizes are generated corpora (bench/corpus.py) behind
papersbench_cost_<size>. Loading is `papersearch-admin reindex` and is skipped when the alias already
holds that many papers (--reload rebuilds); --drop deletes the aliases' indices at the end.
Writes bench/results/query-cost-<UTC time>.json (with this command) and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from bench.common import RESULTS_DIR, ROOT, VENV_BIN, WEB_USER, delete_indices, ensure_node, es_url, log, machine
from bench.common import session as es_session
from bench.processes import cpu_seconds_exact, es_process
from bench.search_mix import QUERY_MIX, Request, service_requests

ALIAS = "papersbench_cost_"


def _count(alias: str) -> int | None:
    r = es_session(WEB_USER).get(f"{es_url()}/{alias}/_count", timeout=30)
    return r.json()["count"] if r.ok else None


def ensure_loaded(alias: str, sources: list[Path], reload: bool) -> int:
    """Load the sources behind alias with our indexer unless it already holds their papers."""
    expected = sum(1 for s in sources for _ in _lines(s))
    if not reload and _count(alias) == expected:
        log(f"{alias}: {expected} papers already loaded")
        return expected
    log(f"loading {', '.join(s.name for s in sources)} into {alias}")
    cmd = [str(VENV_BIN / "papersearch-admin"), "--alias", alias, "reindex", "--no-progress", "--allow-rejects",
           *map(str, sources)]
    subprocess.run(cmd, cwd=ROOT, check=True)
    return _count(alias) or 0


def _lines(path: Path):
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from (line for line in f if line.strip())


def _uncached(request: Request) -> tuple[str, bytes, str]:
    """The request with Elasticsearch's request cache off (URL parameter, or each _msearch header)."""
    if isinstance(request.body, list):
        lines = [({**line, "request_cache": False} if i % 2 == 0 else line) for i, line in enumerate(request.body)]
        return request.path, b"".join(orjson.dumps(line) + b"\n" for line in lines), "application/x-ndjson"
    path, _, query = request.path.partition("?")
    kept = [p for p in query.split("&") if p and not p.startswith("request_cache=")]
    return f"{path}?{'&'.join([*kept, 'request_cache=false'])}", orjson.dumps(request.body), "application/json"


class Replayer:
    """Sends prepared requests and reads back Elasticsearch's `took` and the node's CPU."""

    def __init__(self) -> None:
        self.http = es_session(WEB_USER)
        self.node = es_process()

    def took(self, requests: list[Request]) -> int:
        total = 0
        for r in requests:
            path, data, ctype = _uncached(r)
            answer = self.http.post(f"{es_url()}{path}", data=data, headers={"Content-Type": ctype}, timeout=120)
            answer.raise_for_status()
            body = answer.json()
            failed = [x for x in body.get("responses", [body]) if "error" in x]
            if failed:
                raise RuntimeError(f"{path}: {failed[0]['error']}")
            total += body["took"]
        return total

    def measure(self, requests: list[Request], repeats: int) -> dict[str, float | None]:
        before = cpu_seconds_exact(self.node)
        took = [self.took(requests) for _ in range(repeats)]
        after = cpu_seconds_exact(self.node)
        cpu = None if before is None or after is None else round((after - before) / repeats * 1000, 2)
        return {"took_ms": statistics.median(took), "cpu_ms": cpu}


def plain_requests(alias: str, params: dict[str, Any]) -> list[Request]:
    from bench.plain import plain_body
    from bench.search_mix import parsed_params
    from webapp.services.query.parser import parse_query
    from webapp.services.search_settings import search_config

    p = parsed_params(params)
    return [Request("POST", f"/{alias}/_search", plain_body(parse_query(p.q), p, search_config()))]


def cost_rows(alias: str, repeats: int, parts: Callable[[str, dict], dict[str, list[Request]]] | None) -> list[dict]:
    replay = Replayer()
    rows = []
    for kind, params in QUERY_MIX:
        ours, plain = service_requests(alias, params), plain_requests(alias, params)
        replay.took(ours), replay.took(plain)  # warm: file cache, query parsing
        row: dict[str, Any] = {"kind": kind, "params": params, "requests": len(ours),
                               "ours": replay.measure(ours, repeats), "plain": replay.measure(plain, repeats)}
        if parts:
            row["parts"] = {name: replay.measure(reqs, repeats)["took_ms"]
                            for name, reqs in parts(alias, params).items()}
        rows.append(row)
        log(f"  {kind:12} {str(params.get('q', ''))[:30]:32} ours {row['ours']['took_ms']:7.1f} ms "
            f"plain {row['plain']['took_ms']:6.1f} ms  x{_ratio(row['ours']['took_ms'], row['plain']['took_ms'])}")
    return rows


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def summary(rows: list[dict]) -> dict[str, Any]:
    """Sums by kind and over the mix (took and CPU), with ours/plain ratios."""
    def sums(selected: list[dict]) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": len(selected)}
        for side in ("ours", "plain"):
            out[f"{side}_took_ms"] = round(sum(r[side]["took_ms"] for r in selected), 1)
            cpus = [r[side]["cpu_ms"] for r in selected if r[side]["cpu_ms"] is not None]
            out[f"{side}_cpu_ms_per_search"] = round(sum(cpus) / len(cpus), 1) if cpus else None
        out["took_ratio"] = _ratio(out["ours_took_ms"], out["plain_took_ms"])
        out["cpu_ratio"] = _ratio(out["ours_cpu_ms_per_search"], out["plain_cpu_ms_per_search"])
        return out

    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    return {"mix": sums(rows), "kinds": {k: sums([r for r in rows if r["kind"] == k]) for k in kinds}}


def table(corpus: str, papers: int, rows: list[dict], totals: dict) -> str:
    lines = [f"{corpus} ({papers:,} papers): took ms (median) and node CPU ms per search, ours vs plain",
             f"{'kind':13} {'query':32} {'req':>3} {'ours':>8} {'plain':>7} {'x':>6} {'cpu ours':>9} {'cpu plain':>9}"]
    for r in rows:
        o, p = r["ours"], r["plain"]
        lines.append(f"{r['kind']:13} {str(r['params'].get('q', ''))[:32]:32} {r['requests']:>3} {o['took_ms']:>8.1f} "
                     f"{p['took_ms']:>7.1f} {_ratio(o['took_ms'], p['took_ms']) or 0:>6.2f} "
                     f"{o['cpu_ms'] if o['cpu_ms'] is not None else '-':>9} "
                     f"{p['cpu_ms'] if p['cpu_ms'] is not None else '-':>9}")
        for name, took in r.get("parts", {}).items():
            lines.append(f"{'':13}   without {name:24} {'':>3} {took:>8.1f}  (part costs "
                         f"{o['took_ms'] - took:+.1f} ms)")
    lines.append("by kind:")
    for kind, k in [*totals["kinds"].items(), ("= mix", totals["mix"])]:
        lines.append(f"  {kind:12} ours {k['ours_took_ms']:>8.1f} plain {k['plain_took_ms']:>7.1f} "
                     f"x{k['took_ratio']}  CPU/search ours {k['ours_cpu_ms_per_search']} plain "
                     f"{k['plain_cpu_ms_per_search']} x{k['cpu_ratio']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", default=[],
                        help="a real corpus file, loaded with the others behind one alias (repeatable)")
    parser.add_argument("--sizes", default="", help="generated corpus sizes, e.g. 13033,1000000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--parts", action="store_true", help="also price each part of our plan")
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--drop", action="store_true", help="delete the benchmark's indices at the end")
    parser.add_argument("--out", help="results file name under bench/results/")
    args = parser.parse_args(argv)
    ensure_node()
    parts = None
    if args.parts:
        from bench.plan_parts import without_each_part as parts
    results = new_results("query_cost", argv, args.repeats)
    started = time.time()
    for label, alias, papers in loaded_corpora(args):
        rows = cost_rows(alias, args.repeats, parts)
        totals = summary(rows)
        results["corpora"].append({"corpus": label, "alias": alias, "papers": papers, "rows": rows, **totals})
        print(table(label, papers, rows, totals), flush=True)
    write_results(results, started, args.out or f"query-cost-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json")
    return 0


def corpus_inputs(corpora: list[Path], sizes: str) -> list[tuple[str, str, list[Path]]]:
    """(alias suffix, label, files) of each corpus asked for: the real files together, then each generated size."""
    from bench.corpus import ensure_corpus

    inputs: list[tuple[str, str, list[Path]]] = []
    present = [c for c in corpora if c.is_file()]
    for missing in set(corpora) - set(present):
        log(f"{missing}: not there; skipped")
    if present:
        inputs.append(("real", " + ".join(c.name for c in present), present))
    for size in (int(s) for s in sizes.split(",") if s.strip()):
        inputs.append((str(size), f"generated {size:,}", [ensure_corpus(size, log=log)]))
    return inputs


def loaded_corpora(args: argparse.Namespace) -> Iterator[tuple[str, str, int]]:
    """(label, alias, papers) of each corpus asked for (--corpus, --sizes), loaded unless it is (--reload: anew);
    with --drop the benchmark's indices are deleted at the end."""
    try:
        for name, label, sources in corpus_inputs(args.corpus, args.sizes):
            alias = f"{ALIAS}{name}"
            papers = ensure_loaded(alias, sources, args.reload)
            log(f"== {label}: {papers} papers behind {alias}")
            yield label, alias, papers
    finally:
        if args.drop:
            log(f"deleted {', '.join(delete_indices(f'{ALIAS}*')) or 'nothing'}")


def new_results(script: str, argv: list[str] | None, repeats: int) -> dict[str, Any]:
    return {"command": f"python -m bench.{script} " + " ".join(argv if argv is not None else sys.argv[1:]),
            "started": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(), "repeats": repeats,
            "corpora": []}


def write_results(results: dict[str, Any], started: float, name: str) -> Path:
    """bench/results/<name> with the run's duration and the load at its end."""
    results["elapsed_s"] = round(time.time() - started, 1)
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / name
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nresults: {out}")
    return out


if __name__ == "__main__":
    sys.exit(main())
