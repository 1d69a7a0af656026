"""DECISIONS.md is numbered records (`## D-012 Title`, then `Status: accepted | superseded by D-0NN (date)`), and
every citation of it anywhere in the repository (`DECISIONS.md D-012`, in code, config, docs and tests) names a
record that exists; a citation by heading ("DECISIONS.md \"Some title\"") is refused, since headings change."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = re.compile(r"^## (D-\d{3}) \S", re.M)
STATUS = re.compile(r"^Status: (?:accepted|superseded by (D-\d{3})) \((\d{4}-\d{2}-\d{2})", re.M)
CITED = re.compile(r"(?<![\w-])D-\d{3}(?!\d)")
BY_HEADING = re.compile(r'DECISIONS\.md(?:\]\([^)]*\))?,?\s+(?:#\s*)?\\?"')


def records() -> dict[str, str]:
    """Each record's number → its text (heading included)."""
    text = (ROOT / "DECISIONS.md").read_text(encoding="utf-8")
    starts = [(m.group(1), m.start()) for m in RECORD.finditer(text)]
    ends = [start for _, start in starts[1:]] + [len(text)]
    return {number: text[start:end] for (number, start), end in zip(starts, ends, strict=True)}


def repository_texts() -> dict[str, str]:
    """Every tracked text file of the checkout (what a citation can live in)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True,
                           text=True).stdout.split("\0")
    texts = {}
    for name in filter(None, names):
        path = ROOT / name
        if not path.is_file() or path.suffix in {".png", ".gz", ".jar", ".zip", ".ico", ".woff2"}:
            continue
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary
    return texts


def test_records_are_numbered_in_order_with_a_status_and_a_date() -> None:
    found = records()
    numbers = list(found)
    assert numbers == [f"D-{i:03d}" for i in range(1, len(numbers) + 1)], "records must be D-001, D-002, … in order"
    for number, text in found.items():
        status = STATUS.search(text)
        assert status, f"{number} has no 'Status: accepted|superseded by D-0NN (YYYY-MM-DD…' line"
        successor = status.group(1)
        assert successor is None or successor in found, f"{number} is superseded by {successor}, which does not exist"


def test_every_citation_names_an_existing_record() -> None:
    known = set(records())
    unknown = {f"{name}: {cited}" for name, text in repository_texts().items()
               for cited in CITED.findall(text) if cited not in known}
    assert not unknown, f"citations of DECISIONS.md records that do not exist: {sorted(unknown)}"


def test_no_citation_by_heading() -> None:
    by_heading = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for name, text in repository_texts().items()
                  if name != "tests/unit/test_decisions.py" for m in BY_HEADING.finditer(text)]
    assert not by_heading, f"cite DECISIONS.md by number (DECISIONS.md D-012), not by heading: {by_heading}"
