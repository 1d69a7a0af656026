"""Fixtures shared by the integration tests of the local node (test_node.py, test_node_java.py)."""

from __future__ import annotations

import pytest

from papersearch.localnode.node import LocalNode


@pytest.fixture(scope="module")
def local_node(cluster) -> LocalNode:
    node = LocalNode()
    if cluster.kind != "local node":
        node.start()  # idempotent; the session runs on another cluster, so make sure ours is up too
    assert node.pid(), "the local node is not running"
    return node
