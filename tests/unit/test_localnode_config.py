"""The local node's settings that are computed rather than copied (config/node.toml)."""

from __future__ import annotations

import os
from pathlib import Path

from provisioning.localnode.config import NodeConfig


def test_search_threads_default_to_one_per_core_shared_between_local_nodes(monkeypatch):
    monkeypatch.delenv("PAPERSEARCH_NODE_SEARCH_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(8)))
    cfg = NodeConfig()
    assert cfg.search_threads == 0
    assert cfg.search_threads_for(1) == 8
    assert cfg.search_threads_for(3) == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    assert cfg.search_threads_for(3) == 1  # never none


def test_search_threads_set_explicitly_win(monkeypatch):
    monkeypatch.setenv("PAPERSEARCH_NODE_SEARCH_THREADS", "5")
    assert NodeConfig().search_threads_for(3) == 5


def test_the_snapshot_folder_is_outside_what_reset_wipes_unless_set(monkeypatch):
    monkeypatch.delenv("PAPERSEARCH_NODE_SNAPSHOTS", raising=False)
    monkeypatch.delenv("PAPERSEARCH_NODE_INSTANCE", raising=False)
    cfg = NodeConfig()
    home = cfg.resolved_home()
    assert cfg.snapshots_dir() == home / "snapshots"  # reset wipes home/data, home/logs and the cluster folders
    assert NodeConfig(instance="other").snapshots_dir() == home / "snapshots-other"
    monkeypatch.setenv("PAPERSEARCH_NODE_SNAPSHOTS", "/mnt/nfs/papersearch")
    assert NodeConfig().snapshots_dir() == Path("/mnt/nfs/papersearch")  # a shared filesystem, off this disk
