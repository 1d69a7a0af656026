"""`docker compose config` (Compose v2, scripts/compose-v2.sh) validates docker-compose.yml and the cluster override
for real, and refuses to resolve them without the secrets. Here, beside the Docker stack's tests, and not among the
static checks of tests/unit/test_deploy_compose.py: getting Compose v2 may build it from Go sources (docs/testing.md),
and a unit test builds nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml
from deploy_files import ENV_EXAMPLE, ROOT, environment
from support import compose_binary


def run_compose(*args: str, env_file: Path) -> subprocess.CompletedProcess:
    # HOME: where the compose CLI plugin is (~/.docker/cli-plugins, scripts/compose-v2.sh).
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.run([*compose_binary(), "--env-file", str(env_file), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("files", [["docker-compose.yml"], ["docker-compose.yml", "docker-compose.cluster.yml"]],
                         ids=["single", "cluster"])
def test_docker_compose_config_validates(files: list[str]) -> None:
    args = [a for f in files for a in ("-f", f)]
    proc = run_compose(*args, "config", env_file=ENV_EXAMPLE)
    assert proc.returncode == 0, f"compose config failed:\n{proc.stderr}"
    resolved = yaml.safe_load(proc.stdout)
    assert set(resolved["services"]) >= {"es", "setup", "indexer", "webapp"}
    assert "ES_WEB_PASSWORD" not in environment(resolved["services"]["webapp"])
    assert resolved["secrets"]["ES_WEB_PASSWORD"]["environment"] == "ES_WEB_PASSWORD"


def test_docker_compose_config_requires_the_secrets(tmp_path: Path) -> None:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    proc = run_compose("-f", "docker-compose.yml", "config", env_file=empty)
    assert proc.returncode != 0
    assert "ELASTIC_PASSWORD" in proc.stderr and ".env.example" in proc.stderr
