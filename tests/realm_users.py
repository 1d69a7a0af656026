"""A throw-away user holding roles of THIS checkout's provisioning code, on the test session's real node.

The shared node's own users carry the roles it was started with; a test of a role change needs the changed
roles in force. On the local node (file realm; the native realm is unavailable, DECISIONS.md D-002) the
roles and the user are added to every node's realm files, which Elasticsearch reloads within seconds, and
removed afterwards; on an ES_URL cluster they go through the security API. Only additions: the session's
own users and roles are never touched.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest
from elasticsearch import AuthenticationException, Elasticsearch
from support import Cluster

from provisioning.file_realm import password_hash, roles_yaml


def _realm_dirs() -> list[Path]:
    from provisioning.localnode.node import LocalNode

    return [proc.conf for proc in LocalNode().processes()]


def _replace(path: Path, text: str) -> None:
    """Atomically, keeping the file's owner and mode (the node's user must still read it)."""
    stat = path.stat()
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:6]}")
    tmp.write_text(text, encoding="utf-8")
    os.chown(tmp, stat.st_uid, stat.st_gid)
    os.chmod(tmp, stat.st_mode & 0o777)
    os.replace(tmp, path)


def _edit(directory: Path, additions: dict[str, str], remove: bool = False) -> None:
    """Read, change and replace each file under a lock, so two test runs at once lose neither's lines."""
    from papersearch.paths import local_dir

    with open(local_dir() / "realm-probe.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _edit_locked(directory, additions, remove)


def _edit_locked(directory: Path, additions: dict[str, str], remove: bool) -> None:
    for name, block in additions.items():
        path = directory / name
        text = path.read_text(encoding="utf-8")
        added = text + ("" if text.endswith("\n") or not text else "\n") + block
        _replace(path, text.replace(block, "") if remove else added)


class Probe(NamedTuple):
    client: Elasticsearch
    user: str
    password: str


@contextmanager
def user_with_roles(cluster: Cluster, roles: dict[str, dict], timeout: float = 60) -> Iterator[Probe]:
    """A new user holding `roles` (name → body, as provisioning.roles.role_bodies gives them, renamed here so they
    cannot clash with the session's own): its client and credentials."""
    tag = uuid.uuid4().hex[:8]
    renamed = {f"probe{tag}_{name}": body for name, body in roles.items()}
    user, password = f"probe{tag}", secrets.token_urlsafe(18)
    admin = cluster.client("admin")
    if cluster.kind == "ES_URL":
        for name, body in renamed.items():
            admin.security.put_role(name=name, **body)
        admin.security.put_user(username=user, password=password, roles=list(renamed))
        dirs: list[Path] = []
    elif cluster.kind == "local node":
        dirs = _realm_dirs()
        additions = {
            "roles.yml": roles_yaml(renamed).split("\n", 1)[1],  # without the header comment
            "users": f"{user}:{password_hash(password)}\n",
            "users_roles": "".join(f"{name}:{user}\n" for name in renamed),
        }
        for directory in dirs:
            _edit(directory, additions)
    else:
        pytest.fail(f"roles under test can be put on an ES_URL cluster or the local node, not on a {cluster.kind}")
    client = Elasticsearch(cluster.url, basic_auth=(user, password), request_timeout=30)
    try:
        _wait_for(client, len(renamed), timeout)
        yield Probe(client, user, password)
    finally:
        if cluster.kind == "ES_URL":
            admin.security.delete_user(username=user)
            for name in renamed:
                admin.security.delete_role(name=name)
        for directory in dirs:
            _edit(directory, additions, remove=True)


def _wait_for(client: Elasticsearch, role_count: int, timeout: float) -> None:
    """Until the user logs in and every role of it is known (users and roles.yml reload separately)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if len(client.security.authenticate()["roles"]) == role_count and \
                    client.security.get_user_privileges()["indices"]:
                return
        except AuthenticationException:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the probe user's roles were not in force within {timeout:g} s")
        time.sleep(0.5)
