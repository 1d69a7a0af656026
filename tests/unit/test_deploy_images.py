"""Static checks of the Docker images (no Docker engine needed): docker/elasticsearch.Dockerfile and
docker/app.Dockerfile use known instructions, pin their base images, copy only what exists in the build context
(.dockerignore), build the plugin for the Elasticsearch of config/node.toml and the Lucene of plugin/pom.xml,
build the app's wheel from every package the project installs, and run the app as a non-root user with only
variables the app reads.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from deploy_files import DOCKERIGNORE, ES_DOCKERFILE, ROOT, SAMPLE, assert_pinned, is_known_app_variable, node_version

APP_DOCKERFILE = ROOT / "docker" / "app.Dockerfile"

DOCKERFILE_INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK", "LABEL",
    "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}


def pom_property(name: str) -> str:
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    value = ET.parse(ROOT / "plugin" / "pom.xml").getroot().find(f"m:properties/m:{name}", ns)
    assert value is not None and value.text, f"plugin/pom.xml has no <{name}>"
    return value.text.strip()


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


def test_app_wheel_holds_every_package() -> None:
    """`pip install .` (the image's wheel) finds every top-level package the code imports, and the wheel stage
    copies each into its build context: a package moved or added beside papersearch/ is not left behind."""
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    installed = {pattern.removesuffix("*") for pattern in include}
    packages = {init.parent.name for init in ROOT.glob("*/__init__.py")} - {"tests", "bench", "relevance"}  # not served
    assert packages >= {"papersearch", "provisioning", "indexer", "webapp"}, "the check must see the packages"
    assert packages <= installed, f"pyproject's packages.find include misses {sorted(packages - installed)}"
    wheel, *_ = stages(APP_DOCKERFILE)
    copied = {shlex.split(rest)[0] for _, word, rest in wheel["instructions"] if word == "COPY"}
    assert packages <= copied, f"the wheel stage does not COPY {sorted(packages - copied)}"
