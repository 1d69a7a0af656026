"""elasticsearch.yml of every local node, from one description of the cluster.

CLUSTER_SETTINGS is what all nodes of a multi-node cluster share, local or in Docker:
docker-compose.cluster.yml sets the same keys to the same values (tests/unit/test_localnode_topology.py
compares them key by key), so what the failover tests exercise is what compose users run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from provisioning.localnode.certs import NODE_KEYSTORE

CLUSTER_SETTINGS: dict[str, Any] = {
    "discovery.type": "multi-node",
    "xpack.security.enabled": True,
    # Plain HTTP: loopback here, the compose network there; TLS between nodes, as security demands.
    "xpack.security.http.ssl.enabled": False,
    "xpack.security.transport.ssl.enabled": True,
    # One certificate for all nodes, signed by our CA: the CA is verified, host names are not.
    "xpack.security.transport.ssl.verification_mode": "certificate",
    "xpack.security.transport.ssl.keystore.path": NODE_KEYSTORE,
    "xpack.security.transport.ssl.truststore.path": NODE_KEYSTORE,
    "xpack.license.self_generated.type": "basic",
}

# Keys that name this node or this deployment's places and so differ by design between the local
# cluster and compose (node names, addresses, ports, folders).
PER_DEPLOYMENT_KEYS = frozenset({
    "cluster.name", "node.name", "discovery.seed_hosts", "cluster.initial_master_nodes", "network.host",
    "http.port", "transport.port", "path.data", "path.logs", "path.repo",
})
# Only on developer machines: disks there are often nearly full; do not block writes for watermarks.
LOCAL_ONLY = {"cluster.routing.allocation.disk.threshold_enabled": False}


def node_settings(*, cluster_name: str, node_name: str, host: str, http_port: int,
                  transport_port: int | None, data: Path, logs: Path, repo: Path,
                  seed_hosts: list[str] | None = None, initial_masters: list[str] | None = None) -> dict[str, Any]:
    """One node's settings; without seed_hosts a single-node cluster (as before clusters existed)."""
    settings: dict[str, Any] = {
        "cluster.name": cluster_name,
        "node.name": node_name,
        "network.host": host,
        "http.port": http_port,
        "path.data": str(data),
        "path.logs": str(logs),
        # Every topology has a snapshot repository folder (papersearch-admin backup registers it on first use).
        "path.repo": str(repo),
    }
    if seed_hosts is None:
        settings.update({
            "discovery.type": "single-node",
            "transport.port": "9300-9399",
            # Security on, plain HTTP on loopback; explicit so no auto-configuration (certs, HTTPS) runs.
            "xpack.security.enabled": True,
            "xpack.security.http.ssl.enabled": False,
            "xpack.security.transport.ssl.enabled": False,
        })
    else:
        settings.update({**CLUSTER_SETTINGS, "transport.port": transport_port,
                         "discovery.seed_hosts": seed_hosts})
        if initial_masters:
            # Only for a cluster's very first start; a cluster that has formed ignores it (and a node that
            # rejoins must not carry it: Elasticsearch's bootstrapping guide).
            settings["cluster.initial_master_nodes"] = initial_masters
    return {**settings, **LOCAL_ONLY}


def render(settings: dict[str, Any]) -> str:
    import json

    return "# Written by papersearch-node; edit config/node.toml instead.\n" + "".join(
        f"{k}: {json.dumps(v)}\n" for k, v in settings.items())
