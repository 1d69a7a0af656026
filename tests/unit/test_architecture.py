"""The house: webapp/ and indexer/ stand beside each other on papersearch/ and never import each other;
provisioning/ (the local node, the Docker stack's setup) stands on papersearch/ too and neither imports it."""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_packages(package: str) -> dict[str, set[str]]:
    """module path -> the top-level packages it imports (absolute imports only; relative ones stay inside)."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tops: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops.add(node.module.split(".")[0])
        out[str(path.relative_to(ROOT))] = tops
    return out


@pytest.mark.parametrize(("package", "forbidden"), [
    ("webapp", {"indexer", "provisioning", "bench", "relevance", "tests"}),
    ("indexer", {"webapp", "provisioning", "bench", "relevance", "tests"}),
    ("provisioning", {"webapp", "indexer", "bench", "relevance", "tests"}),
    ("papersearch", {"webapp", "indexer", "provisioning", "bench", "relevance", "tests"}),
])
def test_packages_import_only_what_they_stand_on(package: str, forbidden: set[str]) -> None:
    imports = imported_packages(package)
    assert imports, f"{package}/ has no modules"  # a moved or misspelt package must not pass vacuously
    offenders = {module: sorted(tops & forbidden) for module, tops in imports.items() if tops & forbidden}
    assert offenders == {}


def test_the_check_sees_imports() -> None:
    # Guards the test above against passing vacuously (e.g. a wrong root).
    assert "papersearch" in imported_packages("webapp")["webapp/services/search.py"]
    assert "provisioning" in imported_packages("provisioning")["provisioning/stack_wait.py"]


def module_imports(package: str) -> dict[str, set[str]]:
    """module name -> the modules of `package` it imports, wherever the import stands (TYPE_CHECKING blocks
    and function bodies too: a cycle hidden there is still a cycle of the design)."""
    names = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
             for p in (ROOT / package).rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in names.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        out[name] = {m for m in found if m in names and m != name and not name.startswith(m + ".")}
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle's modules, once each (depth-first search for back edges)."""
    found, state = [], dict.fromkeys(graph, 0)  # 0 unseen, 1 on the current path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph[module]):
            if state[other] == 1:
                found.append([*path[path.index(other):], other])
            elif state[other] == 0:
                visit(other, [*path, other])
        state[module] = 2

    for module in sorted(graph):
        if state[module] == 0:
            visit(module, [module])
    return found


@pytest.mark.parametrize("package", ["papersearch", "provisioning", "indexer", "webapp"])
def test_no_import_cycles(package: str) -> None:
    assert cycles(module_imports(package)) == []


def test_the_cycle_check_sees_imports_and_cycles() -> None:
    graph = module_imports("provisioning")
    assert "provisioning.localnode.cluster_status" in graph["provisioning.localnode.node"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]


def test_console_scripts_name_functions_that_exist() -> None:
    # pyproject's entry points are strings: a moved module would leave a command that fails at its first run.
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(scripts) == {"papersearch-node", "papersearch-admin"}
    for name, target in scripts.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function, None)), f"{name} = {target}"


def test_the_query_alias_has_one_owner() -> None:
    # One owner per concept: the shape of a request body is webapp/services/es_syntax.py's `Query`.
    packages = ("webapp", "indexer", "papersearch", "bench", "relevance", "tests")
    owners = sorted(str(path.relative_to(ROOT)) for package in packages
                    for path in (ROOT / package).rglob("*.py")
                    if re.search(r"^Query\s*(:[^=]*)?=", path.read_text(encoding="utf-8"), re.MULTILINE))
    assert owners == ["webapp/services/es_syntax.py"]


MAX_MODULE_LINES = 350


def test_webapp_modules_stay_small() -> None:
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
             for p in (ROOT / "webapp").rglob("*.py")}
    assert sizes and {m: n for m, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_api_routes_do_not_reach_into_the_page_routes() -> None:
    # Shared helpers live in webapp/views and webapp/serializers, not in another blueprint's privates.
    tree = ast.parse((ROOT / "webapp" / "routes" / "api.py").read_text(encoding="utf-8"))
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "webapp.routes.errors" in modules and "webapp.routes.ui" not in modules


MODULE_LINE_LIMIT = 360  # "modules under ~350 lines" (the house style)


def test_modules_stay_small() -> None:
    sizes = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
             for package in ("webapp", "indexer", "papersearch", "provisioning", "bench", "relevance")
             for path in (ROOT / package).rglob("*.py")}
    assert len(sizes) > 50, "the check must see the modules"
    assert {module: n for module, n in sizes.items() if n > MODULE_LINE_LIMIT} == {}
