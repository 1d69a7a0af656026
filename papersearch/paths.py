"""Where the project's files are: config/, the ignored .local/ working area."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def config_dir() -> Path:
    return Path(os.environ.get("PAPERSEARCH_CONFIG_DIR", PROJECT_ROOT / "config"))


def local_dir() -> Path:
    """Project-local, git-ignored: downloads, the node, credentials."""
    return Path(os.environ.get("PAPERSEARCH_LOCAL_DIR", PROJECT_ROOT / ".local"))


def credentials_file() -> Path:
    return local_dir() / "credentials.json"


def node_state_file() -> Path:
    return local_dir() / "node-state.json"
