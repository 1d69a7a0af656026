"""Spelling corrections on real papers: how often a typing error is corrected to the word meant, and how often
a word spelled right is "corrected" all the same.

    .venv/bin/python -m relevance.spelling --corpus ../shared/corpora/ml-papers-iclr.jsonl.gz \
        [--alias papersbench_real_mixed_plugin] [--n 200] [--seed 13]

Typos: words of six or more letters from the papers' titles, each in at least five papers, given one typing
error (known_items.misspell: a transposition, deletion, neighbouring key or doubled letter at the third letter
or later), typed alone and beside the title's next word. A typo is corrected when the search shows the
corrected query's results (`showing_for`) or offers it (`did_you_mean`) with the intended word in its place.
Rare words: words spelled right that one or two papers have, typed alone; "corrected" when the search offers
or shows anything else. The alias must hold the corpus (relevance/real.py loads it).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

from relevance.corpora import ALIAS_PREFIX, read_jsonl
from relevance.known_items import misspell

WORD = re.compile(r"[A-Za-z]{6,}")


def cases(papers: list[dict], n: int, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """(typed, meant) pairs, and correctly spelled rare words."""
    df: Counter[str] = Counter()
    for p in papers:
        df.update({w.casefold() for w in WORD.findall(f"{p.get('title', '')} {p.get('abstract', '')}")})
    rng = random.Random(f"{seed}:spelling")
    typos: list[tuple[str, str]] = []
    titles = [p["title"] for p in papers if p.get("title")]
    rng.shuffle(titles)
    for title in titles:
        words = title.split()
        for i, w in enumerate(words):
            if WORD.fullmatch(w) and df[w.casefold()] >= 5:
                typo = misspell(w.casefold(), rng.randrange(2, len(w)), rng)
                if df[typo] == 0 and typo != w.casefold():
                    nxt = words[i + 1].casefold() if i + 1 < len(words) and WORD.fullmatch(words[i + 1]) else None
                    typos.append((typo, w.casefold()))
                    if nxt:
                        typos.append((f"{typo} {nxt}", f"{w.casefold()} {nxt}"))
                break
        if len(typos) >= n:
            break
    rare = sorted(w for w, c in df.items() if c <= 2)
    rng.shuffle(rare)
    return typos[:n], rare[:n]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--alias", default=f"{ALIAS_PREFIX}mixed_plugin")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    from papersearch.es import make_client
    from webapp.domain import SearchParams
    from webapp.services.search import SearchService

    service = SearchService(make_client("web"), args.alias)
    typos, rare = cases(read_jsonl(args.corpus), args.n, args.seed)
    right = shown = 0
    misses = []
    for typed, meant in typos:
        result = service.search(SearchParams(q=typed))
        fixed = getattr(result, "showing_for", None) or result.did_you_mean
        right += fixed == meant
        shown += getattr(result, "showing_for", None) == meant
        if fixed != meant:
            misses.append(f"{typed!r} → {fixed!r} (meant {meant!r})")
    wrong = [(w, getattr(r, "showing_for", None) or r.did_you_mean) for w in rare
             if getattr(r := service.search(SearchParams(q=w)), "showing_for", None) or r.did_you_mean]
    print(f"typos corrected to the word meant: {right}/{len(typos)} ({right / len(typos):.1%}), "
          f"of which results shown for it: {shown}")
    print(f"rare words spelled right, corrected all the same: {len(wrong)}/{len(rare)} ({len(wrong) / len(rare):.1%})")
    for line in misses[:10]:
        print("  missed", line)
    for word, fixed in wrong[:10]:
        print(f"  rare {word!r} → {fixed!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
