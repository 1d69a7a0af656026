"""Foundation: the node answers with authentication, the roles hold, and the local node is provisioned as promised.

Everything runs against the real node of the session (see tests/conftest.py). The local-node checks are about the
project's own node: when the session's cluster is that node they inspect it as it runs; with another cluster they
bring the local node up first (what `papersearch-node start` does anyway).
"""

from __future__ import annotations

import ipaddress
import json
import os
import pwd
import socket
import stat
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import requests
from elasticsearch import AuthenticationException, AuthorizationException, Elasticsearch
from pydantic import ValidationError

from papersearch.paths import PROJECT_ROOT, credentials_file, local_dir
from papersearch.role_index_names import lock_index
from papersearch.settings import Settings
from provisioning.localnode import process as node_process
from provisioning.localnode.config import NodeConfig
from provisioning.localnode.node import LocalNode

BIN = Path(sys.executable).parent
NODE_CLI = str(BIN / "papersearch-node")


# --- helpers and fixtures -----------------------------------------------------------------------------------------


def run_node_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([NODE_CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=PROJECT_ROOT)


@pytest.fixture
def index_name(admin: Elasticsearch) -> Iterator[str]:
    """A throw-away index name under papers* (the roles' pattern), deleted afterwards."""
    name = f"paperstest_node_{uuid.uuid4().hex[:10]}"
    yield name
    admin.indices.delete(index=f"{name},{lock_index(name)}", ignore_unavailable=True)


def _status(err: Exception) -> int:
    return err.meta.status  # type: ignore[attr-defined]


# --- authentication and a full round trip ------------------------------------------------------------------------


def test_create_write_search_delete_with_auth(cluster, index_name: str) -> None:
    es = cluster.client("indexer")
    es.indices.create(index=index_name, mappings={"properties": {"title": {"type": "text"}, "n": {"type": "integer"}}})
    titles = [f"round trip {uuid.uuid4().hex[:6]} number {i}" for i in range(3)]
    for i, title in enumerate(titles):
        es.index(index=index_name, id=str(i), document={"title": title, "n": i})
    es.indices.refresh(index=index_name)

    found = es.search(index=index_name, query={"match": {"title": titles[1].split()[2]}})
    assert [h["_id"] for h in found["hits"]["hits"]] == ["1"]
    assert found["hits"]["hits"][0]["_source"] == {"title": titles[1], "n": 1}
    assert es.count(index=index_name)["count"] == len(titles)

    es.delete(index=index_name, id="1", refresh=True)
    assert es.count(index=index_name)["count"] == len(titles) - 1
    es.indices.delete(index=index_name)
    assert not es.indices.exists(index=index_name)


def test_request_without_credentials_is_refused(cluster) -> None:
    for path in ("/_cluster/health", "/_search", "/papers*/_search"):
        resp = requests.get(cluster.url + path, timeout=10)
        assert resp.status_code == 401, (path, resp.status_code, resp.text[:200])
        assert "Basic" in resp.headers.get("WWW-Authenticate", "")
    anonymous = Elasticsearch(cluster.url, request_timeout=10)
    with pytest.raises(AuthenticationException) as err:
        anonymous.cluster.health()
    assert _status(err.value) == 401


def test_wrong_password_is_refused(cluster) -> None:
    for user, password in (cluster.admin, cluster.indexer, cluster.web):
        wrong = Elasticsearch(cluster.url, basic_auth=(user, password + "x"), request_timeout=10)
        with pytest.raises(AuthenticationException) as err:
            wrong.cluster.health()
        assert _status(err.value) == 401
        resp = requests.get(cluster.url + "/_cluster/health", auth=(user, "not-" + password), timeout=10)
        assert resp.status_code == 401


def test_web_user_reads_but_cannot_write(cluster, index_name: str) -> None:
    indexer, web = cluster.client("indexer"), cluster.client("web")
    indexer.indices.create(index=index_name)
    doc_id = uuid.uuid4().hex
    indexer.index(index=index_name, id=doc_id, document={"title": "readable by the webapp"}, refresh=True)

    hits = web.search(index="papers*", query={"ids": {"values": [doc_id]}}, size=50)["hits"]["hits"]
    assert [(h["_index"], h["_id"]) for h in hits] == [(index_name, doc_id)]
    assert web.get(index=index_name, id=doc_id)["_source"] == {"title": "readable by the webapp"}

    other = f"paperstest_node_{uuid.uuid4().hex[:10]}"
    lock = lock_index(index_name)
    indexer.index(index=lock, id="build", document={"owner": "host:1:2"}, refresh=True)
    listed = {i["name"] for i in web.indices.resolve_index(name="papers*")["indices"]}
    assert index_name in listed and lock not in listed
    refused = [
        lambda: web.index(index=index_name, id="b", document={"title": "no"}),
        lambda: web.update(index=index_name, id=doc_id, doc={"title": "no"}),
        lambda: web.delete(index=index_name, id=doc_id),
        lambda: web.indices.delete(index=index_name),
        lambda: web.indices.create(index=other),
        lambda: web.indices.put_alias(index=index_name, name=other),
        lambda: web.search(index=lock, size=1),  # a build lock's owner and times are the indexer's (issue 45.6)
    ]
    for attempt in refused:
        with pytest.raises(AuthorizationException) as err:
            attempt()
        assert _status(err.value) == 403
    # Nothing changed behind the refusals.
    assert indexer.count(index=index_name)["count"] == 1
    assert indexer.get(index=index_name, id=doc_id)["_source"] == {"title": "readable by the webapp"}
    assert not indexer.indices.exists(index=other)


def test_indexer_user_writes_deletes_and_creates(cluster, index_name: str) -> None:
    indexer = cluster.client("indexer")
    indexer.indices.create(index=index_name)
    indexer.index(index=index_name, id="a", document={"title": "one"}, refresh=True)
    indexer.update(index=index_name, id="a", doc={"title": "two"}, refresh=True)
    assert indexer.get(index=index_name, id="a")["_source"] == {"title": "two"}
    alias = index_name + "_alias"
    indexer.indices.put_alias(index=index_name, name=alias)
    assert list(indexer.indices.get_alias(name=alias)) == [index_name]
    indexer.delete(index=index_name, id="a", refresh=True)
    assert indexer.count(index=index_name)["count"] == 0
    indexer.indices.delete(index=index_name)
    assert not indexer.indices.exists(index=index_name)


def test_roles_are_limited_to_papers_indices(cluster) -> None:
    outside = f"notpapers_{uuid.uuid4().hex[:10]}"
    for who in ("indexer", "web"):
        with pytest.raises(AuthorizationException) as err:
            cluster.client(who).indices.create(index=outside)
        assert _status(err.value) == 403
    assert not cluster.client("admin").indices.exists(index=outside)


# --- the local node -----------------------------------------------------------------------------------------------


def test_start_again_reuses_the_running_node(local_node: LocalNode) -> None:
    before = run_node_cli("status", "--json")
    assert before.returncode == 0, before.stderr
    pid_before = json.loads(before.stdout)["pid"]
    downloads = local_dir() / "downloads"
    cache_before = sorted((p.name, p.stat().st_mtime_ns) for p in downloads.iterdir()) if downloads.exists() else []

    started = run_node_cli("start")
    output = started.stdout + started.stderr
    assert started.returncode == 0, output
    assert "already running" in output
    assert f"pid {pid_before}" in output
    assert "downloading" not in output.lower()
    assert "building" not in output.lower()  # the plugin is not rebuilt either

    after = json.loads(run_node_cli("status", "--json").stdout)
    assert after["running"] is True
    assert after["pid"] == pid_before
    cache_after = sorted((p.name, p.stat().st_mtime_ns) for p in downloads.iterdir()) if downloads.exists() else []
    assert cache_after == cache_before


def test_status_prints_the_url(local_node: LocalNode) -> None:
    result = run_node_cli("status")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("running")
    assert local_node.url() in result.stdout
    assert f"pid {local_node.pid()}" in result.stdout
    assert local_node.cfg.version in result.stdout
    as_json = json.loads(run_node_cli("status", "--json").stdout)
    assert as_json["url"] == local_node.url()
    assert as_json["version"] == local_node.cfg.version


def test_credentials_file_is_private_and_untracked(local_node: LocalNode) -> None:
    path = credentials_file()
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    tracked = subprocess.run(["git", "ls-files", "--", str(path)], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0, tracked.stderr
    assert tracked.stdout.strip() == ""
    ignored = subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=PROJECT_ROOT)
    assert ignored.returncode == 0, f"{path} is not ignored by git"
    # And the passwords in it are the ones the node accepts.
    creds = json.loads(path.read_text())
    for user in ("elastic", "papersearch_indexer", "papersearch_web"):
        who = Elasticsearch(local_node.url(), basic_auth=(user, creds[user]), request_timeout=10)
        assert who.security.authenticate()["username"] == user


def test_node_runs_unprivileged_on_loopback_with_capped_heap(local_node: LocalNode) -> None:
    pid = local_node.pid()
    assert pid
    uids = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("Uid:"))
    real, effective = (int(x) for x in uids.split()[1:3])
    # As root the node runs as the configured unprivileged user; otherwise as whoever started it.
    expected = pwd.getpwnam(local_node.cfg.user).pw_uid if os.geteuid() == 0 else os.geteuid()
    assert real == effective == expected
    assert effective != 0

    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    heap = local_node.cfg.heap
    assert f"-Xmx{heap}".encode() in cmdline
    assert f"-Xms{heap}".encode() in cmdline

    port = int(local_node.url().rsplit(":", 1)[1])
    try:
        listening = [(c.laddr.ip, c.laddr.port) for c in psutil.Process(pid).net_connections(kind="inet")
                     if c.status == psutil.CONN_LISTEN]
    except psutil.AccessDenied:
        # Root in a container may not read another user's sockets: the machine's listening sockets on the
        # node's HTTP port instead (a fresh Debian container, scripts/fresh-machine-check.sh).
        listening = [a for a in _listening_sockets() if a[1] == port]
    assert listening
    for address, _ in listening:
        ip = ipaddress.ip_address(address)
        mapped = getattr(ip, "ipv4_mapped", None)
        assert ip.is_loopback or (mapped is not None and mapped.is_loopback), address
    assert port in {p for _, p in listening}


