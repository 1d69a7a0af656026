"""Would a topic assigned from a paper's glossary concepts be right? (issue 57.12, DECISIONS.md D-214)

On papers whose source gives a topic, tag their title and abstract with the glossary (the indexer's own matcher,
papersearch/concepts/matcher.py), take a concept of kind `topic` the way an assigner would (the title's first, else
the abstract's first; or the title's only), and count how often its topic agrees with the source's: the same
subarea, or a topic of the same area. No node needed.

    .venv/bin/python -m relevance.topic_agreement ../shared/corpora/ml-papers-iclr.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from papersearch.concepts.glossary import cached
from papersearch.concepts.matcher import matcher
from papersearch.taxonomy import Taxonomy, fold_topic

Pick = Callable[[list[str], list[str]], str | None]
RULES: dict[str, Pick] = {
    "title, else abstract": lambda title, both: (title or both or [None])[0],
    "title only": lambda title, both: (title or [None])[0],
}


def _papers(path: Path) -> Iterator[dict]:
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")) as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def measure(path: Path) -> dict[str, Counter]:
    glossary, taxonomy, tagger = cached(None), Taxonomy.load(), matcher(None)
    names = {c.id: c.name_en for c in glossary.concepts if c.kind == "topic"}
    areas_of_sub: dict[str, set[str]] = {}
    for area, sub in taxonomy.subareas:
        areas_of_sub.setdefault(fold_topic(sub), set()).add(area)
    results = {rule: Counter() for rule in RULES}
    for paper in _papers(path):
        area, sub = paper.get("topic_area"), paper.get("topic_subarea")
        if not area:
            continue
        title = [i for i in tagger.tag([paper.get("title") or ""]) if i in names]
        both = [i for i in tagger.tag([paper.get("title") or "", paper.get("abstract") or ""]) if i in names]
        for rule, pick in RULES.items():
            counts = results[rule]
            counts["papers"] += 1
            chosen = pick(title, both)
            if chosen is None:
                continue
            counts["assigned"] += 1
            key = fold_topic(names[chosen])
            own_area = taxonomy.area_of(names[chosen])
            areas = {own_area} if own_area else areas_of_sub.get(key, set())
            counts["same subarea"] += bool(sub) and key == fold_topic(sub)
            counts["same area"] += fold_topic(area) in {fold_topic(a) for a in areas}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="papers in our JSONL schema (.jsonl or .jsonl.gz)")
    args = parser.parse_args(argv)
    for rule, counts in measure(args.corpus).items():
        assigned = counts["assigned"] or 1
        print(f"{rule}: {counts['papers']} papers with a source topic, {counts['assigned']} assigned "
              f"({counts['assigned'] / max(counts['papers'], 1):.0%}); of those the same area "
              f"{counts['same area'] / assigned:.0%}, the same subarea {counts['same subarea'] / assigned:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
