"""Static checks of the Docker Compose files (no Docker engine needed).

docker-compose.yml and docker-compose.cluster.yml parse, images are pinned and agree with config/node.toml and
pyproject.toml, long-running services have healthchecks, each service gets what it needs and nothing more,
secrets reach containers as files only, and the cluster override forms three nodes. `docker compose config`
validates the files for real in tests/deploy/test_compose_config.py (it needs Compose v2, which scripts/compose-v2.sh
may build: no unit test builds anything).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from deploy_files import (
    CLUSTER,
    COMPOSE,
    ES_DOCKERFILE,
    ROOT,
    SAMPLE,
    assert_pinned,
    environment,
    load_yaml,
    node_version,
    services,
)

REALM_MOUNT = "/usr/share/elasticsearch/config/papersearch-realm"

KEY_FILE = "/app/keys/secret-key"  # the web-key volume's signing secret
REDIS_KEY_FILE = "/app/redis-key/password"  # the redis-key volume's password (setup writes both)
ONE_SHOT_SERVICES = {"setup", "indexer", "certs"}  # restart: "no"; everything else must be healthchecked


# --- helpers -----------------------------------------------------------------------------------------


def deep_merge(base: Any, override: Any) -> Any:
    """Roughly compose's merge of an override file: mappings merge by key, the rest is replaced,
    volume lists merge by container path."""
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            if key == "volumes" and isinstance(value, list) and isinstance(out.get(key), list):
                by_target = {v.split(":")[1]: v for v in out[key]}
                by_target.update({v.split(":")[1]: v for v in value})
                out[key] = list(by_target.values())
            else:
                out[key] = deep_merge(out[key], value) if key in out else value
        return out
    return override


def merged_services() -> dict[str, dict]:
    return deep_merge(services(COMPOSE), services(CLUSTER))


def default_of(value: str) -> str:
    """`${NAME:-default}` → default; a plain value unchanged."""
    match = re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}", value)
    return match.group(1) if match else value


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


# --- compose files ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [COMPOSE, CLUSTER], ids=lambda p: p.name)
def test_compose_file_parses(path: Path) -> None:
    data = load_yaml(path)
    assert "version" not in data, "the `version` key is obsolete in the Compose Specification"
    assert isinstance(data.get("services"), dict) and data["services"]
    # an override file may mount the base file's volumes
    declared = set(data.get("volumes") or {}) | set(load_yaml(COMPOSE).get("volumes") or {})
    for name, service in data["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith((".", "/", "~")):
                assert source in declared, f"{path.name}: {name} mounts undeclared volume {source}"


@pytest.mark.parametrize("path", [COMPOSE, CLUSTER], ids=lambda p: p.name)
def test_compose_images_are_pinned(path: Path) -> None:
    for name, service in services(path).items():
        image = service.get("image")
        if image is None:
            assert path == CLUSTER, f"{name}: every service names its (pinned) image"
            continue  # an override of a base service keeps the base's image
        assert_pinned(image, f"{path.name} service {name}")
        if image.startswith("papersearch/app:"):
            assert image == f"papersearch/app:{pyproject_version()}", "tag the app image with pyproject's version"
            assert service["build"]["dockerfile"] == "docker/app.Dockerfile"
        if image.startswith("papersearch/elasticsearch:"):
            assert service["build"]["dockerfile"] == "docker/elasticsearch.Dockerfile"


def test_elasticsearch_version_matches_node_toml() -> None:
    version = node_version()
    found = 0
    for path in (COMPOSE, CLUSTER, ES_DOCKERFILE):
        for match in re.finditer(r"elasticsearch(?:/elasticsearch)?:(\d+\.\d+\.\d+)", path.read_text()):
            assert match.group(1) == version, f"{path.name} uses Elasticsearch {match.group(1)}, node.toml {version}"
            found += 1
    assert found >= 3
    assert services(COMPOSE)["es"]["image"] == f"papersearch/elasticsearch:{version}"


@pytest.mark.parametrize("which", ["single", "cluster"])
def test_long_running_services_have_healthchecks(which: str) -> None:
    all_services = services(COMPOSE) if which == "single" else merged_services()
    one_shots = set()
    for name, service in all_services.items():
        if str(service.get("restart", "")) == "no":
            one_shots.add(name)
            continue
        check = service.get("healthcheck")
        assert check and not check.get("disable"), f"{name} runs for good but has no healthcheck"
        assert check.get("test") and check["test"][0] in ("CMD", "CMD-SHELL"), f"{name}: healthcheck test"
        assert service.get("restart") in ("unless-stopped", "always"), f"{name}: set a restart policy"
    assert one_shots <= ONE_SHOT_SERVICES, f"unexpected one-shot services: {one_shots - ONE_SHOT_SERVICES}"
    assert {"setup", "indexer"} <= one_shots


def test_elasticsearch_service() -> None:
    es = services(COMPOSE)["es"]
    env = environment(es)
    assert env["xpack.security.enabled"] == "true"
    assert env["xpack.security.http.ssl.enabled"] == "false"
    assert env["discovery.type"] == "single-node"
    assert env["ELASTIC_PASSWORD_FILE"] == "/run/secrets/ELASTIC_PASSWORD" and es["secrets"] == ["ELASTIC_PASSWORD"], \
        "the superuser's password comes from .env as a secret file, not as an environment variable"
    assert "-Xms${ES_HEAP:-" in env["ES_JAVA_OPTS"] and "-Xmx${ES_HEAP:-" in env["ES_JAVA_OPTS"]
    assert env["path.repo"] == "/usr/share/elasticsearch/snapshots"
    volumes = dict(v.split(":")[:2][::-1] for v in es["volumes"])
    assert volumes["/usr/share/elasticsearch/data"] in load_yaml(COMPOSE)["volumes"], "data on a named volume"
    assert volumes[env["path.repo"]] in load_yaml(COMPOSE)["volumes"]
    for port in es.get("ports", []):
        assert str(port).startswith("127.0.0.1:"), "Elasticsearch is published on loopback only"
    assert volumes[REALM_MOUNT] == "es-realm" and f"es-realm:{REALM_MOUNT}:ro" in es["volumes"], \
        "Elasticsearch reads the file realm that setup writes"
    test = " ".join(es["healthcheck"]["test"])
    assert "curl" in test and "_cluster/health" in test and "$$(cat /run/secrets/ELASTIC_PASSWORD)" in test, \
        "healthcheck: curl with the secret file's password ($$: expanded in the container)"
    # On curl's standard input (-K -), never its command line, which every process can read (issue 45.11).
    assert "curl -fsS -K - " in test and " -u " not in test, test


def test_setup_service() -> None:
    setup = services(COMPOSE)["setup"]
    assert setup["command"][:3] == ["python", "-m", "provisioning.stack_setup"]
    command = setup["command"]
    assert command[command.index("--realm-dir") + 1] == "/realm" and "es-realm:/realm" in setup["volumes"]
    # The replicas' one signing secret: generated here once, into the volume they read.
    assert command[command.index("--secret-key-file") + 1] == KEY_FILE and "web-key:/app/keys" in setup["volumes"]
    assert setup["depends_on"]["es"]["condition"] == "service_healthy"
    env = environment(setup)
    assert env["ES_URL"] == "http://es:9200"
    assert sorted(setup["secrets"]) == ["ES_PASSWORD", "ES_WEB_PASSWORD"], "no superuser: the file realm needs none"


def test_indexer_service_loads_the_sample_once() -> None:
    indexer = services(COMPOSE)["indexer"]
    assert indexer["command"][:3] == ["python", "-m", "provisioning.stack_wait"], "waits for es (compose restart)"
    assert indexer["command"][indexer["command"].index("--") + 1:] == [
        "papersearch-admin", "reindex", "--if-missing", "--no-progress", SAMPLE]
    assert indexer["secrets"] == ["ES_PASSWORD"]
    assert (ROOT / SAMPLE).is_file()
    assert indexer["depends_on"]["setup"]["condition"] == "service_completed_successfully"
    env = environment(indexer)
    assert env["ES_USERNAME"] == "papersearch_indexer"
    assert not any(k.startswith("ES_WEB_") for k in env), "the indexer does not get the webapp's identity"


def test_webapp_service() -> None:
    webapp = services(COMPOSE)["webapp"]
    assert webapp["command"] == ["gunicorn", "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"]
    env = environment(webapp)
    assert env["PAPERSEARCH_BIND"] == "0.0.0.0:8000"
    assert env["ES_WEB_USERNAME"] == "papersearch_web" and webapp["secrets"] == ["ES_WEB_PASSWORD"]
    assert not {"ES_PASSWORD", "ES_USERNAME", "ES_API_KEY", "ELASTIC_PASSWORD"} & set(env), \
        "the webapp gets only its read-only identity"
    assert "ports" not in webapp, "the proxy is the way in, so --scale needs no port per replica"
    assert webapp["deploy"]["replicas"] == "${WEB_REPLICAS:-2}"
    assert env["PAPERSEARCH_SECRET_KEY_FILE"] == KEY_FILE and "web-key:/app/keys:ro" in webapp["volumes"]
    assert env["PAPERSEARCH_RATE_LIMIT_STORAGE"] == "redis://redis:6379" and env["PAPERSEARCH_TRUSTED_PROXIES"] == "1"
    assert webapp["networks"] == ["default", "limits"]
    assert webapp["depends_on"]["redis"]["condition"] == "service_healthy"
    test = webapp["healthcheck"]["test"]
    assert test[0] == "CMD" and test[1] == "python3" and "urllib" in test[-1] and "/healthz" in test[-1], \
        "the slim image has no curl: probe /healthz with Python"
    assert webapp["depends_on"]["setup"]["condition"] == "service_completed_successfully"
    assert webapp["depends_on"]["es"]["condition"] == "service_healthy"


def test_proxy_and_redis_services() -> None:
    compose = load_yaml(COMPOSE)
    proxy, redis = compose["services"]["proxy"], compose["services"]["redis"]
    assert proxy["ports"] == ["${WEB_BIND:-127.0.0.1}:${WEB_PORT:-8000}:8080"]
    assert "/proxy-healthz" in proxy["healthcheck"]["test"][-1]
    assert proxy["depends_on"]["webapp"]["condition"] == "service_healthy"
    assert "ports" not in redis and redis["networks"] == ["limits"], "Redis: the internal network only"
    assert compose["networks"]["limits"] == {"internal": True}
    # Redis wants the password setup writes; redis-cli gets it from its environment, not a command line.
    assert "redis-key:/run/redis-key:ro" in redis["volumes"] and "REDISCLI_AUTH=" in redis["healthcheck"]["test"][-1]
    assert redis["depends_on"]["setup"]["condition"] == "service_completed_successfully"
    assert "--protected-mode yes" in (ROOT / "docker" / "redis.Dockerfile").read_text()
    webapp = compose["services"]["webapp"]
    assert webapp["environment"]["PAPERSEARCH_RATE_LIMIT_STORAGE_PASSWORD_FILE"] == "/app/redis-key/password"
    config = (ROOT / "docker" / "haproxy.cfg").read_text()
    assert "server-template web 1-16 webapp:8000" in config and "option forwardfor" not in config
    # A client must not choose the address we see: X-Forwarded-For is set, from the connection's address or,
    # from a trusted outer proxy only, that proxy's last entry (issue 45.4).
    assert "http-request set-header X-Forwarded-For %[var(txn.client)]" in config
    assert "acl outer_proxy src" in config and proxy["environment"]["PAPERSEARCH_OUTER_PROXIES"]
    # Retries only for what never reached a replica (issue 45.5); whole requests buffered (issue 45.1).
    assert "retry-on conn-failure empty-response" in config and "all-retryable-errors" not in config
    assert "option http-buffer-request" in config


def test_the_proxy_caps_connections_per_client_address() -> None:
    """Issue 53.9: HAProxy had only a global maxconn, so one address with 2,100 idle connections could take it.
    Now a stick-table counts each address's open connections and connection rate, and refuses past both limits,
    before a request is read; a trusted outer proxy (many visitors behind one address) is let through uncounted."""
    config = (ROOT / "docker" / "haproxy.cfg").read_text()
    frontend = config.split("\nfrontend web\n", 1)[1].split("\nbackend ", 1)[0]
    lines = [line.strip() for line in frontend.splitlines() if line.strip() and not line.strip().startswith("#")]
    table = next(line for line in lines if line.startswith("stick-table "))
    assert "type ipv6" in table and "conn_cur" in table and "conn_rate(" in table  # IPv4 clients map into ipv6
    track = lines.index("tcp-request connection track-sc0 src")
    reject = next(i for i, line in enumerate(lines) if line.startswith("tcp-request connection reject if "))
    limits = re.findall(r"\{ (sc0_conn_cur|sc0_conn_rate) gt (\d+) \}", lines[reject])
    assert track < reject and {name for name, _ in limits} == {"sc0_conn_cur", "sc0_conn_rate"}
    assert 50 <= int(dict(limits)["sc0_conn_cur"]) < 4096  # below the global maxconn, above a NAT'd campus
    # Outer proxies: accepted (which ends the connection rules) before they could be tracked; the acl they use is
    # declared before its first use.
    accept = lines.index("tcp-request connection accept if outer_proxy")
    assert lines.index('acl outer_proxy src "${PAPERSEARCH_OUTER_PROXIES[*]}"') < accept < track
    # Connection rules come before any http-request rule (HAProxy runs them first whatever the order; written so).
    assert reject < min(i for i, line in enumerate(lines) if line.startswith("http-request "))


def test_secrets_reach_containers_as_files_only() -> None:
    declared = load_yaml(COMPOSE)["secrets"]
    assert declared == {name: {"environment": name} for name in ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD")}
    for path in (COMPOSE, CLUSTER):
        for name, service in load_yaml(path)["services"].items():
            for key, value in environment(service).items():
                if re.search(r"PASSWORD|API_KEY|SECRET|TOKEN", key):
                    files = (KEY_FILE, REDIS_KEY_FILE)
                    assert key.endswith("_FILE") and (value.startswith("/run/secrets/") or value in files), \
                        f"{path.name} {name}: {key} would show in docker inspect; use a secret file"
            assert set(service.get("secrets", [])) <= set(declared), f"{path.name} {name}: undeclared secret"
    # Interpolated only in the top-level x-required-secrets check, which no container sees.
    for path in (COMPOSE, CLUSTER):
        data = {k: v for k, v in load_yaml(path).items() if k != "x-required-secrets"}
        assert not re.search(r"\$\{(ELASTIC_PASSWORD|ES_PASSWORD|ES_WEB_PASSWORD)", json.dumps(data)), path.name


def test_cluster_override() -> None:
    merged = merged_services()
    nodes = {name: s for name, s in merged.items()
             if str(s.get("image", "")).startswith("papersearch/elasticsearch:") and name != "certs"}
    assert set(nodes) == {"es", "es02", "es03"}
    names = {environment(s)["node.name"] for s in nodes.values()}
    assert names == {"es01", "es02", "es03"}
    keystore = None
    for name, node in nodes.items():
        env = environment(node)
        assert env["discovery.type"] == "multi-node"
        assert "cluster.initial_master_nodes" not in env, "only for the first formation (the command adds it)"
        script = node["command"][-1]
        assert node["command"][:2] == ["bash", "-c"]
        initial = re.search(r"-Ecluster\.initial_master_nodes=(\S+)", script)
        assert initial and set(initial.group(1).split(",")) == names
        assert 'if [ -e "$$mark" ]; then exec /usr/local/bin/docker-entrypoint.sh eswrapper; fi' in script, \
            "a node whose data volume carries the formed-cluster mark starts without initial_master_nodes"
        assert "touch \"$$mark\"" in script and "_cluster/health" in script
        assert f"es-realm:{REALM_MOUNT}:ro" in node["volumes"] and "ELASTIC_PASSWORD" in node.get("secrets", []), name
        assert set(env["discovery.seed_hosts"].split(",")) == set(nodes)
        assert env["xpack.security.enabled"] == "true"
        assert env["xpack.security.transport.ssl.enabled"] == "true", "multi-node with security needs transport TLS"
        keystore = env["xpack.security.transport.ssl.keystore.path"]
        assert env["xpack.security.transport.ssl.truststore.path"] == keystore
        mounts = dict(v.split(":", 1)[::-1] for v in node["volumes"])
        assert mounts.get("/usr/share/elasticsearch/config/certs:ro") == "es-certs", f"{name}: certs read-only"
        assert mounts.get("/usr/share/elasticsearch/snapshots:rw", mounts.get("/usr/share/elasticsearch/snapshots")) \
            == "es-snapshots", f"{name}: every node must see the same snapshot repository"
        assert node["depends_on"]["certs"]["condition"] == "service_completed_successfully"
    data = [next(v.split(":")[0] for v in n["volumes"] if v.split(":")[1] == "/usr/share/elasticsearch/data")
            for n in nodes.values()]
    assert len(set(data)) == 3 and "es-data" not in data, "each node has its own data volume, not the single node's"
    certs = merged["certs"]
    script = " ".join(certs["command"])
    assert "elasticsearch-certutil ca" in script and "elasticsearch-certutil cert" in script
    assert f"/usr/share/elasticsearch/config/{keystore}" in script, "certs must create the keystore the nodes use"
    env = environment(merged["indexer"])
    shards, replicas = int(default_of(env["PAPERSEARCH_SHARDS"])), int(default_of(env["PAPERSEARCH_REPLICAS"]))
    assert shards >= 1 and 1 <= replicas <= len(nodes) - 1, "replicas for availability, allocatable on 3 nodes"
