"""The one cost command: what our searches cost Elasticsearch, beside plain BM25 anchors, per query kind.

    make bench            (the mix on a generated corpus of 13,033 papers: --sizes 13033 --repeats 3)
    .venv/bin/python -m bench.query_cost [--corpus FILE ...] [--sizes 13033,1000000] [--repeats 5]
                                         [--parts] [--pages] [--reload] [--drop] [--out FILE]

For every query of bench/search_mix.py's mix, on every corpus:
  ours        every request SearchService.search sends for it (recorded from the service itself, as
              bench/search.py does: the words as typed, the relaxed request, the did-you-mean check), replayed
  plain       one multi_match over the main text fields carrying the same facet aggregations, post_filter,
              sort and page, a simple highlight, exact counts (bench/plain.py)
  treated     (a) plain with our page's treatment: the same total cap and facet sampling (like with like)
  translated  (b) a cross-language query: plain ORing the glossary's forms as phrases (translate-then-search)
  corrected   (c) a misspelt query: plain on the words ours corrected it to
Ours and the anchors are replayed interleaved, --repeats times each, with the request cache off; reported:
the median of Elasticsearch's own `took` (summed over a search's requests) and of the node's CPU per search
(the node's own JVM, found by its pid: bench/processes.py). The ratios: ours against plain, against (a),
and against the fair anchor (c where ours corrected the query, else b where it named a concept, else a), per
kind and for the mix. On a shared machine read the ratios, not the times.
--parts also prices each part of our plan (bench/plan_parts.py: the same requests without it, so the
difference is what that part costs); --pages prices author and topic pages beside a search's (bench/page_cost.py).

Corpora: --corpus files (real papers in our JSONL schema) are loaded together behind papersbench_cost_real;
--sizes are generated corpora (bench/corpus.py) behind papersbench_cost_<size>. Loading is
`papersearch-admin reindex` and is skipped when the alias already holds that many papers (--reload rebuilds);
--drop deletes the aliases' indices at the end. The node must be running (`make node`); this never starts one.
Writes bench/results/query-cost-<UTC time>.json (with this command; untracked unless added on purpose) and
prints the tables.
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

from bench.common import (
    PREFIX,
    RESULTS_DIR,
    ROOT,
    VENV_BIN,
    WEB_USER,
    delete_indices,
    es_url,
    log,
    machine,
    require_node,
)
from bench.common import session as es_session
from bench.processes import cpu_seconds_exact, es_process
from bench.search_mix import QUERY_MIX, Request, service_search

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

    def measure(self, sets: dict[str, list[Request]], repeats: int) -> dict[str, dict[str, float | None]]:
        """Each set of requests `repeats` times, interleaved (the order turning each round, so none always
        follows another): the median `took` and node CPU ms of each."""
        took: dict[str, list[float]] = {n: [] for n in sets}
        cpu: dict[str, list[float]] = {n: [] for n in sets}
        names = list(sets)
        for i in range(repeats):
            for name in names[i % len(names):] + names[:i % len(names)]:
                before = cpu_seconds_exact(self.node)
                took[name].append(self.took(sets[name]))
                after = cpu_seconds_exact(self.node)
                if before is not None and after is not None:
                    cpu[name].append((after - before) * 1000)
        return {n: {"took_ms": statistics.median(took[n]),
                    "cpu_ms": round(statistics.median(cpu[n]), 2) if cpu[n] else None} for n in names}


ANCHORS = ("plain", "treated", "translated", "corrected")
SIDES = ("ours", "plain", "treated", "fair")


def searches(alias: str, params: dict[str, Any]) -> dict[str, list[Request]]:
    """Our requests for one search, and each anchor's that applies (bench/plain.py)."""
    from bench.plain import Treatment, anchors
    from bench.search_mix import parsed_params
    from papersearch.concepts import matcher
    from webapp.services.search_settings import search_config

    ours, result = service_search(alias, params)
    bodies = [b for r in ours for b in (r.body[1::2] if isinstance(r.body, list) else [r.body])]
    p, config = parsed_params(params), search_config()
    corrected = result.showing_for or result.did_you_mean
    found = anchors(p.q, p, config, Treatment.of(bodies), matcher(), corrected)
    return {"ours": ours, **{name: [Request("POST", f"/{alias}/_search", b) for b in found[name]]
                             for name in ANCHORS if name in found}}


