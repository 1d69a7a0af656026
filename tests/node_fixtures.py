"""The fixtures of a real Elasticsearch node: one for the whole session, never skipped. A pytest plugin that
tests/conftest.py loads when a run collects anything beyond tests/unit (the integration, browser and deploy
layers); a run of tests/unit alone never imports it, nor the HTTP client and the container tools it brings.

The node is chosen in this order: ES_URL (with ES_USERNAME/ES_PASSWORD of a user that may manage
security) if set; the project's own local node when it is running (`make test` starts it); a
container of the locally built image papersearch/elasticsearch:<version> (`make images`; nothing is
pulled) when a Docker engine answers and has it; otherwise the local node, started now. One line says
why the local node was chosen. If none can be had the run fails; Docker never turns it red.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from support import (
    DISASTER_INSTANCE,
    FAILOVER_INSTANCE,
    SAMPLE,
    Cluster,
    build_alias,
    delete_alias_indices,
    loaded_alias,
    start_in_background,
    write_jsonl,
)

from papersearch import credentials


def pytest_collection_finish(session: pytest.Session) -> None:
    """The failover tests' 3-node cluster and the disaster tests' node start now, in the background, so that
    their JVMs' start-up overlaps the rest of the suite instead of adding to it."""
    if any(item.get_closest_marker("failover") for item in session.items):
        start_in_background(FAILOVER_INSTANCE, 3)
    if any(item.get_closest_marker("disaster") for item in session.items):
        start_in_background(DISASTER_INSTANCE, 1, PAPERSEARCH_NODE_HEAP="512m")


def _docker(*args: str) -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", *args], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _container_image() -> tuple[str | None, str]:
    """The local Elasticsearch image to run, or None and why not."""
    from provisioning.localnode.config import NodeConfig

    image = f"papersearch/elasticsearch:{NodeConfig().version}"
    if not _docker("info"):
        return None, "no Docker engine answers"
    if not _docker("image", "inspect", image):
        return None, f"a Docker engine answers but has no {image} (make images builds it; nothing is pulled)"
    return image, ""


def _with_api_users(url: str, admin: tuple[str, str], kind: str) -> Cluster:
    """On an external cluster create the webapp's and indexer's users through the security API."""
    from provisioning.roles import ensure_roles_and_users

    passwords = {credentials.WEB: secrets.token_urlsafe(18), credentials.INDEXER: secrets.token_urlsafe(18)}
    ensure_roles_and_users(Elasticsearch(url, basic_auth=admin, request_timeout=30), passwords)
    return Cluster(url, admin, (credentials.INDEXER, passwords[credentials.INDEXER]),
                   (credentials.WEB, passwords[credentials.WEB]), kind)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    if os.environ.get("ES_URL"):
        user, password = os.environ.get("ES_USERNAME"), os.environ.get("ES_PASSWORD")
        if not (user and password):
            pytest.fail("ES_URL is set but ES_USERNAME/ES_PASSWORD (a user that may manage security) are not")
        yield _with_api_users(os.environ["ES_URL"], (user, password), "ES_URL")
        return
    from provisioning.localnode.node import LocalNode

    # `make test` has started the local node already: a container would be a second node for nothing (a
    # minute or more of start-up; DECISIONS.md D-069).
    image, why_not = (None, "it is running already (make test starts it)") if LocalNode().pid() \
        else _container_image()
    if image:
        from container_node import elasticsearch_container

        yielded = False
        try:
            with elasticsearch_container(image) as found:
                yielded = True
                yield found
            return
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:  # never red because of Docker
            if yielded:
                raise
            why_not = f"the container of {image} did not start ({str(exc)[:300]})"
    print(f"\n[cluster] the project's own local node: {why_not}")
    from provisioning.localnode.distribution import ProvisionError
    from provisioning.localnode.java import JavaNotFound

    node = LocalNode()
    try:
        node.start()
    except (ProvisionError, JavaNotFound, OSError, subprocess.CalledProcessError) as exc:
        pytest.fail(f"no Elasticsearch node could be had (no ES_URL, no Docker engine, local node failed): {exc}")
    creds = credentials.load()
    yield Cluster(node.url(), ("elastic", creds["elastic"]), (credentials.INDEXER, creds[credentials.INDEXER]),
                  (credentials.WEB, creds[credentials.WEB]), "local node")


@pytest.fixture(scope="session")
def admin(cluster: Cluster) -> Elasticsearch:
    from papersearch import querylog_schema

    client = cluster.client("admin")
    querylog_schema.ensure_template(client)  # as every build does: the query log's days are made from it
    return client


@pytest.fixture
def alias(admin: Elasticsearch) -> Iterator[str]:
    """A fresh alias name under papers* (the roles' index pattern); its indices are deleted afterwards."""
    name = f"paperstest_{uuid.uuid4().hex[:10]}"
    yield name
    delete_alias_indices(admin, name)


@pytest.fixture
def query_log_base(admin: Elasticsearch) -> Iterator[str]:
    """A fresh query-log base name under the roles' pattern, its next days made as the indexer's side makes them
    (the web user appends only to days that exist); its daily indices are deleted afterwards."""
    from papersearch.querylog_schema import DEFAULT_BASE, prepare_days

    name = f"{DEFAULT_BASE}-t{uuid.uuid4().hex[:8]}"
    prepare_days(admin, name, ahead=1, template=False)
    yield name
    delete_alias_indices(admin, name)


@pytest.fixture(scope="session")
def sample_alias(cluster: Cluster, admin: Elasticsearch) -> Iterator[str]:
    """The shipped sample papers, loaded once by the real indexer. Read-only: do not modify it."""
    with loaded_alias(cluster, "paperstest_sample", [SAMPLE]) as (name, _):
        yield name


PROFILE_PAPERS = Path(__file__).resolve().parent / "fixtures" / "profile-papers.jsonl"


@pytest.fixture(scope="session")
def profile_alias(cluster: Cluster, admin: Elasticsearch) -> Iterator[str]:
    """tests/fixtures/profile-papers.jsonl: authors with several spellings (Müller, Muller), a Chinese name
    that covers two people (张伟) and its traditional form (張偉), years with a gap, venues, topics in both
    languages. Shared by the author, topic and chart tests, integration and browser. Read-only."""
    with loaded_alias(cluster, "paperstest_profiles", [PROFILE_PAPERS]) as (name, _):
        yield name


@pytest.fixture
def load_papers(cluster: Cluster, alias: str, tmp_path: Path):
    """load_papers([record, …]) → alias: the given papers (our JSONL schema) indexed behind a fresh alias."""
    def load(records: list[dict], include_sample: bool = False) -> str:
        path = write_jsonl(tmp_path / f"papers-{uuid.uuid4().hex[:6]}.jsonl", records)
        build_alias(cluster, alias, [SAMPLE, path] if include_sample else [path])
        return alias

    return load
