"""Cross-language parity (issue 42): does a concept typed in one language rank its papers as well as the same
concept typed by its name in the other language, on the same papers?

    .venv/bin/python -m relevance.parity --corpora ../shared/corpora [--profile auto|plugin|core|both]
        [--label before] [--direction zh-en|en-zh|both] [--shape titled|notitle|both] [--reload] [--workers 2]
        [--aliases PREFIX] [--api URL --alias NAME] [--worst 5] [--xl-queries FILE] [--en FILE] [--zh FILE]

Pairs, from crosslingual.json's concepts (held-out sets: --xl-queries, other corpora: --en/--zh):
  zh-en  the Chinese query as typed, and the concept's English name, graded over the English papers
  en-zh  the English query as typed, and the concept's Chinese name, graded over the Chinese papers
The other-language name is the first one /api/search lists in `expansions[].also_searched` for the typed
query (what the results page says it also searched); else the glossary's name (config/concepts.tsv) of the
concept the typed text is a form of; else the set's own `concept` label. Each pair says which.
Shapes: `titled` the judged language's papers with their titles (an index of their own, as the graded topic
sets of real.py: papers of the other language cannot be judged by these patterns), `notitle` the same papers
with their titles removed (the listing shape). Grades as relevance/graded.py's Grader: with titles
2 = the title names the concept, 1 = only the abstract; without titles 2 = the abstract names it twice or
more, 1 = once. Both queries of a pair are graded against the same grades.
Aliases: PREFIX{en,notitle,zh,zhnotitle}_<profile>, loaded and served as real.py does (served, load); an
alias holding other papers is rebuilt, so give held-out corpora a prefix of their own (--aliases
papersbench_real_heldout_). en and notitle are the aliases real.py's graded sets use.
Output: per direction and shape mean nDCG@10 of the typed query and of the other-language name, their ratio
(typed / other), flat top 10s of each, the --worst pairs (largest gap other − typed) with the grades of both
top 10s; everything per pair in bench/results/parity-<profile>[-<label>]-<UTC time>.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR, log
from papersearch.text import has_cjk
from relevance import crosslingual as xlset
from relevance import graded as gr
from relevance.corpora import ALIAS_PREFIX, EN_FILE, ZH_FILE, locate, read_jsonl, write_without_titles
from relevance.crosslingual import ConceptQuery
from relevance.metrics import K

DIRECTIONS = {"zh-en": ("zh", "en"), "en-zh": ("en", "zh")}  # direction -> (typed language, papers' language)
SHAPES = ("titled", "notitle")
# the alias of each corpus and shape: en and notitle are real.py's (its graded topic sets use the same papers)
ALIAS_KINDS = {("en", "titled"): "en", ("en", "notitle"): "notitle", ("zh", "titled"): "zh",
               ("zh", "notitle"): "zhnotitle"}
SOURCES = ("api", "glossary", "concept")  # where a pair's other-language name came from, in order of preference
NameIndex = dict[tuple[str, str], str]  # (typed language, form key) -> the concept's name in the other language


# --- the other-language name ------------------------------------------------------------------------------


def api_name(expansions: Sequence[dict[str, Any]], language: str) -> str | None:
    """What the API says it also searched in `language` (expansions[].also_searched): the first such name of
    each concept recognised, in the query's order ("联邦学习 差分隐私" → "federated learning differential
    privacy"); None when it names none."""
    found = []
    for expansion in expansions:
        name = next((n.strip() for n in expansion.get("also_searched") or []
                     if n.strip() and has_cjk(n) == (language == "zh")), None)
        if name and name not in found:
            found.append(name)
    return " ".join(found) or None


def glossary_names(glossary: Any) -> NameIndex:
    """Every form of every glossary concept -> the concept's name in the other language (the first concept
    listing a form wins, as the file's order)."""
    from papersearch.concepts.glossary import form_key

    out: NameIndex = {}
    for concept in glossary.concepts:
        for form in concept.zh:
            out.setdefault(("zh", form_key(form, "zh")), concept.name_en)
        for form in concept.en:
            out.setdefault(("en", form_key(form, "en")), concept.name_zh)
    return out


