"""Check the concept glossary, or see which concepts a text names.

    python -m papersearch.concepts check [FILE]     validate (default config/concepts.tsv); exit 1 on problems
    python -m papersearch.concepts find TEXT…       the concepts in a paper's text (as the indexer tags)
    python -m papersearch.concepts query TEXT…      the concepts in a query (any casing) and what is added
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from papersearch.concepts.coverage import uncovered
from papersearch.concepts.glossary import GlossaryError, load
from papersearch.concepts.matcher import ConceptMatcher
from papersearch.taxonomy import Taxonomy


def check(path: str | None) -> int:
    try:
        glossary = load(path)
    except GlossaryError as exc:
        print(exc, file=sys.stderr)
        return 1
    kinds = Counter(c.kind for c in glossary.concepts)
    print(f"{glossary.path}: {len(glossary)} concepts ({', '.join(f'{k} {n}' for k, n in kinds.most_common())})")
    missing = uncovered(glossary, Taxonomy.load())
    for topic in missing:
        print(f"{glossary.path}: taxonomy topic without a concept: {topic}", file=sys.stderr)
    return 1 if missing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m papersearch.concepts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check").add_argument("file", nargs="?")
    for name in ("find", "query"):
        cmd = sub.add_parser(name)
        cmd.add_argument("text", nargs="+")
        cmd.add_argument("--glossary")
    args = parser.parse_args(argv)
    if args.command == "check":
        return check(args.file)
    try:
        matcher = ConceptMatcher(load(args.glossary))
    except GlossaryError as exc:
        print(exc, file=sys.stderr)
        return 1
    text = " ".join(args.text)
    if args.command == "find":
        for cid in matcher.tag([text]):
            concept = matcher.concepts[cid]
            print(f"{cid}\t{concept.name_en}\t{concept.name_zh}")
        return 0
    for m in matcher.recognise(text.split()):
        names = "; ".join(f"{matcher.concepts[i].name_en} / {matcher.concepts[i].name_zh}" for i in m.ids)
        print(f"{m.text!r} → {', '.join(m.ids)} ({names})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
