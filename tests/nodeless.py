"""Test support that needs no node, no HTTP client and no container: all the unit tests import of tests/ (import it
as `nodeless`). support.py, which the node's layers import, re-exports it."""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE = ROOT / "indexer" / "sample" / "papers.jsonl"
# Tests that draw random inputs draw them from a fixed seed of their own, the same every run, unless
# PAPERSEARCH_TEST_SEED names one for all of them (a number, or "fresh": a new one each session, shown in pytest's
# header for replaying). `make fuzz` sets it to fresh (docs/testing.md; DECISIONS.md D-179).
TEST_SEED = os.environ.get("PAPERSEARCH_TEST_SEED", "")
SESSION_SEED = random.SystemRandom().randrange(2**31) if TEST_SEED == "fresh" else int(TEST_SEED or 0) or None


def drawn(own_seed: int) -> random.Random:
    """The random draws of a test whose fixed seed is `own_seed` (see TEST_SEED)."""
    return random.Random(own_seed if SESSION_SEED is None else f"{SESSION_SEED}:{own_seed}")


def read_rejects(path: str | Path) -> list:
    """A rejects file's entries as Rejects (it is JSON Lines of the Reject model)."""
    from indexer.loading.rejects import Reject

    with Path(path).open(encoding="utf-8") as f:
        return [Reject.model_validate_json(line) for line in f if line.strip()]


def wait_for(condition: Callable[[], object], timeout: float, what: str, interval: float = 0.2) -> object:
    """Poll `condition` until it returns something true, and return that; `timeout` is a ceiling that only
    catches a hang (DECISIONS.md D-130)."""
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
