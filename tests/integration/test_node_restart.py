"""The analysis plugin survives a restart of the local node.

Marked `destructive`, so it runs after every other test (tests/conftest.py): a restart leaves the node cold
for a while, and tests that measure serving (gunicorn, browser) should not pay for that.
"""

from __future__ import annotations

import uuid

import pytest
from elasticsearch import Elasticsearch

from papersearch import index_definition
from provisioning.localnode.node import LocalNode

pytestmark = pytest.mark.destructive

ZH = "大语言模型的推理加速"


def test_plugin_survives_restart(cluster, admin: Elasticsearch) -> None:
    node = LocalNode()
    if cluster.kind != "local node":
        node.start()  # the session runs on another cluster; this test is about the project's own node
    needed = index_definition.load()["analysis_profiles"]["plugin"]["requires_plugin"]
    index = f"paperstest_restart_{uuid.uuid4().hex[:8]}"
    es = node.admin_client(request_timeout=60)
    es.indices.create(index=index, **index_definition.index_body("plugin"))
    before = [t["token"] for t in es.indices.analyze(index=index, analyzer="ps_zh", text=ZH)["tokens"]]
    pid_before = node.pid()
    assert pid_before

    try:
        assert node.stop() is True
        assert node.pid() is None
        status = node.start()
        assert status.running and status.pid and status.pid != pid_before

        es = node.admin_client(request_timeout=60)
        assert needed in {row["component"] for row in es.cat.plugins(format="json")}
        assert needed in (status.plugins or [])
        found = es.indices.analyze(analyzer="papersearch_chinese", text=ZH)["tokens"]
        assert [t["token"] for t in found] == ["大", "语言", "模型", "的", "推理", "加速"]
        # An index created before the restart comes back with the plugin's analyzers.
        es.cluster.health(index=index, wait_for_status="yellow", timeout="60s")
        after = [t["token"] for t in es.indices.analyze(index=index, analyzer="ps_zh", text=ZH)["tokens"]]
        assert after == before == [t["token"] for t in found]
    finally:
        node.admin_client(request_timeout=60).indices.delete(index=index, ignore_unavailable=True)
