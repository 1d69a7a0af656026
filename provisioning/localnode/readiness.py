"""When a starting node counts as ready: it answers, the cluster has all its nodes and is yellow or
green, and the webapp's and indexer's users authenticate on it."""

from __future__ import annotations

import time

from elasticsearch import Elasticsearch
from elasticsearch import exceptions as es_exceptions

from papersearch import credentials
from papersearch.paths import credentials_file
from provisioning.localnode.distribution import ProvisionError
from provisioning.localnode.process import NodeProcess


def _admin(url: str, timeout: float) -> Elasticsearch:
    password = credentials.ensure()[credentials.ELASTIC]
    return Elasticsearch(url, basic_auth=(credentials.ELASTIC, password), request_timeout=timeout)


def answers(url: str) -> bool:
    # Not ping(): GET / lives in the rest-root module, which this distribution lacks.
    try:
        _admin(url, 5).cluster.health()
        return True
    except Exception:
        return False


def wait_ready(nodes: int, starting: list[NodeProcess], host: str, timeout: float) -> None:
    """Every starting node answers, the cluster has `nodes` nodes (those running), yellow or green."""
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    for proc in starting:
        client = _admin(proc.url(host), 10)
        while True:
            if not proc.pid():
                raise ProvisionError(f"{proc.name} exited during start-up; last log lines:\n{proc.log_tail(40)}")
            try:
                health = client.cluster.health(wait_for_status="yellow", wait_for_nodes=str(nodes), timeout="5s")
                if health["status"] in {"yellow", "green"} and health["number_of_nodes"] == nodes:
                    break
                last = f"health {health['status']}, {health['number_of_nodes']} of {nodes} nodes"
            except es_exceptions.AuthenticationException as exc:
                raise ProvisionError(
                    f"{proc.name} refuses the elastic password in {credentials_file()} ({exc}); its data was "
                    "initialised with another password: run `papersearch-node reset` to start afresh"
                ) from exc
            except Exception as exc:
                last = type(exc).__name__
            if time.monotonic() > deadline:
                raise ProvisionError(f"{proc.name} was not ready within {timeout:.0f}s ({last}); "
                                     f"see `papersearch-node logs --node {proc.number}`")
            time.sleep(1)


def check_users(procs: list[NodeProcess], host: str) -> None:
    """The indexer's and webapp's identities authenticate (file realm) on every node."""
    for proc in procs:
        for user, password in credentials.ensure().items():
            if user == credentials.ELASTIC:
                continue
            client = Elasticsearch(proc.url(host), basic_auth=(user, password), request_timeout=10)
            try:
                client.security.authenticate()
            except es_exceptions.ApiError as exc:
                raise ProvisionError(f"user {user} cannot authenticate on {proc.name}: {exc}") from exc