def other_name(query: ConceptQuery, expansions: Sequence[dict[str, Any]], names: NameIndex) -> tuple[str, str]:
    """(the concept's name in the papers' language, where it came from: api, glossary or concept)."""
    from papersearch.concepts.glossary import form_key

    typed, target = DIRECTIONS[query.direction]
    if name := api_name(expansions, target):
        return name, "api"
    if name := names.get((typed, form_key(query.q.strip(), typed))):
        return name, "glossary"
    return (gr.english_query(query.concept) if target == "en" else query.concept), "concept"


# --- pairs and their summary ------------------------------------------------------------------------------


@dataclass
class Pair:
    concept: ConceptQuery
    direction: str
    shape: str
    source: str  # of the other-language name
    typed: gr.GradedResult
    other: gr.GradedResult

    @property
    def gap(self) -> float:
        """How much worse the typed query ranks than the other-language name (negative: better)."""
        return self.other.ndcg - self.typed.ndcg


def _outcome(r: gr.GradedResult) -> dict[str, Any]:
    return {"q": r.query.q, "ndcg": round(r.ndcg, 3), "flat": r.flat, "total": r.total, "grades": r.grades_top,
            "top": r.top, "scores": [None if s is None else round(s, 4) for s in r.scores]}


def pair_row(p: Pair) -> dict[str, Any]:
    grades = p.typed.query.grades
    return {"id": p.concept.id, "direction": p.direction, "shape": p.shape, "source": p.source,
            "judged": len(grades), "grade_2": sum(1 for g in grades.values() if g == 2), "gap": round(p.gap, 3),
            "typed": _outcome(p.typed), "other": _outcome(p.other)}


def summarize(pairs: Sequence[Pair], worst: int) -> dict[str, Any]:
    """One direction and shape: mean nDCG@10 of typed and other, ratio typed/other, flat counts, the worst
    pairs (largest gap first; ties by id so that runs compare), and where the names came from (with the
    means of each source's pairs: a fallback name is not what the results page shows)."""
    ranked = sorted(pairs, key=lambda p: (-p.gap, p.concept.id))
    return {**_means(pairs),
            "flat_typed": sum(p.typed.flat for p in pairs), "flat_other": sum(p.other.flat for p in pairs),
            "typed_worse": sum(1 for p in pairs if p.gap > 0), "typed_better": sum(1 for p in pairs if p.gap < 0),
            "sources": dict(Counter(p.source for p in pairs)),
            "by_source": {src: _means([p for p in pairs if p.source == src])
                          for src in SOURCES if any(p.source == src for p in pairs)},
            "worst": [pair_row(p) for p in ranked[:worst]]}


def _means(pairs: Sequence[Pair]) -> dict[str, Any]:
    n = len(pairs)
    typed = sum(p.typed.ndcg for p in pairs) / n if n else 0.0
    other = sum(p.other.ndcg for p in pairs) / n if n else 0.0
    return {"pairs": n, "typed_ndcg": round(typed, 3), "other_ndcg": round(other, 3),
            "ratio": round(typed / other, 3) if other else None}


def _grades(r: dict[str, Any]) -> str:
    return "".join(map(str, r["grades"])).ljust(K, "-")


def table(summaries: dict[str, dict[str, Any]], header: str) -> str:
    lines = [header, "",
             f"{'direction/shape':<18} {'pairs':>5} {'typed':>6} {'other':>6} {'ratio':>6} "
             f"{'flat t/o':>8} {'worse/better':>12}  names api/glossary/concept"]
    for key, s in summaries.items():
        src = "/".join(str(s["sources"].get(k, 0)) for k in SOURCES)
        ratio = f"{s['ratio']:.2f}" if s["ratio"] is not None else "–"
        lines.append(f"{key:<18} {s['pairs']:>5} {s['typed_ndcg']:>6.3f} {s['other_ndcg']:>6.3f} {ratio:>6} "
                     f"{s['flat_typed']:>4}/{s['flat_other']:<3} {s['typed_worse']:>6}/{s['typed_better']:<5}  {src}")
    for key, s in summaries.items():
        if s["worst"]:
            lines += ["", f"worst pairs, {key} (grades of the top {K}, typed | other):"]
        for w in s["worst"]:
            t, o = w["typed"], w["other"]
            lines.append(f"  {w['id']:<22} {t['ndcg']:.2f} {_grades(t)}{'*' if t['flat'] else ' '}| "
                         f"{o['ndcg']:.2f} {_grades(o)}{'*' if o['flat'] else ' '} {t['q']} | {o['q']} ({w['source']})")
    lines.append(f"(* a flat top {K}: at most {gr.FLAT_SCORES} distinct scores while more than {K} papers match)")
    return "\n".join(lines)


