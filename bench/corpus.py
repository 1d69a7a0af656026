"""Deterministic synthetic corpus in our JSON Lines schema (indexer.loading.models), for benchmarks.

    .venv/bin/python -m bench.corpus --size 100000 [--seed 7] [--out FILE]

What is learned from the shipped sample (indexer/sample/papers.jsonl, 40 real abstracts):
  * the token stream of the abstracts: English text is built from short runs (2–6 tokens) copied from
    random positions of that stream, so word frequencies and real bigrams ("language models",
    "gradient descent") follow the sample and phrase queries find something;
  * sentence lengths (words) and sentences per abstract (empirical distributions);
  * the topic mix (area/subarea counts, smoothed over the whole of config/taxonomy.json).
Added on top: a Zipf-distributed long tail of made-up words and method names (a real corpus has a
far larger vocabulary than 40 abstracts), titles (the sample has none; 6–16 words in the usual ML
title shapes), authors from a name pool with diacritics (Søren, Müller, Łukasz, Nguyễn …), years,
venues, keywords, URLs, and ~10% papers with Chinese title_zh/abstract_zh built from the taxonomy's
Chinese labels plus common research words (some bilingual, most Chinese-only with Chinese names).

The same (size, seed) always produces a byte-identical file: one random.Random(seed), no set or
dict-order dependence on hashing, sorted keys, fixed separators.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.corpus_words import (
    FIRST_NAMES,
    LAST_NAMES,
    SMALL_TITLE_WORDS,
    STOPWORDS,
    TITLE_SHAPES,
    VENUES,
    ZH_GIVEN,
    ZH_SURNAMES,
    ZH_TEMPLATES,
    ZH_TITLES,
    ZH_WORDS,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "indexer" / "sample" / "papers.jsonl"
TAXONOMY = ROOT / "config" / "taxonomy.json"
DATA_DIR = ROOT / ".local" / "bench"  # .local/ is git-ignored
DEFAULT_SEED = 20261129
SIZES = {"13k": 13033, "100k": 100_000, "1m": 1_000_000}

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"'])")
_WORD = re.compile(r"^[A-Za-z][A-Za-z\-']*$")


def _cum(weights: list[float]) -> list[float]:
    return list(itertools.accumulate(weights))


@dataclass
class Model:
    stream: list[str]  # sample tokens, sentence-internal, punctuation attached
    content: list[str]  # content words of the stream (with repetition = frequency)
    sentence_lengths: list[int]
    sentence_counts: list[int]
    tail: list[str]
    tail_cum: list[float]
    topics: list[tuple[str | None, str | None, str | None, str | None]]  # area, subarea, area_zh, sub_zh
    topic_cum: list[float]


def learn(sample: Path = SAMPLE, taxonomy: Path = TAXONOMY) -> Model:
    rows = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
    stream: list[str] = []
    lengths: list[int] = []
    counts: list[int] = []
    for row in rows:
        sentences = [s for s in _SENTENCE_SPLIT.split(row.get("abstract") or "") if s.strip()]
        if not sentences:
            continue
        counts.append(len(sentences))
        for sentence in sentences:
            tokens = sentence.split()
            lengths.append(len(tokens))
            first = tokens[0]
            if first[:1].isupper() and not any(c.isupper() for c in first[1:]):
                tokens[0] = first.lower()
            tokens[-1] = tokens[-1].rstrip(".!?") or tokens[-1]
            stream.extend(tokens)
    stop = set(STOPWORDS)
    content = [w.strip(",;:()[]\"'") for w in stream]
    content = [w for w in content if _WORD.match(w) and w.lower() not in stop and len(w) > 2]

    rng = random.Random(12345)  # the tail is part of the model, independent of the corpus seed
    syllables = ["ka", "lo", "mi", "ren", "tor", "vex", "qua", "zen", "dri", "pha", "sol", "nex", "tri", "gal",
                 "mor", "xi", "lu", "ven", "cor", "dyn", "ph", "ion", "ax", "el", "um", "ra", "sy", "no"]
    suffixes = ["", "", "", "Net", "Former", "GPT", "-LM", "Flow", "Diff", "-X", "++", "Bench"]
    tail: list[str] = []
    seen: set[str] = set()
    while len(tail) < 20000:
        if rng.random() < 0.3:
            word = "".join(rng.choice("ABCDEFGHIJKLMNOPRSTUVW") for _ in range(rng.randint(2, 5)))
            word = word[:1] + word[1:] + rng.choice(suffixes)
            if rng.random() < 0.4:
                word = word[:1] + rng.choice(["e", "i", "o", "a"]) + word[1:]
        else:
            word = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
            word += rng.choice(["", "", "ic", "ation", "ity", "ing", "ed", "al", "ise"])
        if word.lower() not in seen:
            seen.add(word.lower())
            tail.append(word)
    tail_cum = _cum([1.0 / (rank + 20) for rank in range(len(tail))])

    tax = json.loads(taxonomy.read_text(encoding="utf-8"))
    observed: dict[tuple[str | None, str | None], int] = {}
    for row in rows:
        key = (row.get("topic_area"), row.get("topic_subarea"))
        observed[key] = observed.get(key, 0) + 1
    area_weight = {}
    for row in rows:
        if row.get("topic_area"):
            area_weight[row["topic_area"]] = area_weight.get(row["topic_area"], 0) + 1
    topics: list[tuple[str | None, str | None, str | None, str | None]] = [(None, None, None, None)]
    weights: list[float] = [0.08 * 40]
    for area in tax["areas"]:
        name, zh = area["name"], area["zh"]
        aw = 1.0 + area_weight.get(name, 0)
        subs = area.get("subareas", [])
        topics.append((name, None, zh, None))
        weights.append(0.05 * aw)
        for rank, sub in enumerate(subs):
            topics.append((name, sub["name"], zh, sub["zh"]))
            weights.append(aw * (0.6 / (rank + 2) + observed.get((name, sub["name"]), 0)) / max(len(subs), 1) * 4)
    return Model(stream, content, lengths, counts, tail, tail_cum, topics, _cum(weights))


class Generator:
    def __init__(self, model: Model, seed: int) -> None:
        self.m = model
        self.rng = random.Random(seed)
        self.seed = seed
        self.venues = [v for v, _ in VENUES]
        self.venue_cum = _cum([w for _, w in VENUES])
        self.shapes = [s for s, _ in TITLE_SHAPES]
        self.shape_cum = _cum([w for _, w in TITLE_SHAPES])
        # Recent years dominate, as in any paper collection.
        self.years = list(range(2005, 2026))
        self.year_cum = _cum([1.25 ** (y - 2005) for y in self.years])
        self.author_counts = list(range(1, 16))
        self.author_cum = _cum([4, 10, 16, 16, 13, 10, 8, 6, 5, 4, 3, 2, 1.5, 1, 1])

    # --- pieces ----------------------------------------------------------------------------------

    def _pick(self, items: list, cum: list[float]):
        return items[bisect.bisect(cum, self.rng.random() * cum[-1])]

    def _tail_word(self) -> str:
        return self._pick(self.m.tail, self.m.tail_cum)

    def sentence(self, topic_words: list[str]) -> str:
        rng, stream = self.rng, self.m.stream
        target = rng.choice(self.m.sentence_lengths)
        out: list[str] = []
        while len(out) < target:
            r = rng.random()
            if r < 0.86:
                start = rng.randrange(len(stream) - 6)
                out.extend(stream[start:start + rng.randint(2, 6)])
            elif r < 0.95 or not topic_words:
                out.append(self._tail_word())
            else:
                out.extend(topic_words)
        out = out[:target]
        out[-1] = out[-1].rstrip(",;:(") or out[-1]
        first = out[0]
        out[0] = first[:1].upper() + first[1:]
        return " ".join(out) + "."

    def abstract(self, topic_words: list[str]) -> str:
        n = self.rng.choice(self.m.sentence_counts)
        n = max(1, n + self.rng.randint(-1, 1))
        return " ".join(self.sentence(topic_words) for _ in range(n))

    def _phrase(self, lo: int, hi: int, topic_words: list[str]) -> str:
        rng = self.rng
        words = [rng.choice(self.m.content) for _ in range(rng.randint(lo, hi))]
        if topic_words and rng.random() < 0.35:
            words[rng.randrange(len(words))] = " ".join(topic_words)
        if rng.random() < 0.15:
            words.insert(rng.randrange(len(words) + 1), self._tail_word())
        return " ".join(words)

    def title(self, topic_words: list[str]) -> str:
        shape = self._pick(self.shapes, self.shape_cum)
        text = shape.format(
            P=self._tail_word() if self.rng.random() < 0.8 else self.rng.choice(self.m.content).capitalize(),
            Q=self._phrase(3, 6, topic_words),
            R=self._phrase(2, 4, topic_words),
        )
        words = text.split()
        return " ".join(
            w if (i and w.lower() in SMALL_TITLE_WORDS) or any(c.isupper() for c in w) else w[:1].upper() + w[1:]
            for i, w in enumerate(words)
        )

    def latin_authors(self) -> tuple[list[str], bool]:
        rng = self.rng
        if rng.random() < 0.08:
            return [], False
        n = self._pick(self.author_counts, self.author_cum)
        names = []
        for _ in range(n):
            first = rng.choice(FIRST_NAMES)
            if rng.random() < 0.06:
                first = f"{first} {rng.choice('ABCDEFGHJKLMNPRST')}."
            names.append(f"{first} {rng.choice(LAST_NAMES)}")
        et_al = n >= 8 and rng.random() < 0.3
        return names, et_al

    def zh_authors(self) -> tuple[list[str], bool]:
        rng = self.rng
        names = [rng.choice(ZH_SURNAMES) + "".join(rng.choice(ZH_GIVEN) for _ in range(rng.randint(1, 2)))
                 for _ in range(self._pick(self.author_counts, self.author_cum))]
        return names, rng.random() < 0.1

    def _zh_fill(self, template: str, label: str) -> str:
        rng = self.rng
        parts = template.split("{w}")
        out = [parts[0]]
        for part in parts[1:]:
            out.append(rng.choice(ZH_WORDS))
            out.append(part)
        return "".join(out).replace("{t}", label)

    def zh_title(self, labels: list[str]) -> str:
        label = self.rng.choice(labels) if labels else self.rng.choice(ZH_WORDS)
        return self._zh_fill(self.rng.choice(ZH_TITLES), label)

    def zh_abstract(self, labels: list[str]) -> str:
        rng = self.rng
        out = []
        for _ in range(rng.randint(4, 11)):
            label = rng.choice(labels) if labels else rng.choice(ZH_WORDS)
            out.append(self._zh_fill(rng.choice(ZH_TEMPLATES), label))
        return "".join(out)

    def keywords(self, topic_words: list[str]) -> list[str]:
        rng = self.rng
        if rng.random() < 0.5:
            return []
        out = [rng.choice(self.m.content).lower() for _ in range(rng.randint(1, 5))]
        if topic_words:
            out.append(" ".join(topic_words).lower())
        return sorted(dict.fromkeys(out), key=out.index)

    # --- one paper -------------------------------------------------------------------------------

    def paper(self, number: int) -> dict:
        rng = self.rng
        area, subarea, area_zh, sub_zh = self._pick(self.m.topics, self.m.topic_cum)
        label_en = subarea or area
        topic_words = [w.strip(",").lower() for w in label_en.split()][:3] if label_en and rng.random() < 0.7 else []
        labels_zh = [x for x in (sub_zh, area_zh) if x]
        pid = f"b{self.seed % 100000:05d}{number:08d}"
        chinese = rng.random() < 0.10
        chinese_only = chinese and rng.random() < 0.6
        title = abstract = title_zh = abstract_zh = ""
        if not chinese_only:
            title = self.title(topic_words)
            abstract = self.abstract(topic_words)
            authors, et_al = self.latin_authors()
        else:
            authors, et_al = self.zh_authors()
        if chinese:
            title_zh = self.zh_title(labels_zh)
            abstract_zh = self.zh_abstract(labels_zh)
        year = None if rng.random() < 0.04 else self._pick(self.years, self.year_cum)
        venue = self._pick(self.venues, self.venue_cum)
        url = f"https://papers.example.org/abs/{pid}" if rng.random() < 0.7 else None
        pdf_url = f"https://papers.example.org/pdf/{pid}.pdf" if url and rng.random() < 0.7 else None
        return {
            "id": pid, "title": title, "title_zh": title_zh, "authors": authors, "authors_et_al": et_al,
            "topic_area": area, "topic_subarea": subarea, "abstract": abstract, "abstract_zh": abstract_zh,
            "year": year, "venue": venue, "url": url, "pdf_url": pdf_url, "keywords": self.keywords(topic_words),
        }


def generate(path: Path, size: int, seed: int = DEFAULT_SEED) -> Path:
    model = learn()
    gen = Generator(model, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="\n") as f:
        batch: list[str] = []
        for i in range(size):
            batch.append(json.dumps(gen.paper(i), ensure_ascii=False, sort_keys=True, separators=(",", ":")))
            if len(batch) >= 5000:
                f.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            f.write("\n".join(batch) + "\n")
    tmp.replace(path)
    return path


def corpus_path(size: int, seed: int = DEFAULT_SEED) -> Path:
    return DATA_DIR / f"corpus-{size}-s{seed}.jsonl"


def ensure_corpus(size: int, seed: int = DEFAULT_SEED, log=print) -> Path:
    """The corpus file for (size, seed), generated once and reused (it is deterministic)."""
    path = corpus_path(size, seed)
    if not path.exists():
        started = time.monotonic()
        generate(path, size, seed)
        log(f"generated {path} ({size} papers, {path.stat().st_size / 1e6:.1f} MB) "
            f"in {time.monotonic() - started:.1f}s")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="13033", help="number of papers, or 13k / 100k / 1m")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, help=f"output file (default {DATA_DIR}/corpus-SIZE-sSEED.jsonl)")
    args = parser.parse_args(argv)
    size = SIZES.get(args.size.lower()) or int(args.size)
    out = args.out or corpus_path(size, args.seed)
    started = time.monotonic()
    generate(out, size, args.seed)
    print(f"{out}: {size} papers, {out.stat().st_size / 1e6:.1f} MB, {time.monotonic() - started:.1f}s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
