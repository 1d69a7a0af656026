"""The test session's Elasticsearch as a container of the locally built image (tests/conftest.py `cluster`).

Run with the docker CLI, not testcontainers: its reaper (Ryuk) is an image of its own that would have to
be pulled, and no registry answers here. The image is `make images`' papersearch/elasticsearch:<version>
(our plugin on the official image or on the stand-in built from Maven Central). Its users are in the file
realm, as in the Docker stack: the realm files (provisioning/file_realm.py) and the elastic password
are in a private directory mounted read-only. The port is published on 127.0.0.1 only; the container
is removed by name at the end.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support import Cluster, poll_http

from papersearch import credentials
from provisioning import file_realm

REALM = "/usr/share/elasticsearch/config/papersearch-realm"
HEAP = os.environ.get("PAPERSEARCH_NODE_HEAP", "1g")


def _realm_dir(passwords: dict[str, str], elastic: str) -> Path:
    """Files the container's user (uid 1000, group 0) can read: group 0 as root, else world-readable."""
    directory = Path(tempfile.mkdtemp(prefix="papersearch-testnode-"))
    file_realm.write(directory, passwords, ["papers*"])
    (directory / "elastic-password").write_text(elastic)
    root = os.geteuid() == 0
    for path in [directory, *directory.iterdir()]:
        if root:
            os.chown(path, 0, 0)
        path.chmod((0o750 if root else 0o755) if path.is_dir() else (0o640 if root else 0o644))
    return directory


@contextmanager
def elasticsearch_container(image: str, timeout: float = 420) -> Iterator[Cluster]:
    name = f"papersearch-testnode-{uuid.uuid4().hex[:8]}"
    elastic = secrets.token_urlsafe(18)
    passwords = {credentials.WEB: secrets.token_urlsafe(18), credentials.INDEXER: secrets.token_urlsafe(18)}
    realm = _realm_dir(passwords, elastic)
    started = time.monotonic()
    try:
        subprocess.run([
            "docker", "run", "-d", "--name", name, "-p", "127.0.0.1::9200",
            "-v", f"{realm}:{REALM}:ro", "-v", f"{realm / 'elastic-password'}:/run/secrets/ELASTIC_PASSWORD:ro",
            "-e", "ELASTIC_PASSWORD_FILE=/run/secrets/ELASTIC_PASSWORD", "-e", "discovery.type=single-node",
            "-e", "xpack.security.enabled=true", "-e", "xpack.security.http.ssl.enabled=false",
            "-e", "xpack.security.transport.ssl.enabled=false", "-e", f"ES_JAVA_OPTS=-Xms{HEAP} -Xmx{HEAP}",
            "-e", "path.repo=/usr/share/elasticsearch/snapshots",  # as in the Docker stack: backups work
            image,
        ], check=True, capture_output=True, text=True, timeout=120)
        port = subprocess.run(["docker", "port", name, "9200/tcp"], check=True, capture_output=True, text=True,
                              timeout=30).stdout.split()[0].rsplit(":", 1)[1]
        url = f"http://127.0.0.1:{port}"
        _wait(name, url, ("elastic", elastic), timeout)
        print(f"\n[cluster] container {name} of {image} at {url}, ready in {time.monotonic() - started:.0f} s")
        yield Cluster(url, ("elastic", elastic), (credentials.INDEXER, passwords[credentials.INDEXER]),
                      (credentials.WEB, passwords[credentials.WEB]), "container")
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", name], capture_output=True, timeout=120)
        shutil.rmtree(realm, ignore_errors=True)


def _wait(name: str, url: str, auth: tuple[str, str], timeout: float) -> None:
    last = poll_http(f"{url}/_cluster/health?wait_for_status=yellow&timeout=5s", timeout, auth)
    if last is not None:
        logs = subprocess.run(["docker", "logs", "--tail", "40", name], capture_output=True, text=True).stdout
        raise RuntimeError(f"container {name} not healthy within {timeout:g} s ({last}):\n{logs}")
