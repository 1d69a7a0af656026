"""Static checks of the Docker deployment (no Docker engine needed) and of `papersearch.stack_setup`.

Covers docker-compose.yml, docker-compose.cluster.yml, docker/*.Dockerfile, .env.example,
.dockerignore: they parse, images are pinned, versions agree with config/node.toml and plugin/pom.xml,
long-running services have healthchecks, every variable handed to the app is one the app reads, and
no secret is committed. `docker compose config` (Compose v2, scripts/compose-v2.sh) validates the files
for real. The setup module is run against an unreachable address and against a fake client (the local
node has no native realm, so it cannot be run against that).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import compose_binary, free_port

from papersearch import stack_setup
from papersearch.localnode.config import NodeConfig as LocalNodeConfig
from papersearch.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
CLUSTER = ROOT / "docker-compose.cluster.yml"
ES_DOCKERFILE = ROOT / "docker" / "elasticsearch.Dockerfile"
APP_DOCKERFILE = ROOT / "docker" / "app.Dockerfile"
ENV_EXAMPLE = ROOT / ".env.example"
DOCKERIGNORE = ROOT / ".dockerignore"
SAMPLE = "indexer/sample/papers.jsonl"
REALM_MOUNT = "/usr/share/elasticsearch/config/papersearch-realm"

APP_SERVICES = ("setup", "indexer", "webapp")  # services running the app image
ONE_SHOT_SERVICES = {"setup", "indexer", "certs"}  # restart: "no"; everything else must be healthchecked

# Variables the app services may receive that are not in the Settings model, each with the file that
# reads it (checked below, so this list cannot rot). gunicorn's variables are taken from
# config/gunicorn.conf.py itself.
EXTRA_APP_VARIABLES = {
    "ELASTIC_PASSWORD": ("papersearch/stack_setup.py", "the superuser's password, setup only"),
    "ELASTIC_USERNAME": ("papersearch/stack_setup.py", "the superuser's name, setup only"),
    "PAPERSEARCH_CONFIG_DIR": ("papersearch/paths.py", "config/ outside the installed package"),
    "PAPERSEARCH_LOCAL_DIR": ("papersearch/paths.py", "the working area (rejects files)"),
}
# Variables only compose itself interpolates (ports, heap); never passed to the app as such.
COMPOSE_ONLY_VARIABLES = {"ES_HEAP", "ES_PORT", "WEB_PORT", "WEB_BIND"}

DOCKERFILE_INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK", "LABEL",
    "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}
FULL_VERSION_TAG = re.compile(r"(^|[^0-9])\d+\.\d+\.\d+([^0-9]|$)")
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


# --- helpers -----------------------------------------------------------------------------------------


def load_yaml(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: top level is not a mapping"
    return data


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


def services(path: Path) -> dict[str, dict]:
    return load_yaml(path)["services"]


def merged_services() -> dict[str, dict]:
    return deep_merge(services(COMPOSE), services(CLUSTER))


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def default_of(value: str) -> str:
    """`${NAME:-default}` → default; a plain value unchanged."""
    match = re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}", value)
    return match.group(1) if match else value


def node_version() -> str:
    return tomllib.loads((ROOT / "config" / "node.toml").read_text())["version"]


def pom_property(name: str) -> str:
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    value = ET.parse(ROOT / "plugin" / "pom.xml").getroot().find(f"m:properties/m:{name}", ns)
    assert value is not None and value.text, f"plugin/pom.xml has no <{name}>"
    return value.text.strip()


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def settings_variables() -> set[str]:
    names = {field.validation_alias for field in Settings.model_fields.values()}
    assert all(isinstance(n, str) for n in names), "every Settings field should have a string validation_alias"
    return names  # type: ignore[return-value]


def gunicorn_variables() -> set[str]:
    text = (ROOT / "config" / "gunicorn.conf.py").read_text()
    return set(re.findall(r"""os\.environ(?:\.get\(|\[)\s*["']([A-Z0-9_]+)["']""", text))


def known_app_variables() -> set[str]:
    return settings_variables() | gunicorn_variables() | set(EXTRA_APP_VARIABLES)


def is_known_app_variable(name: str) -> bool:
    if name in known_app_variables():
        return True
    prefix = "PAPERSEARCH_NODE_"
    return name.startswith(prefix) and name.removeprefix(prefix).lower() in LocalNodeConfig.model_fields


def env_example() -> dict[str, str]:
    """NAME → value of every `NAME=value` line of .env.example, commented-out ones included."""
    out = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"#?\s*([A-Z][A-Z0-9_]*)=(.*)", line.strip())
        if match:
            assert match.group(1) not in out, f".env.example lists {match.group(1)} twice"
            out[match.group(1)] = match.group(2).strip()
    return out


def compose_interpolations() -> set[str]:
    names: set[str] = set()
    for path in (COMPOSE, CLUSTER):
        text = path.read_text(encoding="utf-8").replace("$$", "")  # $$ is a literal dollar for the container
        names |= set(INTERPOLATION.findall(text))
    return names


# --- Dockerfiles ---------------------------------------------------------------------------------------


def dockerfile_instructions(path: Path) -> list[tuple[int, str, str]]:
    """(line number, INSTRUCTION, arguments) per logical line, continuations joined."""
    out: list[tuple[int, str, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):  # comment lines inside a continuation are dropped
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1].strip())
            continue
        pending.append(line)
        logical = " ".join(p for p in pending if p)
        pending = []
        word, _, rest = logical.partition(" ")
        out.append((start, word, rest.strip()))
    assert not pending, f"{path.name}: the file ends inside a line continuation"
    return out


def stages(path: Path) -> list[dict[str, Any]]:
    """FROM lines with ARG defaults substituted: [{'image', 'name', 'instructions'}]."""
    args: dict[str, str] = {}
    result: list[dict[str, Any]] = []
    for number, word, rest in dockerfile_instructions(path):
        if word == "ARG" and not result:
            name, _, default = rest.partition("=")
            args[name] = default
        elif word == "FROM":
            parts = [p for p in rest.split() if not p.startswith("--")]
            image = parts[0]
            for _ in range(3):  # an ARG default may name an earlier ARG
                image = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m.group(1) or m.group(2), m.group(0)), image)
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            result.append({"line": number, "image": image, "name": name, "instructions": []})
        elif result:
            result[-1]["instructions"].append((number, word, rest))
    return result