# --- searching --------------------------------------------------------------------------------------------


class ApiSearch:
    """/api/search of one webapp as a ScoredRunner, keeping each response (the typed query's expansions are
    read from it): one HTTP session per thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.local = threading.local()
        self.responses: dict[str, dict[str, Any]] = {}

    def response(self, q: str) -> dict[str, Any]:
        import requests

        from relevance.systems import api_search

        if q not in self.responses:
            if not hasattr(self.local, "session"):
                self.local.session = requests.Session()
            self.responses[q] = api_search(self.local.session, self.url, {"q": q, "size": K})
        return self.responses[q]

    def __call__(self, q: str) -> tuple[list[str], int, list[float | None]]:
        data = self.response(q)
        return [h["id"] for h in data["hits"]], data["total"], [h.get("score") for h in data["hits"]]


def run_pairs(search: ApiSearch, concepts: Sequence[ConceptQuery], grader: gr.Grader, direction: str, shape: str,
              names: NameIndex, workers: int) -> list[Pair]:
    """Each concept of the direction with a judged paper among the grader's: typed, then by its other name."""
    judged = [(c, grades) for c in concepts if c.direction == direction and (grades := grader.grades(c.judge))]
    typed = gr.evaluate(search, [gr.GradedQuery(c.id, c.q, f"{direction}_{shape}_typed", g) for c, g in judged],
                        workers)
    named = [other_name(c, search.response(c.q).get("expansions") or [], names) for c, _ in judged]
    other = gr.evaluate(search, [gr.GradedQuery(f"{c.id}-other", name, f"{direction}_{shape}_other", g)
                                 for (c, g), (name, _) in zip(judged, named, strict=True)], workers)
    return [Pair(c, direction, shape, source, t, o)
            for (c, _), (_, source), t, o in zip(judged, named, typed, other, strict=True)]


