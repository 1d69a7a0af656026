"""Tables, instructive failures and the JSON report of the real-corpus evaluation (relevance/real.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relevance import graded as gr
from relevance import known_items as ki
from relevance.crosslingual import DIRECTIONS, ConceptQuery
from relevance.metrics import ConceptResult, K, QueryResult, concept_summary, summarize

GROUPS = {"English, titled index": ki.EN_KINDS, "Chinese": ki.ZH_KINDS,
          "ICLR without titles": tuple(f"notitle_{k}" for k in ki.NOTITLE_KINDS)}
Heading = Callable[[str], str]


def known_summary(systems: dict[str, list[QueryResult]]) -> dict[str, Any]:
    """Per system: by kind and per group (overall of the English, Chinese and no-title kinds)."""
    out: dict[str, Any] = {}
    for name, results in systems.items():
        entry: dict[str, Any] = {"by_kind": summarize(name, results).by_kind, "groups": {}}
        for group, kinds in GROUPS.items():
            members = [r for r in results if r.kind in kinds]
            if members:
                s = summarize(name, members)
                entry["groups"][group] = {"n": s.n, "mrr": s.mrr, "hit": s.hit, "zero": s.zero}
        out[name] = entry
    return out


def xl_summary(systems: dict[str, list[ConceptResult]]) -> dict[str, dict[str, dict[str, float]]]:
    return {name: {d: concept_summary([r for r in results if r.kind == d]) for d in DIRECTIONS}
            for name, results in systems.items()}


def print_tables(xl: dict[str, Any] | None, known: dict[str, Any] | None, header: str) -> None:
    print(header)
    if xl:
        names = list(xl)
        print(f"\nCross-lingual, concept precision@{K} (relevant in the top {K} / min({K}, relevant in the index)), "
              "and queries with no result")
        print(f"{'direction':<12}{'queries':>8}  " + "  ".join(f"{n + ' P@10':>16}  {'zero':>6}" for n in names))
        for d in DIRECTIONS:
            n = xl[names[0]][d]["n"]
            if n:
                cells = "  ".join(f"{xl[s][d]['precision']:>16.3f}  {xl[s][d]['zero']:>6}" for s in names)
                print(f"{d:<12}{n:>8}  {cells}")
    if known:
        names = list(known)
        print(f"\nKnown items: MRR@{K}, hit@{K} and queries with no result")
        head = "  ".join(f"{n[:8] + ' MRR':>12}  {'hit@10':>6}  {'zero':>5}" for n in names)
        print(f"{'kind':<28}{'n':>5}  {head}")
        for group, kinds in GROUPS.items():
            if group not in known[names[0]]["groups"]:
                continue
            for kind in (k for k in kinds if k in known[names[0]]["by_kind"]):
                row = [known[s]["by_kind"][kind] for s in names]
                print(f"{kind:<28}{row[0]['n']:>5}  " + "  ".join(
                    f"{r['mrr']:>12.3f}  {r['hit']:>6.3f}  {r['zero']:>5}" for r in row))
            row = [known[s]["groups"][group] for s in names]
            print(f"{'= ' + group:<28}{row[0]['n']:>5}  " + "  ".join(
                f"{r['mrr']:>12.3f}  {r['hit']:>6.3f}  {r['zero']:>5}" for r in row))


def print_graded(systems: dict[str, list[gr.GradedResult]]) -> None:
    names = list(systems)
    sums = {n: gr.summary(rs) for n, rs in systems.items()}
    print(f"\nGraded: nDCG@{K} (gain 2^grade - 1), P@{K} (grade >= 1), flat top {K}s (<= {gr.FLAT_SCORES} scores)")
    print(f"{'set':<22}{'n':>5}  " + "  ".join(f"{n[:8] + ' nDCG':>13}  {'P@10':>6}  {'flat':>4}" for n in names))
    for name, row in sums[names[0]].items():
        print(f"{name:<22}{row['n']:>5}  " + "  ".join(
            f"{sums[s][name]['ndcg']:>13.3f}  {sums[s][name]['precision']:>6.3f}  {sums[s][name]['flat']:>4}"
            for s in names))


def _came_back(top: list[str], heading: Heading, n: int = 3) -> str:
    return " | ".join(heading(pid) for pid in top[:n]) or "(nothing)"


def print_failures(xl: list[ConceptResult], known: list[QueryResult], heading: Heading, per_kind: int) -> None:
    """For the system under test: the worst queries of each kind, what came back instead."""
    if per_kind <= 0:
        return
    print(f"\nWorst queries of the system under test (up to {per_kind} per kind; what came back first)")
    for d in DIRECTIONS:
        worst = sorted((r for r in xl if r.kind == d), key=lambda r: (r.total > 0, r.precision))[:per_kind]
        for r in (r for r in worst if r.precision < 1):
            got = "NO RESULTS" if r.total == 0 else f"P@10 {r.precision:.1f} of {r.total}"
            print(f"  {d:<18} {r.q!r}: {got}: {_came_back(r.top, heading)}")
    kinds = dict.fromkeys(r.kind for r in known)
    for kind in kinds:
        misses = sorted((r for r in known if r.kind == kind and r.rr < 1),
                        key=lambda r: (r.total > 0, r.rr))[:per_kind]
        for r in misses:
            got = "NO RESULTS" if r.total == 0 else (f"rank {r.first_rank}" if r.first_rank else "not in top 10")
            print(f"  {kind:<18} {r.q!r}: {got} (wanted {heading(r.expected[0])!r}): {_came_back(r.top, heading)}")


def _dump(path: Path, head: dict[str, Any], sections: dict[str, list[dict[str, Any]]]) -> None:
    """Readable but compact: the summaries indented, one line per query."""
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    for name, rows in sections.items():
        text += f',\n "{name}": [\n  ' + ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n ]"
    path.write_text(text + "\n}\n", encoding="utf-8")


def _outcome(r: QueryResult) -> dict[str, Any]:
    """Rank and total; what came back only when the paper was not first (keeps the file small)."""
    out: dict[str, Any] = {"rank": r.first_rank, "total": r.total}
    if r.first_rank != 1:
        out["top"] = r.top
    return out


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def write_json(path: Path, meta: dict[str, Any], queries: list[ConceptQuery],
               xl: dict[str, list[ConceptResult]], known: dict[str, list[QueryResult]],
               graded: dict[str, list[gr.GradedResult]] | None = None) -> None:
    by_id = {q.id: q for q in queries}
    xl_rows = []
    for i, first in enumerate(next(iter(xl.values()), [])):
        q = by_id[first.id]
        xl_rows.append({"id": q.id, "direction": q.direction, "q": q.q, "concept": q.concept,
                        "n_relevant": first.n_relevant,
                        "systems": {n: {"precision": round(rs[i].precision, 3), "total": rs[i].total,
                                        "top": rs[i].top, "relevant": rs[i].relevant_top}
                                    for n, rs in xl.items()}})
    known_rows = []
    for i, first in enumerate(next(iter(known.values()), [])):
        known_rows.append({"id": first.id, "kind": first.kind, "q": first.q, "expected": first.expected,
                           "systems": {n: _outcome(rs[i]) for n, rs in known.items()}})
    graded = graded or {}
    graded_rows = []
    for i, first in enumerate(next(iter(graded.values()), [])):
        graded_rows.append({"id": first.query.id, "set": first.query.set, "q": first.query.q,
                            "judged": len(first.query.grades),
                            "systems": {n: {"ndcg": round(rs[i].ndcg, 3), "flat": rs[i].flat, "total": rs[i].total,
                                            "grades": rs[i].grades_top} for n, rs in graded.items()}})
    head = {**meta, "summary": _rounded({"crosslingual": xl_summary(xl) if xl else None,
                                         "known_items": known_summary(known) if any(known.values()) else None,
                                         "graded": {n: gr.summary(rs) for n, rs in graded.items()} or None})}
    _dump(path, head, {"crosslingual": xl_rows, "known_items": known_rows, "graded": graded_rows})

