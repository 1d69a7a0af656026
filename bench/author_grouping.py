"""How long grouping a common surname's name keys into people takes (papersearch/author_people.people, the work
behind /author/<surname> and /api/authors/<surname>; issue 53.1, DECISIONS.md D-180).

    .venv/bin/python -m bench.author_grouping --sizes 1000,5000 [--profile]

The keys are generated as a common Chinese surname's are written in Latin letters: given names of one or two
syllables, written as one word, as two, or as initials, and the surname alone; counts follow a long tail.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from papersearch.author_people import people

SYLLABLES = ("wei", "wen", "jun", "hong", "xiao", "ming", "li", "jian", "hua", "yu", "yan", "jing", "lei", "tao",
             "hui", "ping", "qiang", "lin", "fang", "jie", "bin", "chao", "dong", "feng", "gang", "hai", "kai",
             "long", "peng", "qing", "rui", "shan", "song", "xin", "yong", "zhi", "zhong", "bo", "cheng", "dan",
             "an", "bao", "chen", "chun", "da", "de", "en", "fei", "guo", "han", "hao", "he", "heng", "jia", "jin",
             "kang", "le", "liang", "mei", "min", "nan", "ning", "qi", "qian", "ran", "ren", "shu", "si", "ting",
             "wan", "xia", "xu", "ya", "yi", "ying", "yuan", "yue", "yun", "ze", "zhen")


def surname_keys(size: int, surname: str = "wang", seed: int = 53) -> list[tuple[str, int]]:
    """`size` distinct keys of one surname with their papers, most papers first."""
    rng = random.Random(seed)
    keys: dict[str, int] = {surname: rng.randint(1, 50)}
    while len(keys) < size:
        given = rng.sample(SYLLABLES, rng.choice((1, 2, 2)))
        form = rng.random()
        if form < 0.55:
            name = "".join(given)  # Xiaoming
        elif form < 0.8:
            name = " ".join(given)  # Xiao Ming
        elif form < 0.92:
            name = " ".join(g[0] for g in given)  # X. M.
        else:
            name = f"{given[0][0]} {''.join(given[1:]) or given[0]}"  # X. Ming
        keys.setdefault(f"{name} {surname}", max(1, int(rng.paretovariate(1.2))))
    return sorted(keys.items(), key=lambda kc: (-kc[1], kc[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000", help="numbers of keys, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one run of each size: the top calls")
    args = parser.parse_args()
    for size in map(int, args.sizes.split(",")):
        counted = surname_keys(size)
        timings = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            found = people(counted)
            timings.append(time.perf_counter() - start)
        print(f"{size} keys: {len(found)} people, best {min(timings) * 1000:.1f} ms of {args.repeats}")
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(people, counted)
            pstats.Stats(profile).sort_stats("ncalls").print_stats(6)


if __name__ == "__main__":
    main()