def global_args(path: Path) -> dict[str, str]:
    out = {}
    for _, word, rest in dockerfile_instructions(path):
        if word == "FROM":
            break
        if word == "ARG":
            name, _, default = rest.partition("=")
            out[name] = default
    return out


def assert_pinned(image: str, where: str) -> None:
    assert "$" not in image, f"{where}: {image} has an unresolved variable"
    if "@sha256:" in image:
        return
    _, sep, tag = image.rpartition(":")
    assert sep and "/" not in tag, f"{where}: image {image} has no tag (pin it)"
    assert tag != "latest", f"{where}: image {image} uses :latest"
    assert FULL_VERSION_TAG.search(tag), f"{where}: tag of {image} is not a full x.y.z version"


@pytest.mark.parametrize("path", [ES_DOCKERFILE, APP_DOCKERFILE], ids=lambda p: p.name)
def test_dockerfile_lines_are_known_instructions(path: Path) -> None:
    instructions = dockerfile_instructions(path)
    assert instructions, f"{path.name} is empty"
    for number, word, rest in instructions:
        assert word in DOCKERFILE_INSTRUCTIONS, f"{path.name}:{number}: unknown instruction {word!r}"
        assert word == word.upper(), f"{path.name}:{number}: write instructions in upper case"
        assert rest, f"{path.name}:{number}: {word} without arguments"
        if word in ("CMD", "ENTRYPOINT"):
            parsed = json.loads(rest)  # exec form: signals reach the process, no shell in between
            assert isinstance(parsed, list) and all(isinstance(a, str) for a in parsed)
    assert instructions[0][1] in ("FROM", "ARG"), f"{path.name} must start with ARG or FROM"


@pytest.mark.parametrize("path", [ES_DOCKERFILE, APP_DOCKERFILE], ids=lambda p: p.name)
def test_dockerfile_base_images_are_pinned(path: Path) -> None:
    seen: set[str] = set()
    for stage in stages(path):
        if stage["image"] not in seen:  # FROM <earlier stage> needs no tag
            assert_pinned(stage["image"], f"{path.name}:{stage['line']}")
        if stage["name"]:
            seen.add(stage["name"])


