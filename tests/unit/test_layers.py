"""The suite's layers (issue 54.6, DECISIONS.md D-216): a unit test is named after the module it tests, so a newcomer
finds it by the module's name; run alone, tests/unit imports nothing of the integration stack (not the HTTP client,
not the container tools, not the node's fixtures) and builds nothing."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "tests" / "unit"
SOURCE_FOLDERS = ("papersearch", "webapp", "indexer", "provisioning", "bench", "relevance")
# Unit test files that check the project as a whole rather than one module, named after what they check.
ACROSS = {
    "test_architecture.py": "the packages' imports, cycles, sizes and owners",
    "test_bench_results.py": "bench/results/: every tracked result is cited",
    "test_config_owner.py": "one owner per kind of configuration",
    "test_decisions.py": "DECISIONS.md",
    "test_deploy_compose.py": "docker-compose.yml and docker-compose.cluster.yml, read as data",
    "test_deploy_configuration.py": ".env.example and the stack's variables",
    "test_deploy_images.py": "docker/*.Dockerfile and .dockerignore",
    "test_docs_links.py": "the docs' links and the paths they cite",
    "test_documented_values.py": "values the README states",
    "test_focus_contrast.py": "the stylesheet's focus ring",
    "test_glossary_file.py": "config/concepts.tsv",
    "test_layers.py": "the suite's layers",
    "test_relevance_harness.py": "relevance/ itself: its metrics, known items and judges on a made-up corpus",
    "test_request_bodies.py": "every request body the site sends (snapshots)",
    "test_written_once.py": "each concept written once: separators, the search box's prefixes, UI strings",
}
# What no unit test imports, even inside a function: the node's layers' support and fixtures, the HTTP client and
# the container tools (tests/conftest.py refuses the last two in a run of tests/unit alone).
NOT_FOR_UNIT_TESTS = {"support", "node_fixtures", "container_node", "realm_users", "requests", "testcontainers",
                      "docker"}
# Scripts that build or install something (Compose v2 from Go sources, the images, a Docker engine): tests/deploy's.
BUILDERS = ("compose-v2.sh", "build-images.sh", "docker-engine.sh", "debian-image.sh", "compose_binary")


def modules() -> list[tuple[str, ...]]:
    """Every module of the project as its path's parts (a package as its folder's)."""
    found = []
    for folder in SOURCE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if path.name.startswith("test_"):
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(parts[:-1] if parts[-1] == "__init__" else parts)
    return found


def modules_named_by(test_file: str, known: list[tuple[str, ...]]) -> list[str]:
    """The modules a test file's name names: test_<the module's last path parts, joined by _>.py."""
    name = test_file.removeprefix("test_").removesuffix(".py")
    return sorted(".".join(parts) for parts in known
                  if any("_".join(parts[-k:]) == name for k in range(1, len(parts) + 1)))


def test_a_unit_test_is_named_after_the_one_module_it_tests() -> None:
    known = modules()
    unnamed = {path.name: modules_named_by(path.name, known) for path in sorted(UNIT.glob("test_*.py"))
               if path.name not in ACROSS}
    assert len(unnamed) > 40  # the check sees the files
    assert {name: found for name, found in unnamed.items() if len(found) != 1} == {}
    assert sorted(name for name in ACROSS if not (UNIT / name).exists()) == []


def test_the_naming_rule_finds_a_module_by_its_last_parts() -> None:
    known = [("webapp", "services", "plan", "ladder"), ("webapp", "services", "plan", "meaning"),
             ("papersearch", "meaning"), ("webapp", "services", "bodies")]
    ladder = ["webapp.services.plan.ladder"]
    assert modules_named_by("test_plan_ladder.py", known) == modules_named_by("test_ladder.py", known) == ladder
    assert modules_named_by("test_bodies.py", known) == ["webapp.services.bodies"]
    assert len(modules_named_by("test_meaning.py", known)) == 2  # ambiguous: test_papersearch_meaning.py names one
    assert modules_named_by("test_papersearch_meaning.py", known) == ["papersearch.meaning"]
    assert modules_named_by("test_relaxation.py", known) == []


def unit_imports(path: Path) -> set[str]:
    tops = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            tops |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def test_no_unit_test_imports_the_integration_stack_or_builds() -> None:
    files = sorted(UNIT.glob("*.py")) + [ROOT / "tests" / name for name in ("nodeless.py", "consumers.py",
                                                                             "deploy_files.py", "conftest.py")]
    imports = {path.name: sorted(unit_imports(path) & NOT_FOR_UNIT_TESTS) for path in files}
    assert {name: found for name, found in imports.items() if found} == {}
    builds = {path.name: [b for b in BUILDERS if b in code]
              for path in files if path.name != "test_layers.py"
              for code in ["\n".join(ast.unparse(n) for n in ast.parse(path.read_text(encoding="utf-8")).body
                                     if not isinstance(n, ast.Expr))]}  # code, not the docstrings
    assert {name: found for name, found in builds.items() if found} == {}


def test_the_unit_layer_alone_imports_neither_the_http_client_nor_the_container_tools(tmp_path: Path) -> None:
    """Collecting tests/unit imports every unit test module and conftest; afterwards none of the integration stack
    is loaded (tests/conftest.py refuses it: the Elasticsearch client, which would take the HTTP client when it is
    installed, falls back on urllib3)."""
    (tmp_path / "imported_report.py").write_text(
        "import sys\n\n\n"
        "def pytest_collection_finish(session):\n"
        f"    names = {sorted(NOT_FOR_UNIT_TESTS)!r}\n"
        "    print('imported:', [n for n in names if n in sys.modules])\n")
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    # --snapshot-warn-unused: nothing runs, so every snapshot is unused (syrupy would fail the run for it)
    proc = subprocess.run([sys.executable, "-m", "pytest", "tests/unit", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "--snapshot-warn-unused", "-p", "imported_report"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "imported: []" in proc.stdout, proc.stdout[-3000:]
