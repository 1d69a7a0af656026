"""The documentation points only at what someone who clones the project has: every relative link of README.md,
DECISIONS.md, BENCHMARKS.md and docs/*.md names a file or folder in the repository, and DECISIONS.md and docs/
name no path outside it (a colleague's notes, the machine's shared folders)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "DECISIONS.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MACHINE_PATH = re.compile(r"(?<![\w.])(?:/work/|/home/|/root/)[\w.-]+")  # a machine's folders
RELATIVE_PATH = re.compile(r"(?<![\w.])(?:\.\./)+[\w.-]+")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_relative_links_name_files_in_the_repository(path: Path) -> None:
    broken = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        resolved = (path.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert not broken, f"{path.name} links to what the repository does not hold: {broken}"


@pytest.mark.parametrize("path", [p for p in DOCS if p.name != "README.md" and p.name != "BENCHMARKS.md"],
                         ids=lambda p: p.name)
def test_decisions_and_docs_name_no_path_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = MACHINE_PATH.findall(text) + [p for p in RELATIVE_PATH.findall(text)
                                          if not (path.parent / p).resolve().is_relative_to(ROOT)]
    assert not found, f"{path.name} names paths outside the repository: {found}"


def test_the_readme_begins_with_its_two_commands() -> None:
    """The README's first lines are the two commands that work on a fresh machine (the fresh-machine check runs
    the first line of its first sh block)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[:6] == ["# papersearch", "", "```sh", "make serve", "make test", "```"]


def test_the_readme_layout_names_only_what_exists() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout"):text.index("\n## ", text.index("## Layout") + 1)]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    files = {Path(p).name for p in tracked}
    folders = {part for p in tracked for part in Path(p).parent.parts}
    named = set(re.findall(r"(?<![\w*./-])([\w.-]+\.(?:py|json|tsv|toml))\b", layout))
    missing = sorted(n for n in named if n not in files)
    missing += sorted(d for d in re.findall(r"(?<![\w./*-])([\w-]+)/(?![\w])", layout) if d not in folders)
    assert not missing, f"README.md's layout names what the repository does not hold: {missing}"


# A path of the repository written in backticks in the docs (`webapp/services/plan/ladder.py`, `relevance/`): it
# must be there, or the docs send a reader to a file that moved or is gone (issue 54). Only names of files with an
# extension and folders written with a trailing slash are checked: `papersearch/app:0.1.0` is an image and
# `config/users` a file inside Elasticsearch's own config.
TOP_FOLDERS = "papersearch|webapp|indexer|provisioning|bench|relevance|tests|config|docker|scripts|plugin|docs"
CITED_PATH = re.compile(rf"`((?:{TOP_FOLDERS})/[\w./-]*(?:\.[a-z]{{1,5}}|/))(?::\d+(?:-\d+)?)?`")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_paths_the_docs_cite_exist(path: Path) -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    known = set(tracked.split()) | {str(Path(name).parent) + "/" for name in tracked.split()}
    missing = sorted({cited for cited in CITED_PATH.findall(path.read_text(encoding="utf-8"))
                      if cited not in known and not (ROOT / cited).exists()})
    assert not missing, f"{path.name} cites paths the repository does not hold: {missing}"