@pytest.mark.parametrize("path", [ES_DOCKERFILE, APP_DOCKERFILE], ids=lambda p: p.name)
def test_dockerfile_copy_sources_exist_and_are_in_the_build_context(path: Path) -> None:
    ignored = [p.strip().rstrip("/") for p in DOCKERIGNORE.read_text().splitlines()
               if p.strip() and not p.startswith("#")]
    for number, word, rest in dockerfile_instructions(path):
        if word not in ("COPY", "ADD"):
            continue
        parts = [p for p in shlex.split(rest) if not p.startswith("--")]
        if "--from=" in rest:
            continue  # from another stage, not the context
        for source in parts[:-1]:
            assert (ROOT / source).exists(), f"{path.name}:{number}: COPY source {source} does not exist"
            for pattern in ignored:
                hit = fnmatch.fnmatch(source, pattern) or source == pattern or source.startswith(pattern + "/")
                assert not hit, f"{path.name}:{number}: {source} is excluded by .dockerignore ({pattern})"


def test_elasticsearch_dockerfile_builds_the_plugin_for_the_node_version() -> None:
    version = node_version()
    args = global_args(ES_DOCKERFILE)
    assert args.get("ES_VERSION") == version, "docker/elasticsearch.Dockerfile ES_VERSION ≠ config/node.toml"
    assert args.get("LUCENE_VERSION") == pom_property("lucene.version"), "LUCENE_VERSION ≠ plugin/pom.xml's"
    assert pom_property("elasticsearch.version") == version, "plugin/pom.xml's elasticsearch.version ≠ node.toml"
    # The local node (when provisioned) shows which Lucene this Elasticsearch really ships.
    for jar in (ROOT / ".local" / "node").glob(f"elasticsearch-{version}/lib/lucene-core-*.jar"):
        assert jar.stem == f"lucene-core-{args['LUCENE_VERSION']}", f"Elasticsearch {version} ships {jar.name}"

    first, *_, last = stages(ES_DOCKERFILE)
    assert first["image"].startswith("maven:") and "temurin" in first["image"], "first stage: a Maven+JDK image"
    build = " ".join(rest for _, word, rest in first["instructions"] if word == "RUN")
    assert "mvn" in build and "package" in build
    assert "-Delasticsearch.version=${ES_VERSION}" in build and "-Dlucene.version=${LUCENE_VERSION}" in build
    assert last["image"] == f"docker.elastic.co/elasticsearch/elasticsearch:{version}"
    install = " ".join(rest for _, word, rest in last["instructions"] if word == "RUN")
    assert re.search(r"elasticsearch-plugin install --batch file:///\S+\.zip", install)
    copied = [rest for _, word, rest in last["instructions"] if word == "COPY"]
    assert any(f"--from={first['name']}" in c and "papersearch-analysis.zip" in c for c in copied)


def test_app_dockerfile() -> None:
    *_, final = stages(APP_DOCKERFILE)
    assert final["image"].startswith("python:3.11."), "the app runs on Python 3.11 (pyproject)"
    instr = final["instructions"]
    users = [rest for _, word, rest in instr if word == "USER"]
    assert users, "the app image must not run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), f"the last USER is {users[-1]}"
    assert any(word == "RUN" and "pip install" in rest for _, word, rest in instr)
    copies = [rest.split()[-2:] for _, word, rest in instr if word == "COPY" and "--from" not in rest]
    sources = {src for src, _ in copies}
    assert {"config", SAMPLE.rsplit("/", 1)[0]} <= sources, "the image needs config/ and the sample"
    env = {}
    for _, word, rest in instr:
        if word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = value
    for key in env:
        if key.startswith("PAPERSEARCH_"):
            assert is_known_app_variable(key), f"app.Dockerfile sets {key}, which nothing reads"
    workdir = [rest for _, word, rest in instr if word == "WORKDIR"][-1]
    config_dest = next(dest for src, dest in copies if src == "config")
    assert env.get("PAPERSEARCH_CONFIG_DIR") == str(Path(workdir) / config_dest), \
        "PAPERSEARCH_CONFIG_DIR must point at the copied config/ (the installed package has none)"
    cmd = json.loads([rest for _, word, rest in instr if word == "CMD"][-1])
    assert cmd == ["gunicorn", "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"]


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
    assert "curl" in test and "_cluster/health" in test and "elastic:$$(cat /run/secrets/ELASTIC_PASSWORD)" in test, \
        "healthcheck: curl with the secret file's password ($$: expanded in the container)"


