"""Search by meaning on Chinese descriptive questions (issue 55, DECISIONS.md D-198): P@10 with and without meaning,
empty results, and what the meaning part costs per search.

    .venv/bin/python -m relevance.meaning --alias papersbench_meaning \\
        --corpus /work/shared/corpora/ml-papers-iclr.jsonl.gz [--weight 0.5] [--questions FILE] [--out FILE.json]
        [--set glosses.enabled=false] [--set glosses.weight=0.45]

The alias holds the corpus loaded with vectors (papersearch-admin reindex with meaning on). The same service answers
both ways: "words" with meaning switched off in the process, "meaning" with it on. Questions (meaning_zh.json) are
judged as descriptive.json (crosslingual.Judge: every group of English patterns in a paper's text); P@10 counts an
empty result as 0. The cost: the query's embedding (the encoder, cache cleared), the kNN's `took`, and the meaning
part's in all (the kNN, the words' ranks and the papers the fusion moved onto the page: `meaning_took_ms`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path
from typing import Any

from papersearch import concepts, meaning
from papersearch.es import make_client
from relevance.crosslingual import Judge
from webapp.domain import SearchParams
from webapp.services.plan.meaning import Missing, Nearest, WordRanks
from webapp.services.query import expansion as xp
from webapp.services.query.parser import parse_query
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config

QUESTIONS = Path(__file__).with_name("meaning_zh.json")


def papers(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def run(service: SearchService, questions: list[dict[str, Any]], relevant: dict[str, set[str]],
        on: bool) -> dict[str, Any]:
    meaning.enabled = lambda: on  # type: ignore[assignment]  # this process only
    rows, knn_took, round_took = [], [], []
    for q in questions:
        sent: list[tuple[Any, Any, Any]] = []
        result = service.search(SearchParams(q=q["q"]), trace=lambda r, b, a, sent=sent: sent.append((r, b, a)))
        top = [h.id for h in result.hits[:10]]
        knn_took += [a["took"] for r, _, a in sent if isinstance(r, Nearest) and isinstance(a, dict)]
        if any(isinstance(r, Nearest) for r, _, _ in sent):  # the whole meaning part: kNN, the words' ranks, Missing
            round_took.append(sum(a["took"] for r, _, a in sent
                                  if isinstance(r, Nearest | WordRanks | Missing) and isinstance(a, dict)))
        rows.append({"id": q["id"], "q": q["q"], "total": result.total, "by_meaning": result.by_meaning,
                     "p10": sum(i in relevant[q["id"]] for i in top) / 10, "top": top})
    return {"p10": statistics.mean(r["p10"] for r in rows), "empty": sum(r["total"] == 0 for r in rows),
            "knn_took_ms": knn_took, "meaning_took_ms": round_took, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--weight", type=float, help="meaning's weight in the fusion (default: the config's)")
    parser.add_argument("--reorder", action="store_true", help="fuse fully (keep_word_order false)")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="a set judged like descriptive.json")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=JSON",
                        help="a search setting for this run, e.g. glosses.enabled=false, glosses.weight=0.45")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    questions = json.loads(args.questions.read_text(encoding="utf-8"))["queries"]
    judge = Judge(papers(args.corpus))
    relevant = {q["id"]: {judge.ids[i] for i in set.intersection(*(judge.group(g) for g in q["judge"]))}
                for q in questions}
    config = search_config()
    changes = {**({"weight": args.weight} if args.weight is not None else {}),
               **({"keep_word_order": False} if args.reorder else {})}
    config = config.model_copy(update={"meaning": config.meaning.model_copy(update=changes)})
    for setting in args.set:  # glosses.weight=0.45: one key of one section, its value as JSON
        path, value = setting.split("=", 1)
        section, key = path.split(".")
        part = getattr(config, section)
        config = config.model_copy(update={section: part.model_copy(update={key: json.loads(value)})})
    service = SearchService(make_client("web"), args.alias, config)
    matcher = concepts.matcher()
    with_concepts = [q["id"] for q in questions if xp.expansions(parse_query(q["q"]).terms, matcher, 8, 8, 64)]
    embed_ms = []
    for q in questions:
        meaning._query_vector.cache_clear()
        started = time.perf_counter()
        meaning.query_vector(q["q"])
        embed_ms.append((time.perf_counter() - started) * 1000)
    words, meant = run(service, questions, relevant, False), run(service, questions, relevant, True)
    report = {"questions": len(questions), "with_glossary_concepts": with_concepts,
              "judged_relevant": {k: len(v) for k, v in relevant.items()},
              "p10_words": round(words["p10"], 3), "empty_words": words["empty"],
              "p10_meaning": round(meant["p10"], 3), "empty_meaning": meant["empty"],
              "embed_ms_p50": round(statistics.median(embed_ms), 1), "embed_ms_max": round(max(embed_ms), 1),
              "knn_took_ms_p50": statistics.median(meant["knn_took_ms"] or [0]),
              "knn_took_ms_max": max(meant["knn_took_ms"] or [0]),
              "meaning_took_ms_p50": statistics.median(meant["meaning_took_ms"] or [0]),
              "meaning_took_ms_max": max(meant["meaning_took_ms"] or [0]), "weight": config.meaning.weight,
              "keep_word_order": config.meaning.keep_word_order, "settings": args.set,
              "per_question": [{"id": w["id"], "q": w["q"], "words": w["p10"], "meaning": m["p10"],
                                "total_words": w["total"], "by_meaning": m["by_meaning"]}
                               for w, m in zip(words["rows"], meant["rows"], strict=True)]}
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "per_question"}, ensure_ascii=False))
    for row in report["per_question"]:
        print(f"  {row['id']:<18} words {row['words']:.1f} (of {row['total_words']})  meaning {row['meaning']:.1f}  "
              f"{row['q']}")


if __name__ == "__main__":
    main()
