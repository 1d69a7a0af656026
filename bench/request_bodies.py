"""Every request the search service sends, for many searches, written down so a refactoring can be proven to
change none of them (issue 31: "request bodies proven identical before and after").

    .venv/bin/python -m bench.request_bodies --alias papersbench_real_mixed_plugin --out before.jsonl
    (change the code)
    .venv/bin/python -m bench.request_bodies --alias papersbench_real_mixed_plugin --out after.jsonl
    cmp before.jsonl after.jsonl

The searches: the benchmark mix, the sample relevance set, the cross-lingual set, typed syntax (fields,
phrases, exclusions, typos, Chinese, mixed script), each with the default parameters and with one of a
rotating list of others (filters, sorts, pages, sizes, xl=0); with --large, also as on an index above the
large-index threshold (the hits and the facets apart). Requests are recorded from SearchService itself
(bench/search_mix.service_requests), so the ladder's later rounds are included as the answers decide them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

from bench.common import es_url, log
from bench.search_mix import QUERY_MIX, _recording_service, service_requests

HERE = Path(__file__).parent
TYPED = [
    'graph neural networks "message passing"', "author:hinton", 'author:"Søren Hauberg"', "title:diffusion models",
    "abstract:contrastive -vision", "topic:reinforcement", "-zebra", "stochastik optimisation", "transfomer atention",
    "atention", "qwxzv", "diffusoin modles for imgae generation", "Transformer模型", "联邦学习 privacy",
    "深度学习 方法 研究", "大豆制浆工艺", "how to make diffusion models sample faster", "LLM", "GAN 图像",
    "privacy", "隐私", "concrete cracks", "gpt-4 reasoning", "ov稳定性原理", "a", "the of and", "x" * 60,
]
PARAMS: list[dict[str, Any]] = [
    {"area": "Deep Learning"}, {"sort": "year"}, {"page": "2"}, {"size": "25"}, {"xl": "0"},
    {"subarea": "Deep Learning > Large Language Models"}, {"year": ["2023", "2024"]}, {"sort": "title"},
    {"year_from": "2021", "year_to": "2023"}, {"page": "1001"}, {"venue": "ICLR"},
]


def searches() -> list[dict[str, Any]]:
    sample = json.loads((HERE / "relevance" / "queries.json").read_text(encoding="utf-8"))["queries"]
    xl = json.loads((HERE / "relevance" / "crosslingual.json").read_text(encoding="utf-8"))["queries"]
    texts = [p.get("q", "") for _, p in QUERY_MIX] + TYPED + [q["q"] for q in sample] + [q["q"] for q in xl]
    out: list[dict[str, Any]] = []
    extra = itertools.cycle(PARAMS)
    for q in dict.fromkeys(texts):
        out += [{"q": q}, {"q": q, **next(extra)}]
    return out + [{k: v for k, v in p.items()} for _, p in QUERY_MIX]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--alias", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--large", action="store_true", help="also as on an index above large_index.above")
    args = parser.parse_args(argv)
    todo = searches()
    modes = [False, True] if args.large else [False]
    written = 0
    with args.out.open("w", encoding="utf-8") as f:
        for large in modes:
            if large:  # the service this process records from (cached per alias), its threshold lowered
                _recording_service(args.alias, es_url())[0].config["large_index"]["above"] = 0
            for i, params in enumerate(todo, 1):
                sent = service_requests(args.alias, params)
                for r in sent:
                    f.write(json.dumps({"params": params, "large": large, "method": r.method, "path": r.path,
                                        "body": r.body}, ensure_ascii=False, sort_keys=True) + "\n")
                    written += 1
                if i % 200 == 0:
                    log(f"{i}/{len(todo)} searches{' (large)' if large else ''}")
    log(f"{len(todo) * len(modes)} searches, {written} requests written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
