"""One owner per kind of configuration (issue 54.3, DECISIONS.md D-194): the environment is read by
papersearch/settings.py's `Settings` (paths.py alone reads the two variables that locate the files), the search
settings of config/index.json are loaded by one function in the webapp, and no service reads them at import."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from papersearch.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for package in ("papersearch", "indexer", "webapp") for p in (ROOT / package).rglob("*.py")]
SOURCES.append(ROOT / "config" / "gunicorn.conf.py")
# Where our own variables may be read: Settings, and the locations Settings itself is found through.
ENV_READERS = {"papersearch/settings.py", "papersearch/paths.py"}
OUR_VARIABLE = re.compile(r"""["'](PAPERSEARCH_[A-Z_]+)["']""")
NAMED = re.compile(r"""^\s*([A-Z_]+)\s*=\s*["']PAPERSEARCH_""", re.MULTILINE)
READ = re.compile(r"environ\b|getenv\(")


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def reads_our_variables(text: str) -> bool:
    """A line that reads the environment names one of our variables, as a string or as a constant holding it."""
    names = set(NAMED.findall(text))
    return any(READ.search(line) and (OUR_VARIABLE.search(line) or any(re.search(rf"\b{n}\b", line) for n in names))
               for line in text.splitlines())


def test_our_environment_variables_are_read_through_settings() -> None:
    readers = sorted(relative(p) for p in SOURCES
                     if relative(p) not in ENV_READERS and reads_our_variables(p.read_text(encoding="utf-8")))
    assert readers == []


def test_the_webapp_loads_its_search_settings_in_one_place() -> None:
    defined, core_readers = [], []
    for path in (ROOT / "webapp").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined += [relative(path) for node in ast.walk(tree)
                    if isinstance(node, ast.FunctionDef) and node.name == "search_config"]
        core_readers += [relative(path) for node in ast.walk(tree)
                         if isinstance(node, ast.ImportFrom) and node.module == "papersearch.index_definition"
                         and any(alias.name == "search_config" for alias in node.names)]
    assert defined == ["webapp/services/search_settings.py"]
    # SearchParams' defaults, for callers that build one themselves (tests, bench/), are the core's settings.
    assert core_readers == ["webapp/domain.py"]


def test_no_service_reads_the_settings_at_import() -> None:
    # A module-level call reads config/index.json when the module is imported, before the app has started.
    found = []
    for path in (ROOT / "webapp" / "services").rglob("*.py"):
        for statement in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(statement, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
                continue
            found += [relative(path) for node in ast.walk(statement)
                      if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "search_config"]
    assert found == []


def test_gunicorn_and_the_build_lock_take_their_variables_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERSEARCH_WORKERS", "3")
    monkeypatch.setenv("PAPERSEARCH_LOG_LEVEL", "WARNING")
    monkeypatch.setenv("PAPERSEARCH_LOCK_TTL", "30")
    settings = Settings()
    assert (settings.workers, settings.log_level, settings.lock_ttl) == (3, "warning", 30.0)
    monkeypatch.setenv("PAPERSEARCH_WORKERS", "0")  # a typo fails at start, named, not inside gunicorn
    with pytest.raises(ValidationError, match="PAPERSEARCH_WORKERS"):
        Settings()
