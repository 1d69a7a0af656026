"""Clients on one node or several: which nodes, and how a failed request is retried (the behaviour itself is
exercised against a real 3-node cluster in tests/integration/test_failover.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from papersearch.es import make_client
from papersearch.settings import Settings

NODES = "http://127.0.0.1:9201, http://127.0.0.1:9202,http://127.0.0.1:9203"


def settings(url: str | None) -> Settings:
    return Settings(ES_URL=url, ES_USERNAME="u", ES_PASSWORD="p", ES_WEB_USERNAME="w", ES_WEB_PASSWORD="q")


def node_urls(client) -> list[str]:
    return sorted(str(n.base_url) for n in client.transport.node_pool.all())


def test_es_url_takes_a_comma_separated_list() -> None:
    s = settings(NODES)
    assert s.urls() == ["http://127.0.0.1:9201", "http://127.0.0.1:9202", "http://127.0.0.1:9203"]
    assert s.url() == "http://127.0.0.1:9201,http://127.0.0.1:9202,http://127.0.0.1:9203"
    assert node_urls(make_client("web", s)) == s.urls()
    assert node_urls(make_client("indexer", s)) == s.urls()


def retries(client) -> tuple[int, bool]:
    # The client passes these to every request (its transport keeps library defaults of its own).
    return client._max_retries, client._retry_on_timeout


def test_webapp_retries_once_on_another_node_only_when_there_is_one() -> None:
    assert retries(make_client("web", settings(NODES))) == (1, True)
    assert retries(make_client("web", settings("http://127.0.0.1:9201"))) == (0, False)


def test_indexer_retries_at_least_twice_and_on_every_other_node() -> None:
    assert retries(make_client("indexer", settings("http://127.0.0.1:9201"))) == (2, True)
    five = ",".join(f"http://127.0.0.1:{9200 + i}" for i in range(5))
    assert retries(make_client("indexer", settings(five))) == (4, True)


def test_local_settings_use_every_node_of_the_recorded_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERSEARCH_LOCAL_DIR", str(tmp_path))
    monkeypatch.delenv("ES_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env
    urls = ["http://127.0.0.1:41001", "http://127.0.0.1:41002", "http://127.0.0.1:41003"]
    (tmp_path / "node-state.json").write_text(json.dumps({"port": 41001, "urls": urls}))
    assert Settings().urls() == urls
    (tmp_path / "node-state.json").write_text(json.dumps({"port": 41001}))  # written before clusters existed
    assert Settings().urls() == ["http://127.0.0.1:41001"]


def test_replicas_default_to_the_cluster_rule_and_stay_overridable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAPERSEARCH_REPLICAS", raising=False)
    assert Settings().replicas is None  # min(1, data nodes - 1) at build time (indexer/operations.py)
    monkeypatch.setenv("PAPERSEARCH_REPLICAS", "2")
    assert Settings().replicas == 2