def _listening_sockets() -> list[tuple[str, int]]:
    """(address, port) of every listening TCP socket, from /proc/net/tcp and tcp6 (state 0A)."""
    out = []
    for name, size in (("tcp", 4), ("tcp6", 16)):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state != "0A":
                continue
            hex_ip, hex_port = local.split(":")
            raw = bytes.fromhex(hex_ip)
            # The kernel writes each 32-bit word in host (little-endian) order.
            ip = b"".join(raw[i:i + 4][::-1] for i in range(0, size, 4))
            out.append((str(ipaddress.ip_address(ip)), int(hex_port, 16)))
    return out


def test_node_runs_one_search_at_a_time_per_core(local_node: LocalNode) -> None:
    """config/node.toml search_threads 0: the search pool has the node's share of the cores (DECISIONS.md
    D-104)."""
    creds = json.loads(credentials_file().read_text())
    admin = Elasticsearch(local_node.url(), basic_auth=("elastic", creds["elastic"]), request_timeout=10)
    pools = admin.nodes.info(metric="thread_pool")["nodes"]
    sizes = {n["name"]: n["thread_pool"]["search"]["size"] for n in pools.values()}
    assert set(sizes.values()) == {local_node.cfg.search_threads_for(len(sizes))}, sizes


def test_node_outlives_its_starter(local_node: LocalNode) -> None:
    """The daemon runs in its own session, so signalling the starter's process group (a finished shell job, an
    interrupted test run) does not take the shared node down with it."""
    pid = local_node.pid()
    assert pid
    assert os.getsid(pid) != os.getsid(0)
    assert os.getpgid(pid) != os.getpgid(0)


