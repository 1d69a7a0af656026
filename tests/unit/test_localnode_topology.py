"""One description of the cluster: the compose cluster override and the local cluster
(`papersearch-node start --nodes N`) give every node the same elasticsearch.yml settings, key by key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from provisioning.localnode import topology

ROOT = Path(__file__).resolve().parents[2]
NODE_SERVICES = ("es", "es02", "es03")


def compose_node_settings() -> dict[str, dict[str, str]]:
    """Each Elasticsearch service's elasticsearch.yml keys (environment entries with a dot) in the override."""
    services = yaml.safe_load((ROOT / "docker-compose.cluster.yml").read_text())["services"]
    return {name: {k: str(v) for k, v in services[name]["environment"].items() if "." in k} for name in NODE_SERVICES}


def as_compose_value(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def local_node_settings(initial: bool = True) -> dict[str, object]:
    return topology.node_settings(
        cluster_name="papersearch-local", node_name="papersearch-local-2", host="127.0.0.1", http_port=9201,
        transport_port=9301, data=Path("/d"), logs=Path("/l"), repo=Path("/r"),
        seed_hosts=["127.0.0.1:9300", "127.0.0.1:9301", "127.0.0.1:9302"],
        initial_masters=["papersearch-local-1", "papersearch-local-2", "papersearch-local-3"] if initial else None)


@pytest.mark.parametrize("service", NODE_SERVICES)
def test_compose_nodes_have_the_shared_settings_with_the_same_values(service: str) -> None:
    settings = compose_node_settings()[service]
    for key, value in topology.CLUSTER_SETTINGS.items():
        assert settings.get(key) == as_compose_value(value), f"{service}: {key}"


@pytest.mark.parametrize("service", NODE_SERVICES)
def test_compose_sets_no_cluster_key_the_local_cluster_lacks(service: str) -> None:
    extra = set(compose_node_settings()[service]) - set(topology.CLUSTER_SETTINGS) - topology.PER_DEPLOYMENT_KEYS
    assert not extra, f"{service} sets {sorted(extra)}: add them to topology.CLUSTER_SETTINGS (or explain why not)"


def test_local_cluster_node_has_exactly_the_shared_settings() -> None:
    settings = local_node_settings()
    for key, value in topology.CLUSTER_SETTINGS.items():
        assert settings[key] == value, key
    extra = set(settings) - set(topology.CLUSTER_SETTINGS) - topology.PER_DEPLOYMENT_KEYS - set(topology.LOCAL_ONLY)
    assert not extra
    per_node = set(settings) & topology.PER_DEPLOYMENT_KEYS
    compose_per_node = set(compose_node_settings()["es02"]) & topology.PER_DEPLOYMENT_KEYS
    # The same kinds of per-node keys are set on both sides (compose maps ports and folders itself).
    assert compose_per_node <= per_node, compose_per_node - per_node


def test_initial_master_nodes_only_for_a_first_start() -> None:
    assert local_node_settings(initial=True)["cluster.initial_master_nodes"] == [
        "papersearch-local-1", "papersearch-local-2", "papersearch-local-3"]
    assert "cluster.initial_master_nodes" not in local_node_settings(initial=False)


def test_single_node_keeps_its_settings() -> None:
    single = topology.node_settings(cluster_name="papersearch-local", node_name="papersearch-local-1",
                                    host="127.0.0.1", http_port=9200, transport_port=None, data=Path("/d"),
                                    logs=Path("/l"), repo=Path("/r"))
    assert single["discovery.type"] == "single-node"
    assert single["xpack.security.enabled"] is True
    assert single["xpack.security.transport.ssl.enabled"] is False
    assert "discovery.seed_hosts" not in single
    assert single["path.repo"] == "/r"  # backups on the single node too (papersearch-admin backup)
