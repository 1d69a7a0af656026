"""Transport TLS for a local cluster: a CA and one node certificate, made once with the
distribution's own bin/elasticsearch-certutil and kept in .local/certs (mode 0600, never in git).

With security on, Elasticsearch refuses to form a multi-node cluster without TLS between nodes. One
certificate serves every node: verification_mode `certificate` checks the CA, not host names (all
nodes are on loopback), as in docker-compose.cluster.yml.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from papersearch.paths import local_dir
from provisioning.localnode.distribution import ProvisionError, say

# Where a node's elasticsearch.yml expects the certificate (relative to its config folder).
NODE_KEYSTORE = "certs/elastic-certificates.p12"


def certs_dir() -> Path:
    return local_dir() / "certs"


def ensure(es_home: Path, env: dict[str, str]) -> Path:
    """The node certificate (PKCS#12, empty password), created with its CA on first use."""
    folder = certs_dir()
    ca, node = folder / "ca.p12", folder / "node.p12"
    if node.exists():
        return node
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    tool = str(es_home / "bin" / "elasticsearch-certutil")
    say(f"creating the transport CA and node certificate in {folder}")
    steps = []
    if not ca.exists():
        steps.append([tool, "ca", "--silent", "--pass", "", "--out", str(ca)])
    partial = folder / "node.partial.p12"
    partial.unlink(missing_ok=True)
    steps.append([tool, "cert", "--silent", "--ca", str(ca), "--ca-pass", "", "--pass", "", "--out", str(partial)])
    for step in steps:
        proc = subprocess.run(step, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ProvisionError(f"elasticsearch-certutil {step[1]} failed: {proc.stdout}{proc.stderr}")
    partial.rename(node)
    for path in (ca, node):
        os.chmod(path, 0o600)
    return node


def install(node_cert: Path, conf: Path) -> None:
    """Copy the node certificate into one node's config folder (mode 0600; chowned with the folder)."""
    target = conf / NODE_KEYSTORE
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(node_cert, target)
    os.chmod(target, 0o600)
