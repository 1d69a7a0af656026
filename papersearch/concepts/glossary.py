"""The bilingual concept glossary (config/concepts.tsv): loading and validation.

One concept per line, five tab-separated columns: id, kind, English forms, Chinese forms, flags
(forms separated by "|"; "#" comments and blank lines ignored). The format and how to add concepts:
docs/glossary.md. Any problem makes loading fail with every problem listed as "file:line: field:
reason", so a broken glossary never half-loads.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from papersearch.concepts import english
from papersearch.index_definition import concepts_config
from papersearch.paths import config_dir
from papersearch.text import CJK_RUN

KINDS = frozenset({"topic", "method", "model", "task", "technique", "theory", "evaluation", "data", "general",
                   "domain"})
FLAGS = frozenset({"", "ambiguous"})
FORM_SEPARATOR = "|"
COLUMNS = ("id", "kind", "en", "zh", "flags")
_ID = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
# Forms that would tag nearly every paper (docs/glossary.md "What makes a good form").
TOO_GENERIC = frozenset({
    "model", "learning", "network", "method", "approach", "algorithm", "data", "paper", "result", "task",
    "system", "problem", "framework", "performance", "training",
    "模型", "学习", "方法", "网络", "算法", "数据", "系统", "问题", "研究", "结果", "性能", "训练", "框架",
})


@dataclass(frozen=True)
class Concept:
    id: str
    kind: str
    en: tuple[str, ...]
    zh: tuple[str, ...]
    ambiguous: bool = False
    line: int = 0

    @property
    def name_en(self) -> str:
        return self.en[0]

    @property
    def name_zh(self) -> str:
        return self.zh[0]


class GlossaryError(ValueError):
    """The glossary file cannot be used; `problems` holds one "file:line: field: reason" per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = "\n  ".join(problems[:50])
        more = f"\n  … and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"{len(problems)} problem(s) in the concept glossary:\n  {shown}{more}")


@dataclass(frozen=True)
class Glossary:
    concepts: tuple[Concept, ...]
    path: str = ""

    def __len__(self) -> int:
        return len(self.concepts)

    def by_id(self) -> dict[str, Concept]:
        return {c.id: c for c in self.concepts}


def form_key(form: str, language: str, cased: bool = False) -> str:
    """What two forms must share to be "the same form": words with the head noun in one number
    (English), the text (Chinese); lowercase, or with acronyms as written (`cased`: "LiDAR" and
    "lidar" are different forms of one concept, since papers compare acronyms case-sensitively)."""
    if language == "zh":
        return form.lower()
    return english.form_key(form, cased)


def _split_forms(value: str, language: str, where: str, problems: list[str]) -> tuple[str, ...]:
    if not value:
        problems.append(f"{where}: {language}: no {'English' if language == 'en' else 'Chinese'} form")
        return ()
    forms: list[str] = []
    seen: set[str] = set()
    for form in value.split(FORM_SEPARATOR):
        problem = _form_problem(form, language)
        if problem:
            problems.append(f"{where}: {language}: form {form!r}: {problem}")
            continue
        key = form_key(form, language, cased=True)
        if key in seen:
            problems.append(f"{where}: {language}: form {form!r}: repeats another form of the same concept")
            continue
        seen.add(key)
        forms.append(form)
    return tuple(forms)


def _form_problem(form: str, language: str) -> str | None:
    if not form:
        return "empty form (two | in a row, or a | at either end)"
    if form != form.strip():
        return "leading or trailing space"
    if "\t" in form or "  " in form:
        return "tab or double space inside the form"
    if form.casefold() in TOO_GENERIC:
        return "too generic: it would tag nearly every paper"
    has_cjk = bool(CJK_RUN.search(form))
    if language == "zh" and not has_cjk:
        return "a Chinese form needs Chinese characters"
    if language == "en" and has_cjk:
        return "an English form must not contain Chinese characters"
    if language == "en" and not english.words(form):
        return "no letters or digits"
    return None


def parse_line(line: str, where: str, problems: list[str]) -> Concept | None:
    """One data line → a Concept, or None with the problems appended."""
    cells = line.rstrip("\r\n").split("\t")
    if len(cells) == 4:
        cells.append("")  # an empty flags column whose trailing tab an editor removed
    if len(cells) != len(COLUMNS):
        problems.append(f"{where}: line: expected {len(COLUMNS)} tab-separated columns "
                        f"({', '.join(COLUMNS)}), found {len(cells)}")
        return None
    cid, kind, en, zh, flags = cells
    before = len(problems)
    if not _ID.fullmatch(cid):
        problems.append(f"{where}: id: {cid!r} is not lowercase snake_case ASCII")
    if kind not in KINDS:
        problems.append(f"{where}: kind: {kind!r} is not one of {', '.join(sorted(KINDS))}")
    if flags not in FLAGS:
        problems.append(f"{where}: flags: {flags!r} is not empty or 'ambiguous'")
    en_forms = _split_forms(en, "en", where, problems)
    zh_forms = _split_forms(zh, "zh", where, problems)
    if len(problems) > before:
        return None
    line_no = int(where.rsplit(":", 1)[1])
    return Concept(cid, kind, en_forms, zh_forms, flags == "ambiguous", line_no)


def _cross_checks(concepts: list[Concept], path: str, problems: list[str]) -> None:
    """Unique ids; a form in two concepts only when both are flagged ambiguous."""
    first_line: dict[str, int] = {}
    for c in concepts:
        if c.id in first_line:
            problems.append(f"{path}:{c.line}: id: {c.id!r} already defined on line {first_line[c.id]}")
        else:
            first_line[c.id] = c.line
    owners: dict[tuple[str, str], dict[str, tuple[Concept, str]]] = defaultdict(dict)
    for c in concepts:
        for language, forms in (("en", c.en), ("zh", c.zh)):
            for form in forms:
                owners[(language, form_key(form, language))].setdefault(c.id, (c, form))
    for (language, _), found in owners.items():
        if len(found) < 2 or all(c.ambiguous for c, _ in found.values()):
            continue
        (first, _), *others = found.values()
        for other, form in others:
            problems.append(f"{path}:{other.line}: {language}: form {form!r} also belongs to {first.id!r} "
                            f"(line {first.line}); merge the concepts or flag both 'ambiguous'")


def parse(text: str, path: str = "concepts.tsv") -> Glossary:
    """Parse and validate glossary text; GlossaryError lists every problem found."""
    problems: list[str] = []
    concepts: list[Concept] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        concept = parse_line(line, f"{path}:{number}", problems)
        if concept:
            concepts.append(concept)
    _cross_checks(concepts, path, problems)
    if not concepts and not problems:
        problems.append(f"{path}:1: line: the glossary has no concepts")
    if problems:
        raise GlossaryError(problems)
    return Glossary(tuple(concepts), path)


def default_path() -> Path:
    return config_dir() / concepts_config()["glossary"]


def load(path: str | Path | None = None) -> Glossary:
    path = Path(path) if path else default_path()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GlossaryError([f"{path}:0: file: cannot read: {exc}"]) from exc
    return parse(text, str(path))


@lru_cache(maxsize=4)
def cached(path: str | None = None) -> Glossary:
    """The glossary, read once per process (indexer and webapp workers alike)."""
    return load(path)
