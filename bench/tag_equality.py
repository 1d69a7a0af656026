"""Do two versions of concept tagging agree? This checkout's `papersearch.concepts` against the
matcher and English rules of a git revision (default `main`), over the same glossary.

    .venv/bin/python -m bench.tag_equality [--base main] [--corpus FILE …] [--size 13033] [--generated 20000]

Compared, paper by paper: `ConceptMatcher.tag` on the shipped sample (indexer/sample/papers.jsonl),
the synthetic corpus (bench/corpus.py), each --corpus file (default: ../shared/corpora/*.jsonl.gz,
skipped when absent) and generated texts (glossary forms in random case and number, glued by
punctuation, digits, symbols and Chinese, seeded); and `recognise` on every query of
bench/relevance/*.json. Prints the number that differ per set with the first few differences, and
the CPU per paper of both taggers (best of 3, same process: a before/after on one machine state);
results go to bench/results/tag-equality-<UTC time>.json; exits 1 if any paper or query differs.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import astuple
from pathlib import Path
from types import ModuleType

from bench.common import RESULTS_DIR, ROOT, log
from bench.corpus import DEFAULT_SEED, ensure_corpus

BASE_MODULES = ("english", "matcher")  # what tagging is made of; the glossary's parsing is shared
GLUE = [" ", " ", " ", "-", ", ", ". ", "; ", "/", " (", ") ", "’s ", "—", " – ", "3", "2D ", "x", "é",
        "中文", "的", "，", " 4o ", "_", "'", "\u00a0", "ﬁ", " α ", "\t", " "]


def base_matcher(revision: str) -> ModuleType:
    """The matcher module of `revision`, imported beside this checkout's under another package name."""
    target = Path(tempfile.mkdtemp(prefix="tag-equality-")) / "base_concepts"
    target.mkdir()
    (target / "__init__.py").write_text("")
    for name in BASE_MODULES:
        source = subprocess.run(["git", "show", f"{revision}:papersearch/concepts/{name}.py"], cwd=ROOT,
                                check=True, capture_output=True, text=True).stdout
        source = source.replace("from papersearch.concepts import english", "from base_concepts import english")
        (target / f"{name}.py").write_text(source)
    sys.path.insert(0, str(target.parent))
    spec = importlib.util.spec_from_file_location("base_concepts.matcher", target / "matcher.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def corpus_texts(path: Path) -> Iterator[list[str]]:
    """Each paper's tagged fields (config/index.json concepts.tagged_fields), as the indexer passes them."""
    from papersearch.index_definition import concepts_config

    fields = concepts_config()["tagged_fields"]
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8")) as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                texts: list[str] = []
                for name in fields:
                    value = record.get(name)
                    texts += [v for v in value if isinstance(v, str)] if isinstance(value, list) else \
                        [value] if isinstance(value, str) and value else []
                yield texts


def generated_texts(glossary, count: int, seed: int) -> Iterator[list[str]]:
    """Runs of glossary forms (English in random case and number, Chinese) glued by awkward characters."""
    rng = random.Random(seed)
    forms = [f for c in glossary.concepts for f in (*c.en, *c.zh)]
    for _ in range(count):
        parts: list[str] = []
        for _ in range(rng.randint(1, 12)):
            form = rng.choice(forms)
            form = rng.choice([form, form.lower(), form.upper(), form.title(), form + "s", "non" + form])
            parts += [form, rng.choice(GLUE)]
        yield ["".join(parts)]


def default_corpora() -> list[Path]:
    """../shared/corpora/*.jsonl.gz beside the main checkout (a worktree sits one level deeper)."""
    for shared in (ROOT.parent / "shared", ROOT.parents[1] / "shared"):
        if (shared / "corpora").is_dir():
            return sorted((shared / "corpora").glob("*.jsonl.gz"))
    return []


def cpu_per_paper(taggers: dict, papers: list[list[str]], rounds: int = 5) -> dict[str, tuple[list, float]]:
    """Each tagger's tags of every paper and its CPU microseconds per paper, best of `rounds` taken in
    turns (so a change in the machine's load hits both alike)."""
    out: dict[str, tuple[list, float]] = {}
    for _ in range(rounds):
        for name, tag in taggers.items():
            started = time.process_time()
            tags = [tag(texts) for texts in papers]
            seconds = time.process_time() - started
            out[name] = (tags, min(seconds, out.get(name, (None, seconds))[1]))
    return {name: (tags, seconds / max(1, len(papers)) * 1e6) for name, (tags, seconds) in out.items()}


def compare(name: str, papers: Iterable[list[str]], new, old, results: dict, limit: int = 5) -> int:
    papers = list(papers)
    timed = cpu_per_paper({"new": new.tag, "base": old.tag}, papers)
    (ours, new_us), (theirs, old_us) = timed["new"], timed["base"]
    differ = 0
    for texts, a, b in zip(papers, ours, theirs, strict=True):
        if a != b:
            differ += 1
            if differ <= limit:
                log(f"  {name}: {texts!r:.200}\n    new {a}\n    old {b}")
    results[name] = {"papers": len(papers), "differ": differ, "tag_cpu_us_new": round(new_us, 1),
                     "tag_cpu_us_base": round(old_us, 1)}
    log(f"{name}: {len(papers)} papers, {differ} tagged differently; tag CPU µs/paper {new_us:.1f} "
        f"(base {old_us:.1f})")
    return differ


def compare_queries(new, old) -> int:
    from webapp.services.query_parser import parse_query

    queries = []
    for path in sorted((ROOT / "bench" / "relevance").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        items = data.get("queries", []) if isinstance(data, dict) else data
        queries += [q["q"] for q in items if isinstance(q, dict) and isinstance(q.get("q"), str)]
    differ = 0
    for terms in (parse_query(q).terms for q in queries):
        ours, theirs = ([astuple(m) for m in matcher.recognise(terms)] for matcher in (new, old))
        if ours != theirs:
            differ += 1
            log(f"  query {terms}:\n    new {ours}\n    old {theirs}")
    log(f"queries: {len(queries)}, {differ} recognised differently")
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="main", help="git revision whose tagging is the reference")
    parser.add_argument("--corpus", type=Path, action="append",
                        help="real corpus files (default: ../shared/corpora/*.jsonl.gz if there)")
    parser.add_argument("--size", type=int, default=13033, help="synthetic corpus size (0: none)")
    parser.add_argument("--generated", type=int, default=20000)
    args = parser.parse_args(argv)
    from papersearch.concepts import glossary as glossary_module
    from papersearch.concepts.matcher import ConceptMatcher

    glossary = glossary_module.cached()
    new, old = ConceptMatcher(glossary), base_matcher(args.base).ConceptMatcher(glossary)
    corpora = args.corpus if args.corpus is not None else default_corpora()
    results: dict = {"command": " ".join(["python -m bench.tag_equality", *(argv or sys.argv[1:])])}
    differ = compare("sample", corpus_texts(ROOT / "indexer" / "sample" / "papers.jsonl"), new, old, results)
    if args.size:
        differ += compare("synthetic", corpus_texts(ensure_corpus(args.size, DEFAULT_SEED, log=log)), new, old,
                          results)
    for path in corpora:
        if path.is_file():
            differ += compare(path.name, corpus_texts(path), new, old, results)
        else:
            log(f"skipping {path}: not there")
    differ += compare("generated", generated_texts(glossary, args.generated, DEFAULT_SEED), new, old, results)
    results["queries_differ"] = compare_queries(new, old)
    differ += results["queries_differ"]
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / f"tag-equality-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))
    print(f"{'DIFFERENT' if differ else 'same'}: {differ} difference(s) between this checkout and {args.base}; "
          f"written {out}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