def cost_rows(alias: str, repeats: int, parts: Callable[[str, dict], dict[str, list[Request]]] | None) -> list[dict]:
    replay = Replayer()
    rows = []
    for kind, params in QUERY_MIX:
        sets = searches(alias, params)
        for requests in sets.values():
            replay.took(requests)  # warm: file cache, query parsing
        measured = replay.measure(sets, repeats)
        fair = next((n for n in ("corrected", "translated") if n in measured), "treated")
        row: dict[str, Any] = {"kind": kind, "params": params, "requests": len(sets["ours"]), "fair_anchor": fair,
                               **measured, "fair": measured[fair]}
        if parts:
            row["parts"] = {name: replay.measure({name: reqs}, repeats)[name]["took_ms"]
                            for name, reqs in parts(alias, params).items()}
        rows.append(row)
        log(f"  {kind:12} {str(params.get('q', ''))[:30]:32} ours {row['ours']['took_ms']:7.1f} ms  "
            + "  ".join(f"{s} x{_ratio(row['ours']['took_ms'], row[s]['took_ms'])}" for s in SIDES[1:]))
    return rows


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def summary(rows: list[dict]) -> dict[str, Any]:
    """Sums by kind and over the mix (took, and CPU per search), with ours against each anchor."""
    def sums(selected: list[dict]) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": len(selected)}
        for side in SIDES:
            out[f"{side}_took_ms"] = round(sum(r[side]["took_ms"] for r in selected), 1)
            cpus = [r[side]["cpu_ms"] for r in selected if r[side]["cpu_ms"] is not None]
            out[f"{side}_cpu_ms_per_search"] = round(sum(cpus) / len(cpus), 1) if cpus else None
        for side in SIDES[1:]:
            out[f"took_x_{side}"] = _ratio(out["ours_took_ms"], out[f"{side}_took_ms"])
            out[f"cpu_x_{side}"] = _ratio(out["ours_cpu_ms_per_search"], out[f"{side}_cpu_ms_per_search"])
        return out

    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    return {"mix": sums(rows), "kinds": {k: sums([r for r in rows if r["kind"] == k]) for k in kinds}}


def table(corpus: str, papers: int, rows: list[dict], totals: dict) -> str:
    lines = [f"{corpus} ({papers:,} papers): took ms (median) per search; ours against plain, (a) treated, and "
             "the fair anchor (c corrected, else b translated, else a)",
             f"{'kind':13} {'query':30} {'req':>3} {'ours':>7} {'plain':>6} {'(a)':>6} {'fair':>6} {'x plain':>7} "
             f"{'x (a)':>6} {'x fair':>6}"]
    for r in rows:
        o = r["ours"]["took_ms"]
        lines.append(f"{r['kind']:13} {str(r['params'].get('q', ''))[:30]:30} {r['requests']:>3} {o:>7.1f} "
                     f"{r['plain']['took_ms']:>6.1f} {r['treated']['took_ms']:>6.1f} {r['fair']['took_ms']:>6.1f} "
                     + " ".join(f"{_ratio(o, r[s]['took_ms']) or 0:>6.2f}" for s in SIDES[1:])
                     + ("" if r["fair_anchor"] == "treated" else f"  fair = {r['fair_anchor']}"))
        for name, took in r.get("parts", {}).items():
            lines.append(f"{'':13}   without {name:24} {'':>3} {took:>7.1f}  (part costs {o - took:+.1f} ms)")
    lines.append("by kind (took sums; node CPU ms per search):")
    for kind, k in [*totals["kinds"].items(), ("= mix", totals["mix"])]:
        lines.append(f"  {kind:12} took ours {k['ours_took_ms']:>7.1f}  x plain {k['took_x_plain']}  x (a) "
                     f"{k['took_x_treated']}  x fair {k['took_x_fair']}   CPU ours {k['ours_cpu_ms_per_search']}  "
                     f"x plain {k['cpu_x_plain']}  x (a) {k['cpu_x_treated']}  x fair {k['cpu_x_fair']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", default=[],
                        help="a real corpus file, loaded with the others behind one alias (repeatable)")
    parser.add_argument("--sizes", default="", help="generated corpus sizes, e.g. 13033,1000000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--parts", action="store_true", help="also price each part of our plan")
    parser.add_argument("--pages", action="store_true", help="also price author and topic pages")
    parser.add_argument("--reload", action="store_true")
    parser.add_argument("--drop", action="store_true", help="delete the benchmark's indices at the end")
    parser.add_argument("--out", help="results file: a name (under bench/results/) or a path")
    parser.add_argument("--alias", default=ALIAS, help=f"the aliases' prefix (default {ALIAS}; starts with {PREFIX})")
    args = parser.parse_args(argv)
    if not args.alias.startswith(PREFIX):
        parser.error(f"--alias must start with {PREFIX}: the benchmarks touch no other index")
    require_node()
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
        if args.pages:
            from bench import page_cost

            results["corpora"][-1]["pages"] = page_cost.priced(alias, args.repeats, label, papers)
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
    prefix = getattr(args, "alias", ALIAS)
    try:
        for name, label, sources in corpus_inputs(args.corpus, args.sizes):
            alias = f"{prefix}{name}"
            papers = ensure_loaded(alias, sources, args.reload)
            log(f"== {label}: {papers} papers behind {alias}")
            yield label, alias, papers
    finally:
        if args.drop:
            log(f"deleted {', '.join(delete_indices(f'{prefix}*')) or 'nothing'}")


def new_results(script: str, argv: list[str] | None, repeats: int) -> dict[str, Any]:
    return {"command": f"python -m bench.{script} " + " ".join(argv if argv is not None else sys.argv[1:]),
            "started": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(), "repeats": repeats,
            "corpora": []}


def write_results(results: dict[str, Any], started: float, name: str) -> Path:
    """bench/results/<name>, or the path given, with the run's duration and the load at its end."""
    results["elapsed_s"] = round(time.time() - started, 1)
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    out = Path(name) if Path(name).parent != Path(".") else RESULTS_DIR / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nresults: {out}")
    return out


if __name__ == "__main__":
    sys.exit(main())
