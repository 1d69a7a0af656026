"""The suite's hooks. Nothing here needs a node, an HTTP client or a container, so `pytest tests/unit` imports none
of them: the fixtures of a real Elasticsearch node are the plugin tests/node_fixtures.py, loaded when a run collects
anything beyond tests/unit (docs/testing.md; DECISIONS.md D-216)."""

from __future__ import annotations

import importlib.abc
import sys
from pathlib import Path

import pytest
from nodeless import ROOT, SESSION_SEED

UNIT = ROOT / "tests" / "unit"
# What the unit layer never imports: the HTTP client the integration support drives the site with (the Elasticsearch
# client would take it when it is installed; it falls back on urllib3, which is its default anyway) and the
# container tools.
NOT_FOR_UNIT_TESTS = ("requests", "testcontainers", "docker")


class RefusedImports(importlib.abc.MetaPathFinder):
    """Refuses the modules of NOT_FOR_UNIT_TESTS for a run of tests/unit alone, so a unit test that imports one fails
    there rather than quietly needing the integration stack (tests/unit/test_architecture.py runs the proof)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in NOT_FOR_UNIT_TESTS:
            raise ModuleNotFoundError(f"{name}: a unit test imports nothing of the integration stack "
                                      "(tests/conftest.py, docs/testing.md)", name=name)
        return None


def unit_only(config: pytest.Config) -> bool:
    """Whether every path the run was given (its arguments, else testpaths) lies in tests/unit."""
    if config.option.pyargs:
        return False
    paths = []
    for arg in config.args:
        path = Path(arg.split("::")[0])
        if not path.is_absolute():
            here = config.invocation_params.dir / path
            path = here if here.exists() else config.rootpath / path
        paths.append(path.resolve())
    return bool(paths) and all(path == UNIT or UNIT in path.parents for path in paths)


def pytest_configure(config: pytest.Config) -> None:
    if unit_only(config):
        sys.meta_path.insert(0, RefusedImports())
    else:
        config.pluginmanager.import_plugin("node_fixtures")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The seed of this run's random draws, when it is not each test's own (support.TEST_SEED), for replaying."""
    if SESSION_SEED is not None:
        terminalreporter.write_line(f"random draws: PAPERSEARCH_TEST_SEED={SESSION_SEED} replays this run's")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `destructive` (a frozen, restarted or killed node, a lost disk) run after every other test,
    in the order they were collected, so no test meets a node they left cold."""
    items.sort(key=lambda item: item.get_closest_marker("destructive") is not None)  # stable: the order is kept