def run(args: argparse.Namespace) -> int:
    from papersearch.concepts.glossary import load as load_glossary
    from papersearch.es import make_client
    from papersearch.index_definition import choose_profile
    from relevance.real import check_serves, load, served, timed

    paths = {"en": locate(args.corpora, args.en, EN_FILE), "zh": locate(args.corpora, args.zh, ZH_FILE)}
    wanted = [(d, s) for d in args.direction for s in args.shape if paths[DIRECTIONS[d][1]]]
    if not wanted:
        raise SystemExit("parity: no corpus for the directions asked (--corpora DIR, or --en/--zh FILE)")
    if args.api and len(wanted) != 1:
        raise SystemExit("parity: --api serves one index: pick one --direction and one --shape with it")
    papers = {lang: read_jsonl(p) for lang, p in paths.items() if p}
    concepts = xlset.load(args.xl_queries)
    glossary = load_glossary(args.glossary)
    names = glossary_names(glossary)
    profile = args.profile = choose_profile(make_client("indexer"), args.profile)
    results: dict[str, list[Pair]] = {}
    aliases: dict[str, str] = {}
    for direction, shape in wanted:
        language = DIRECTIONS[direction][1]
        path, corpus = paths[language], papers[language]
        alias = args.alias or f"{args.aliases}{ALIAS_KINDS[language, shape]}_{profile}"
        sources = [path] if shape == "titled" else [write_without_titles(path, corpus)]
        load(alias, sources, len(corpus), args)
        grader = gr.Grader(corpus, titled=shape == "titled", language=language)
        key = f"{direction} {shape}"
        aliases[key] = alias
        with served(alias, args.api) as url:
            check_serves(url, alias)
            results[key] = timed(f"{key} on {alias}", lambda u=url, d=direction, s=shape, g=grader:
                                 run_pairs(ApiSearch(u), concepts, g, d, s, names, args.workers))
        if not results[key]:
            raise SystemExit(f"parity: no concept of {args.xl_queries} has a judged paper for {key} "
                             f"in {path}: nothing to compare")

    from relevance.evaluate import alias_profile

    used = alias_profile(make_client("web"), next(iter(aliases.values())))
    summaries = {key: summarize(pairs, args.worst) for key, pairs in results.items()}
    header = (f"cross-language parity, profile {used}{f', label {args.label}' if args.label else ''}: "
              f"{', '.join(f'{lang} {len(p)} papers ({paths[lang]})' for lang, p in papers.items())}; "
              f"concepts {args.xl_queries}; nDCG@{K}, ratio = typed / other-language name")
    print(table(summaries, header), flush=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or RESULTS_DIR / f"parity-{used}{f'-{args.label}' if args.label else ''}-{stamp}.json"
    meta = {"command": "python -m relevance.parity " + " ".join(args.argv), "label": args.label,
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "profile": used, "aliases": aliases,
            "api": args.api or "gunicorn started by the script", "xl_queries": str(args.xl_queries),
            "glossary": glossary.path, "corpora": {lang: str(p) for lang, p in paths.items()},
            "papers": {lang: len(p) for lang, p in papers.items()}, "k": K, "flat_scores": gr.FLAT_SCORES}
    body = {**meta, "summary": summaries,
            "pairs": {key: [pair_row(p) for p in sorted(pairs, key=lambda p: p.concept.id)]
                      for key, pairs in results.items()}}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    log("parity " + "; ".join(f"{k}: {s['typed_ndcg']:.3f} vs {s['other_ndcg']:.3f} (ratio {s['ratio']})"
                              for k, s in summaries.items()) + f"; written to {out}")
    return 0


def _choices(kind: str, allowed: Sequence[str]):
    def parse(value: str) -> list[str]:
        chosen = list(allowed) if value == "both" else [value]
        if any(c not in allowed for c in chosen):
            raise argparse.ArgumentTypeError(f"{kind}: {value!r} is not one of {', '.join(allowed)} or both")
        return chosen
    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpora", type=Path, help=f"directory with {EN_FILE} and {ZH_FILE}")
    parser.add_argument("--en", type=Path, help="English corpus file (default: CORPORA/" + EN_FILE + ")")
    parser.add_argument("--zh", type=Path, help="Chinese corpus file (default: CORPORA/" + ZH_FILE + ")")
    parser.add_argument("--xl-queries", type=Path, default=xlset.QUERIES, help="the concept set (JSON)")
    parser.add_argument("--glossary", type=Path, help="the glossary for fallback names (default config's)")
    parser.add_argument("--profile", choices=["auto", "plugin", "core", "both"], default="auto",
                        help="analysis profile when loading (auto: the plugin when installed; both: plugin, core)")
    parser.add_argument("--direction", type=_choices("--direction", list(DIRECTIONS)), default=list(DIRECTIONS),
                        help="zh-en, en-zh or both (default)")
    parser.add_argument("--shape", type=_choices("--shape", SHAPES), default=list(SHAPES),
                        help="titled, notitle or both (default)")
    parser.add_argument("--aliases", default=ALIAS_PREFIX,
                        help=f"alias prefix: PREFIX{{en,notitle,zh,zhnotitle}}_<profile> (default {ALIAS_PREFIX})")
    parser.add_argument("--api", help="base URL of a webapp serving the one index asked for (default: start one)")
    parser.add_argument("--alias", help="the index that --api serves (one direction and shape)")
    parser.add_argument("--reload", action="store_true", help="rebuild the indices even if they are loaded")
    parser.add_argument("--workers", type=int, default=2, help="queries in flight at once (results are the same)")
    parser.add_argument("--worst", type=int, default=5, help="worst pairs to report per direction and shape")
    parser.add_argument("--label", default="", help="names the run (e.g. before, after): in the file name and JSON")
    parser.add_argument("--out", type=Path, help="JSON report (default bench/results/parity-<profile>-…json)")
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    if args.label and not all(ch.isalnum() or ch in "-_." for ch in args.label):
        parser.error("--label: letters, digits, '-', '_' and '.' only (it is part of a file name)")
    if args.alias and not args.api:
        parser.error("--alias names the index --api serves; without --api the aliases are PREFIX… (--aliases)")
    profiles = ["plugin", "core"] if args.profile == "both" else [args.profile]
    failed = 0
    for profile in profiles:
        out = args.out.with_name(f"{args.out.stem}-{profile}{args.out.suffix}") if args.out and len(profiles) > 1 \
            else args.out
        failed |= run(argparse.Namespace(**{**vars(args), "profile": profile, "out": out}))
    return failed


if __name__ == "__main__":
    sys.exit(main())
