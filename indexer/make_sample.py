"""Regenerate indexer/sample/papers.jsonl from the seed listing pages.

    python -m indexer.make_sample [PAGE.txt ...] [-o OUT]

Defaults to tests/fixtures/seeds/*.txt. The output is deterministic (input order, sorted keys), so
re-running it gives a byte-identical file. Rejected records are reported and make the exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from indexer.loading.models import Paper
from indexer.loading.readers import read_records
from papersearch.taxonomy import Taxonomy

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SEEDS = ROOT / "tests" / "fixtures" / "seeds"
DEFAULT_OUT = Path(__file__).resolve().parent / "sample" / "papers.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path, help="listing pages (default: the seed pages)")
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    pages = args.pages or sorted(DEFAULT_SEEDS.glob("*.txt"))
    taxonomy = Taxonomy.load()
    papers, rejects = 0, 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8", newline="\n") as out:
        for page in pages:
            for record in read_records(page, taxonomy):
                if isinstance(record, Paper):
                    out.write(json.dumps(record.model_dump(), sort_keys=True, ensure_ascii=False) + "\n")
                    papers += 1
                else:
                    print(record.format(), file=sys.stderr)
                    rejects += 1
    print(f"{args.out}: {papers} papers, {rejects} rejected", file=sys.stderr)
    return 1 if rejects else 0


if __name__ == "__main__":
    sys.exit(main())