def test_setup_service() -> None:
    setup = services(COMPOSE)["setup"]
    assert setup["command"][:3] == ["python", "-m", "papersearch.stack_setup"]
    assert setup["command"][-2:] == ["--realm-dir", "/realm"] and "es-realm:/realm" in setup["volumes"]
    assert setup["depends_on"]["es"]["condition"] == "service_healthy"
    env = environment(setup)
    assert env["ES_URL"] == "http://es:9200"
    assert sorted(setup["secrets"]) == ["ES_PASSWORD", "ES_WEB_PASSWORD"], "no superuser: the file realm needs none"


def test_indexer_service_loads_the_sample_once() -> None:
    indexer = services(COMPOSE)["indexer"]
    assert indexer["command"][:3] == ["python", "-m", "papersearch.stack_wait"], "waits for es (compose restart)"
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
    assert webapp["ports"] == ["${WEB_BIND:-127.0.0.1}:${WEB_PORT:-8000}:8000"]
    test = webapp["healthcheck"]["test"]
    assert test[0] == "CMD" and test[1] == "python3" and "urllib" in test[-1] and "/healthz" in test[-1], \
        "the slim image has no curl: probe /healthz with Python"
    assert webapp["depends_on"]["setup"]["condition"] == "service_completed_successfully"
    assert webapp["depends_on"]["es"]["condition"] == "service_healthy"


