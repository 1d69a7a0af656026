"""Helpers of the static deployment checks (test_deploy_images.py, test_deploy_compose.py,
test_deploy_configuration.py): the files' paths, compose files read as data, pinned images, and the variables
the app reads."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from papersearch.settings import Settings
from provisioning.localnode.config import NodeConfig as LocalNodeConfig

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
CLUSTER = ROOT / "docker-compose.cluster.yml"
TLS = ROOT / "docker-compose.tls.yml"
ES_DOCKERFILE = ROOT / "docker" / "elasticsearch.Dockerfile"
ENV_EXAMPLE = ROOT / ".env.example"
DOCKERIGNORE = ROOT / ".dockerignore"
SAMPLE = "indexer/sample/papers.jsonl"


# Variables the app services may receive that are not in the Settings model, each with the file that
# reads it (checked in test_deploy_configuration.py, so this list cannot rot). gunicorn's variables are
# taken from config/gunicorn.conf.py itself.
EXTRA_APP_VARIABLES = {
    "ELASTIC_PASSWORD": ("provisioning/stack_setup.py", "the superuser's password, setup only"),
    "ELASTIC_USERNAME": ("provisioning/stack_setup.py", "the superuser's name, setup only"),
    "PAPERSEARCH_CONFIG_DIR": ("papersearch/paths.py", "config/ outside the installed package"),
    "PAPERSEARCH_LOCAL_DIR": ("papersearch/paths.py", "the working area (rejects files)"),
}
FULL_VERSION_TAG = re.compile(r"(^|[^0-9])\d+\.\d+\.\d+([^0-9]|$)")


def load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: top level is not a mapping"
    return data


def services(path: Path) -> dict[str, dict]:
    return load_yaml(path)["services"]


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def node_version() -> str:
    return tomllib.loads((ROOT / "config" / "node.toml").read_text())["version"]


def settings_variables() -> set[str]:
    names = {field.validation_alias for field in Settings.model_fields.values()}
    assert all(isinstance(n, str) for n in names), "every Settings field should have a string validation_alias"
    return names  # type: ignore[return-value]


def gunicorn_variables() -> set[str]:
    text = (ROOT / "config" / "gunicorn.conf.py").read_text()
    return set(re.findall(r"""os\.environ(?:\.get\(|\[)\s*["']([A-Z0-9_]+)["']""", text))


def known_app_variables() -> set[str]:
    return settings_variables() | gunicorn_variables() | set(EXTRA_APP_VARIABLES)


def is_known_app_variable(name: str) -> bool:
    if name in known_app_variables():
        return True
    prefix = "PAPERSEARCH_NODE_"
    return name.startswith(prefix) and name.removeprefix(prefix).lower() in LocalNodeConfig.model_fields


def assert_pinned(image: str, where: str) -> None:
    assert "$" not in image, f"{where}: {image} has an unresolved variable"
    if "@sha256:" in image:
        return
    _, sep, tag = image.rpartition(":")
    assert sep and "/" not in tag, f"{where}: image {image} has no tag (pin it)"
    assert tag != "latest", f"{where}: image {image} uses :latest"
    assert FULL_VERSION_TAG.search(tag), f"{where}: tag of {image} is not a full x.y.z version"
