"""One owner per kind of configuration (issue 54.3, DECISIONS.md D-194, D-216): the environment is read by
papersearch/settings.py's `Settings` (paths.py alone reads the two variables that locate the files; prometheus_client's
own variable is read where that library reads it), the search settings of config/index.json are loaded by one function
in the webapp, and no module reads its configuration at import."""

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


# Every place outside Settings that touches the environment, by file and the variable (or the name holding it), and
# why it may (DECISIONS.md D-194, D-216). A new read anywhere else fails test_no_stray_environment_reads.
ENV_OUTSIDE_SETTINGS = {
    # They locate the files Settings itself reads (the credentials, the node's state), and papersearch-node reads
    # them without the app's settings.
    ("papersearch/paths.py", "PAPERSEARCH_CONFIG_DIR"),
    ("papersearch/paths.py", "PAPERSEARCH_LOCAL_DIR"),
    # Written, not read: one BLAS thread, set before numpy is first imported (D-197).
    ("papersearch/meaning.py", "_name"),
    # prometheus_client's own variable: the library reads it in every process; gunicorn.conf.py sets it for the workers
    # when it is not given, after Settings was read, so a copy in Settings would be stale.
    ("webapp/metrics.py", "MULTIPROC_ENV"),
    ("config/gunicorn.conf.py", "PROMETHEUS_MULTIPROC_DIR"),
}
# Calls that read configuration: the environment through Settings, config/index.json through its loaders.
CONFIG_READS = {"Settings", "search_config", "search_settings"}


def environment_uses(tree: ast.AST) -> list[str]:
    """The variables a module's code touches in os.environ or os.getenv, by their key's text (a string, or the name of
    what holds it; "*" for the whole environment)."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def key(node: ast.AST | None) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return node.id if isinstance(node, ast.Name) else "*"

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "environ" and getattr(node.value, "id", None) == "os":
            parent = parents.get(node)
            if isinstance(parent, ast.Subscript):
                found.append(key(parent.slice))
            elif isinstance(parent, ast.Attribute) and isinstance(call := parents.get(parent), ast.Call):
                found.append(key(call.args[0] if call.args else None))
            else:
                found.append("*")
        elif isinstance(node, ast.Call) and (getattr(node.func, "attr", None) == "getenv"
                                             or getattr(node.func, "id", None) == "getenv"):
            found.append(key(node.args[0] if node.args else None))
    return found


def test_no_stray_environment_reads() -> None:
    touched = {(relative(p), name) for p in SOURCES for name in environment_uses(ast.parse(p.read_text("utf-8")))}
    assert touched - ENV_OUTSIDE_SETTINGS == set()
    assert ENV_OUTSIDE_SETTINGS - touched == set()  # the list does not outlive what it explains


def test_the_environment_check_sees_every_form() -> None:
    code = ('import os\nfrom os import getenv\nA = os.environ.get("A")\nB = os.environ["B"]\nos.environ[C] = "1"\n'
            'D = getenv("D")\nE = os.getenv("E", "")\nF = dict(os.environ)\nos.environ.setdefault(G, "1")\n')
    assert sorted(environment_uses(ast.parse(code))) == ["*", "A", "B", "C", "D", "E", "G"]


def import_time_reads(tree: ast.Module) -> list[int]:
    """The lines of calls that read configuration when the module is imported: in its body or a class's body (run at
    import), not inside a function (run when called)."""
    found: list[int] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            loads_index = name == "load" and getattr(getattr(func, "value", None), "id", None) == "index_definition"
            if name in CONFIG_READS or loads_index:
                found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in tree.body:
        visit(statement)
    return found


def test_no_module_reads_its_configuration_at_import() -> None:
    # config/gunicorn.conf.py is left out: it is gunicorn's start, read once by gunicorn's master, not an import.
    found = {relative(p): lines for p in SOURCES if p.name != "gunicorn.conf.py"
             for lines in [import_time_reads(ast.parse(p.read_text("utf-8")))] if lines}
    assert found == {}


def test_the_import_time_check_sees_module_and_class_bodies() -> None:
    code = ("MAX = search_config().window\nclass Beacon:\n    position: int = Field(le=search_settings().x)\n"
            "def later():\n    return Settings()\nS = index_definition.load()\n")
    assert import_time_reads(ast.parse(code)) == [1, 3, 6]


def test_gunicorn_and_the_build_lock_take_their_variables_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERSEARCH_WORKERS", "3")
    monkeypatch.setenv("PAPERSEARCH_LOG_LEVEL", "WARNING")
    monkeypatch.setenv("PAPERSEARCH_LOCK_TTL", "30")
    settings = Settings()
    assert (settings.workers, settings.log_level, settings.lock_ttl) == (3, "warning", 30.0)
    monkeypatch.setenv("PAPERSEARCH_WORKERS", "0")  # a typo fails at start, named, not inside gunicorn
    with pytest.raises(ValidationError, match="PAPERSEARCH_WORKERS"):
        Settings()
