"""Do two versions of concept tagging agree? This checkout's `papersearch.concepts` against the
matcher and English rules of a git revision (default `main`), over the same glossary.

    .venv/bin/python -m bench.tag_equality [--base main] [--corpus FILE …] [--size 13033] [--generated 20000]

Compared, paper by paper: `ConceptMatcher.tag` on the shipped sample (indexer/sample/papers.jsonl),
the synthetic corpus (bench/corpus.py), each --corpus file (default: ../shared/corpora/*.jsonl.gz,
skipped when absent) and generated texts (glossary forms in random case and number, glued by
punctuation, digits, symbols and Chinese, seeded); and `recognise` on every query of
bench/relevance/*.json. Prints the number that differ per set with the first few differences and
exits 1 if any does.
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
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path
from types import ModuleType

from bench.common import ROOT, log
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


def compare(name: str, papers, new, old, limit: int = 5) -> int:
    differ = total = 0
    for texts in papers:
        total += 1
        ours, theirs = new.tag(texts), old.tag(texts)
        if ours != theirs:
            differ += 1
            if differ <= limit:
                log(f"  {name}: {texts!r:.200}\n    new {ours}\n    old {theirs}")
    log(f"{name}: {total} papers, {differ} tagged differently")
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
    differ = compare("sample", corpus_texts(ROOT / "indexer" / "sample" / "papers.jsonl"), new, old)
    if args.size:
        differ += compare("synthetic", corpus_texts(ensure_corpus(args.size, DEFAULT_SEED, log=log)), new, old)
    for path in corpora:
        if path.is_file():
            differ += compare(path.name, corpus_texts(path), new, old)
        else:
            log(f"skipping {path}: not there")
    differ += compare("generated", generated_texts(glossary, args.generated, DEFAULT_SEED), new, old)
    differ += compare_queries(new, old)
    print(f"{'DIFFERENT' if differ else 'same'}: {differ} difference(s) between this checkout and {args.base}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
