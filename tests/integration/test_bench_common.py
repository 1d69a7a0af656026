"""bench/common.py against what is there: without a node the benchmark stops and says how to start one. Here and not
in tests/unit: it goes through the HTTP client (requests) to a port nothing listens on, and a unit test imports
nothing of that stack (DECISIONS.md D-216)."""

from __future__ import annotations

import pytest


def test_without_a_node_the_benchmark_stops_and_says_how_to_start_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from bench.common import require_node

    with socket.socket() as unused:  # a loopback port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("ES_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ES_USERNAME", "nobody")
    with pytest.raises(SystemExit) as stopped:
        require_node()
    assert "make node" in str(stopped.value) and "does not answer" in str(stopped.value)