def test_running_node_is_found_without_its_pid_file(local_node: LocalNode, tmp_path: Path) -> None:
    """A start that loses the race for the data folder deletes the shared pid file on its way out; the running
    node must still be recognised (else the next start launches a doomed second node)."""
    pid = local_node.pid()
    blind = LocalNode().processes()[0]
    blind.pidfile = tmp_path / "missing.pid"
    assert blind.pid() == pid
    stale = tmp_path / "stale.pid"
    stale.write_text(str(os.getpid()))  # a live process that is not Elasticsearch
    blind.pidfile = stale
    assert blind.pid() == pid


# --- port selection (no restart of the shared node) ---------------------------------------------------------------


@pytest.fixture
def private_local_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point .local at an empty folder so LocalNode reads no recorded port (and writes nothing shared)."""
    monkeypatch.setenv("PAPERSEARCH_LOCAL_DIR", str(tmp_path))
    return tmp_path


def _listening_socket() -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def test_port_free_sees_a_taken_port() -> None:
    s = _listening_socket()
    port = s.getsockname()[1]
    try:
        assert node_process.port_free("127.0.0.1", port) is False
    finally:
        s.close()
    assert node_process.port_free("127.0.0.1", port) is True


def test_choose_port_keeps_a_free_configured_port(private_local_dir: Path) -> None:
    s = _listening_socket()
    port = s.getsockname()[1]
    s.close()  # now free
    assert LocalNode(NodeConfig(port=port))._choose_port() == port


def test_choose_port_avoids_a_taken_port(private_local_dir: Path) -> None:
    s = _listening_socket()
    port = s.getsockname()[1]
    try:
        chosen = LocalNode(NodeConfig(port=port))._choose_port()
        assert chosen != port
        assert node_process.port_free("127.0.0.1", chosen)
    finally:
        s.close()


def test_choose_port_falls_back_from_a_taken_recorded_port(private_local_dir: Path) -> None:
    recorded = _listening_socket()
    configured = _listening_socket()
    configured_port = configured.getsockname()[1]
    configured.close()  # the configured port is free, the recorded one is taken
    try:
        (private_local_dir / "node-state.json").write_text(json.dumps({"port": recorded.getsockname()[1]}))
        assert LocalNode(NodeConfig(port=configured_port))._choose_port() == configured_port
    finally:
        recorded.close()


def test_choose_port_reuses_a_free_recorded_port(private_local_dir: Path) -> None:
    recorded = _listening_socket()
    recorded_port = recorded.getsockname()[1]
    recorded.close()
    (private_local_dir / "node-state.json").write_text(json.dumps({"port": recorded_port}))
    configured = _listening_socket()
    try:  # even though the configured one is taken: the recorded port wins while it is free
        assert LocalNode(NodeConfig(port=configured.getsockname()[1]))._choose_port() == recorded_port
    finally:
        configured.close()


def test_node_config_refuses_non_loopback_host() -> None:
    with pytest.raises(ValidationError, match="loopback"):
        NodeConfig(host="0.0.0.0")
    with pytest.raises(ValidationError, match="heap"):
        NodeConfig(heap="lots")


# --- settings -----------------------------------------------------------------------------------------------------


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{49152 + uuid.uuid4().int % 10000}"
    alias = f"paperstest_{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("ES_URL", url)
    monkeypatch.setenv("PAPERSEARCH_ALIAS", alias)
    monkeypatch.setenv("ES_USERNAME", "someone")
    monkeypatch.setenv("ES_PASSWORD", "secret-" + alias)
    settings = Settings()
    assert settings.url() == url
    assert settings.alias == alias
    assert settings.is_local() is False
    assert settings.indexer_auth() == {"basic_auth": ("someone", "secret-" + alias)}

    monkeypatch.setenv("PAPERSEARCH_ALIAS", "Not A Valid Alias!")
    with pytest.raises(ValidationError):
        Settings()


def test_settings_default_to_the_local_node(monkeypatch: pytest.MonkeyPatch, local_node: LocalNode,
                                           tmp_path: Path) -> None:
    for var in ("ES_URL", "PAPERSEARCH_ALIAS", "ES_USERNAME", "ES_PASSWORD", "ES_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env file in the working directory
    settings = Settings()
    assert settings.is_local()
    assert settings.url() == local_node.url()
    assert settings.alias == "papers"
    creds = json.loads(credentials_file().read_text())
    assert settings.indexer_auth() == {"basic_auth": ("papersearch_indexer", creds["papersearch_indexer"])}
    assert settings.web_auth() == {"basic_auth": ("papersearch_web", creds["papersearch_web"])}


# --- Java discovery -----------------------------------------------------------------------------------------------
