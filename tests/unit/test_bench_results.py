"""Results in git are the figures the docs cite: every tracked file under bench/results/ is named in BENCHMARKS.md or
DECISIONS.md (issue 54.7). A run writes its results there untracked (.gitignore); one is added on purpose, with the
section that cites it. Citations may be brace patterns (`relevance-real-{plugin,core}-d175.json`), globs
(`final-*.json`) and optional parts in brackets (`relevance-real-core[-base-ead8f28]-20261201.json`)."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITING = [ROOT / "BENCHMARKS.md", ROOT / "DECISIONS.md"]
RESULTS = "bench/results/"
NAME = re.compile(r"(?:[\w.-]+/)*[\w{},*\[\].-]+\.json")
BRACES = re.compile(r"\{([^{}]*)\}")
OPTIONAL = re.compile(r"\[([^\[\]]*)\]")


def expand(pattern: str) -> list[str]:
    """Every pattern a brace pattern stands for; an optional [part] is there or not."""
    pattern = OPTIONAL.sub(lambda m: "{" + m.group(1) + ",}", pattern)
    found = BRACES.search(pattern)
    if not found:
        return [pattern]
    head, tail = pattern[:found.start()], pattern[found.end():]
    return [out for choice in found.group(1).split(",") for out in expand(head + choice + tail)]


def citations(text: str) -> list[str]:
    """The file-name patterns a text cites under bench/results/ (a path elsewhere, relevance/*.json, is not)."""
    out = []
    for token in NAME.findall(text):
        folder, _, name = token.rpartition("/")
        if folder and not f"{folder}/".endswith(("bench/results/", "results/")):
            continue
        out += expand(name)
    return out


def cited(names: list[str], text: str) -> set[str]:
    patterns = citations(text)
    return {n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)}


def tracked_results() -> list[str]:
    listed = subprocess.run(["git", "ls-files", RESULTS], cwd=ROOT, capture_output=True, text=True, check=True)
    return [line.removeprefix(RESULTS) for line in listed.stdout.split()]


def test_every_tracked_result_is_cited() -> None:
    names = tracked_results()
    text = "\n".join(p.read_text(encoding="utf-8") for p in CITING)
    uncited = sorted(set(names) - cited(names, text))
    assert not uncited, f"results in git that BENCHMARKS.md and DECISIONS.md do not cite (git rm --cached): {uncited}"


def test_citations_expand_braces_globs_and_optional_parts() -> None:
    text = ("Raw: `bench/results/relevance-real-{plugin,core}-d175.json`, bench/results/final-*.json, "
            "(bench/results/relevance-real-{plugin,core}[-base-ead8f28]-20261201.json) and `relevance/*.json`")
    names = ["relevance-real-core-d175.json", "relevance-real-plugin-d175.json", "final-1m.json",
             "relevance-real-core-base-ead8f28-20261201.json", "relevance-real-plugin-20261201.json",
             "relevance-real-core-v1.json", "query-cost-x.json"]
    assert cited(names, text) == set(names[:5])


def test_new_results_stay_out_of_git() -> None:
    ignored = subprocess.run(["git", "check-ignore", "-q", f"{RESULTS}query-cost-20991231T000000Z.json"], cwd=ROOT)
    assert ignored.returncode == 0, "bench/results/ is ignored: a result is added on purpose (git add -f)"
