"""Node settings: config/node.toml, overridable by PAPERSEARCH_NODE_* environment variables."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from papersearch.paths import PROJECT_ROOT, config_dir, local_dir, node_state_file


class NodeConfig(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PAPERSEARCH_NODE_", extra="ignore")

    version: str
    artifact: str
    host: str = "127.0.0.1"
    port: int = 9200
    heap: str = "1g"
    cluster_heap: str = "512m"  # per node when --nodes > 1, unless PAPERSEARCH_NODE_HEAP is set
    user: str = "papersearch-es"
    home: Path = Path(".local/node")
    startup_timeout: float = 180
    minimum_java: int = 21
    install_plugin: bool = True
    # Searches a node runs at once (thread_pool.search.size); 0: the node's share of the machine's cores.
    search_threads: int = Field(default=0, ge=0, le=256)
    # A second, independent local cluster beside the project's own (own state file, node folders and
    # cluster name; the download, plugin and credentials are shared). The failover tests use one.
    instance: str = Field(default="", pattern=r"^[a-z0-9-]*$")
    # The snapshot repository folder (path.repo) of every node; empty: <home>/snapshots (<home>/snapshots-<instance>),
    # which `reset` keeps. A shared filesystem's mount keeps backups off this disk (docs/operations.md "Backups").
    snapshots: str = ""

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_dir() / "node.toml")
        return init_settings, env_settings, toml

    @field_validator("heap", "cluster_heap")
    @classmethod
    def _heap(cls, value: str) -> str:
        if not re.fullmatch(r"\d+[mMgG]", value):
            raise ValueError(f"heap must look like 512m or 2g, got {value!r}")
        return value

    @field_validator("host")
    @classmethod
    def _loopback(cls, value: str) -> str:
        if value not in {"127.0.0.1", "localhost", "::1"}:
            raise ValueError("the local node listens on loopback only")
        return value

    @property
    def artifact_coordinates(self) -> str:
        return self.artifact.format(version=self.version)

    def heap_for(self, nodes: int) -> str:
        """1 GB for a single node; 512 MB each when several share the machine; the variable wins."""
        if nodes > 1 and "PAPERSEARCH_NODE_HEAP" not in os.environ:
            return self.cluster_heap
        return self.heap

    def search_threads_for(self, nodes: int) -> int:
        """One search at a time per core: searches here are CPU-bound, and Elasticsearch's default (1.5 ×
        cores + 1) makes long ones share cores and overrun the webapp's budget (DECISIONS.md D-104)."""
        return self.search_threads or max(1, len(os.sched_getaffinity(0)) // nodes)

    @property
    def cluster_name(self) -> str:
        return f"papersearch-{self.instance or 'local'}"

    def state_file(self) -> Path:
        return node_state_file() if not self.instance else local_dir() / f"node-state-{self.instance}.json"

    def lock_file(self) -> Path:
        return local_dir() / (f"node-{self.instance}.lock" if self.instance else "node.lock")

    def resolved_home(self) -> Path:
        home = self.home if self.home.is_absolute() else PROJECT_ROOT / self.home
        if os.geteuid() == 0 and not world_traversable(home.parent):
            # The node runs as an unprivileged user who cannot enter a private checkout (say under
            # /root); keep its files in a per-project folder it can reach instead.
            home = reachable_home()
        return home


    def snapshots_dir(self) -> Path:
        if self.snapshots:
            path = Path(self.snapshots)
            return path if path.is_absolute() else PROJECT_ROOT / path
        return self.resolved_home() / ("snapshots" + (f"-{self.instance}" if self.instance else ""))


def reachable_home(checkout: Path = PROJECT_ROOT) -> Path:
    """This checkout's folder outside it, for the system users (the node's, the site's) when they cannot enter the
    checkout (say under /root, mode 0700)."""
    digest = hashlib.sha256(str(checkout).encode()).hexdigest()[:12]
    return Path("/var/lib/papersearch") / digest


def world_traversable(path: Path) -> bool:
    path = path.resolve()
    return all(os.stat(part).st_mode & 0o001 for part in [path, *path.parents] if part.exists())
