"""Fixtures shared by several integration modules; a module-scoped one is set up once per module that uses it.

The local node (test_node.py, test_node_java.py); the webapp's alias and app (test_webapp_pages.py,
test_webapp_api_errors_security.py); the search service's alias on both analysis profiles
(test_search_service_queries.py, test_search_service_browsing.py); the indexer CLI's scratch .local
(test_indexer_*.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from indexer_support import CLI_LOCAL_DIR
from search_service_support import CRAFTED
from support import SAMPLE, loaded_alias, write_jsonl
from webapp_support import EXTRA

from provisioning.localnode.node import LocalNode
from webapp import create_app
from webapp.services.search import SearchService


@pytest.fixture(scope="module")
def local_node(cluster) -> LocalNode:
    node = LocalNode()
    if cluster.kind != "local node":
        node.start()  # idempotent; the session runs on another cluster, so make sure ours is up too
    assert node.pid(), "the local node is not running"
    return node


# --- the webapp's alias (test_webapp_*.py) ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def web_alias(cluster, admin: Elasticsearch, tmp_path_factory) -> Iterator[str]:
    """Sample + EXTRA behind a fresh alias, built by the real indexer (full reindex)."""
    extra = write_jsonl(tmp_path_factory.mktemp("web") / "extra.jsonl", EXTRA)
    with loaded_alias(cluster, "paperstest_web", [SAMPLE, extra]) as (name, _):
        yield name


@pytest.fixture(scope="module")
def app(cluster, web_alias):
    return create_app(cluster.settings(web_alias), rate_limit="off")


@pytest.fixture
def client(app):
    return app.test_client()


# --- the search service's alias (test_search_service_*.py) --------------------------------------------------------


# Every test runs on both analysis profiles: "auto" (our plugin when the node has it) and the core-only
# fallback, which has no stemming and no folding, so the service must not depend on either.
@pytest.fixture(scope="module", params=["auto", "core"])
def papers_alias(request, cluster, admin: Elasticsearch, tmp_path_factory) -> Iterator[str]:
    """Sample + crafted papers through the real indexer (like conftest's load_papers, but once per module)."""
    path = write_jsonl(tmp_path_factory.mktemp("papers") / "crafted.jsonl", CRAFTED)
    with loaded_alias(cluster, "paperstest_search", [SAMPLE, path],
                      PAPERSEARCH_ANALYSIS_PROFILE=request.param) as (name, _):
        yield name


@pytest.fixture(scope="module")
def service(cluster, papers_alias: str) -> SearchService:
    return SearchService(cluster.client("web"), papers_alias)


# --- the indexer CLI (test_indexer_*.py) --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_local_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """indexer_support.CLI_LOCAL_DIR for this module: a scratch folder, not the project's .local."""
    CLI_LOCAL_DIR["path"] = tmp_path_factory.mktemp("cli-local")