def test_secrets_reach_containers_as_files_only() -> None:
    declared = load_yaml(COMPOSE)["secrets"]
    assert declared == {name: {"environment": name} for name in ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD")}
    for path in (COMPOSE, CLUSTER):
        for name, service in load_yaml(path)["services"].items():
            for key, value in environment(service).items():
                if re.search(r"PASSWORD|API_KEY|SECRET|TOKEN", key):
                    assert key.endswith("_FILE") and value.startswith("/run/secrets/"), \
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


# --- variables -----------------------------------------------------------------------------------------


def test_extra_variables_are_really_read() -> None:
    for name, (source, _reason) in EXTRA_APP_VARIABLES.items():
        assert name in (ROOT / source).read_text(), f"{name} is whitelisted as read by {source}, which does not"
    assert "PAPERSEARCH_BIND" in gunicorn_variables()


@pytest.mark.parametrize("path", [COMPOSE, CLUSTER], ids=lambda p: p.name)
def test_app_services_get_only_variables_the_app_reads(path: Path) -> None:
    for name in APP_SERVICES:
        service = services(path).get(name)
        if service is None:
            continue
        for key in environment(service):
            assert is_known_app_variable(key), (
                f"{path.name}: {name} sets {key}, which is neither in papersearch/settings.py nor read by "
                "gunicorn.conf.py nor whitelisted in EXTRA_APP_VARIABLES"
            )


def test_every_settings_variable_is_documented() -> None:
    documented = set(env_example())
    for name in APP_SERVICES:
        documented |= set(environment(services(COMPOSE)[name]))
    missing = settings_variables() - documented
    assert not missing, f"Settings variables missing from .env.example and docker-compose.yml: {sorted(missing)}"


def test_env_example_matches_compose_and_app() -> None:
    documented = set(env_example())
    undocumented = compose_interpolations() - documented
    assert not undocumented, f"compose interpolates variables .env.example does not document: {sorted(undocumented)}"
    unused = {n for n in documented
              if not is_known_app_variable(n) and n not in compose_interpolations() | COMPOSE_ONLY_VARIABLES}
    assert not unused, f".env.example documents variables nothing reads: {sorted(unused)}"
    assert compose_interpolations() >= COMPOSE_ONLY_VARIABLES


def test_env_example_has_no_real_secrets() -> None:
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assert "-----BEGIN" not in text
    for name, value in env_example().items():
        if re.search(r"PASSWORD|API_KEY|SECRET|TOKEN", name):
            assert value.startswith(stack_setup.PLACEHOLDER_PREFIX), f"{name} must be a change-me-… placeholder"
        elif re.fullmatch(r"[A-Za-z0-9_+=-]{20,}", value):
            classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
            assert classes < 3, f"{name}={value} looks like a real secret"
    secrets = ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD")
    placeholders = {k: v for k, v in env_example().items() if k in secrets}
    with pytest.raises(stack_setup.ConfigError, match="placeholder"):
        stack_setup.read_config({"ES_URL": "http://es:9200", **placeholders})


def test_dotenv_is_ignored_by_git_and_docker() -> None:
    git = shutil.which("git")
    assert git, "git is needed to check .gitignore"
    assert subprocess.run([git, "check-ignore", "-q", ".env"], cwd=ROOT).returncode == 0, ".env must be git-ignored"
    assert subprocess.run([git, "check-ignore", "-q", ".env.example"], cwd=ROOT).returncode == 1, \
        ".env.example must be committed"
    ignored = {line.strip() for line in DOCKERIGNORE.read_text().splitlines()}
    assert {".env", ".git", ".venv", ".local", "plugin/target"} <= ignored


# --- docker compose config ---------------------------------------------------------------------------


def run_compose(*args: str, env_file: Path) -> subprocess.CompletedProcess:
    # HOME: where the compose CLI plugin is (~/.docker/cli-plugins, scripts/compose-v2.sh).
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.run([*compose_binary(), "--env-file", str(env_file), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("files", [["docker-compose.yml"], ["docker-compose.yml", "docker-compose.cluster.yml"]],
                         ids=["single", "cluster"])
def test_docker_compose_config_validates(files: list[str]) -> None:
    args = [a for f in files for a in ("-f", f)]
    proc = run_compose(*args, "config", env_file=ENV_EXAMPLE)
    assert proc.returncode == 0, f"compose config failed:\n{proc.stderr}"
    resolved = yaml.safe_load(proc.stdout)
    assert set(resolved["services"]) >= {"es", "setup", "indexer", "webapp"}
    assert "ES_WEB_PASSWORD" not in environment(resolved["services"]["webapp"])
    assert resolved["secrets"]["ES_WEB_PASSWORD"]["environment"] == "ES_WEB_PASSWORD"


def test_docker_compose_config_requires_the_secrets(tmp_path: Path) -> None:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    proc = run_compose("-f", "docker-compose.yml", "config", env_file=empty)
    assert proc.returncode != 0
    assert "ELASTIC_PASSWORD" in proc.stderr and ".env.example" in proc.stderr


# --- papersearch.stack_setup ----------------------------------------------------------------------------

GOOD_ENV = {"ES_URL": "http://es:9200", "ELASTIC_PASSWORD": "s3cret-elastic",
            "ES_PASSWORD": "s3cret-indexer", "ES_WEB_PASSWORD": "s3cret-webapp"}


def test_setup_reads_its_configuration() -> None:
    config = stack_setup.read_config({**GOOD_ENV, "PAPERSEARCH_ALIAS": "lab_papers"})
    assert config.admin_user == "elastic"
    assert config.passwords == {"papersearch_indexer": "s3cret-indexer", "papersearch_web": "s3cret-webapp"}
    assert config.index_patterns == ["lab_papers*"]


@pytest.mark.parametrize(("change", "message"), [
    ({"ES_URL": ""}, "ES_URL is not set"),
    ({"ES_URL": "es:9200"}, "ES_URL must look like"),
    ({"ES_PASSWORD": "short"}, "ES_PASSWORD is too short"),
    ({"ES_WEB_PASSWORD": "change-me-webapp-password"}, "ES_WEB_PASSWORD still has the placeholder"),
    ({"ES_WEB_PASSWORD": GOOD_ENV["ES_PASSWORD"]}, "are equal"),
    ({"PAPERSEARCH_ALIAS": "Papers*"}, "PAPERSEARCH_ALIAS"),
])
def test_setup_rejects_bad_configuration(change: dict[str, str], message: str) -> None:
    with pytest.raises(stack_setup.ConfigError, match=message):
        stack_setup.read_config({**GOOD_ENV, **change})


def test_setup_without_environment_exits_2_naming_every_missing_variable(capsys: pytest.CaptureFixture) -> None:
    assert stack_setup.main([], env={}) == stack_setup.EXIT_CONFIG
    err = capsys.readouterr().err
    for name in ("ES_URL", "ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD"):
        assert f"{name} is not set" in err


def test_setup_fails_fast_and_clearly_on_an_unreachable_cluster() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = {"PATH": "/usr/bin:/bin", **GOOD_ENV, "ES_URL": url}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "papersearch.stack_setup", "--timeout", "1"], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    assert proc.returncode == stack_setup.EXIT_FAILED, proc.stderr
    assert f"cannot reach Elasticsearch at {url} within 1s" in proc.stderr
    assert "Connection refused" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert elapsed < 30
