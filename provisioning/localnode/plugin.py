"""Our analysis plugin (plugin/): built with Maven, cached by a hash of its sources, installed into the node."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from papersearch.paths import PROJECT_ROOT, local_dir
from provisioning.localnode.distribution import ProvisionError, lucene_version, run_maven, say
from provisioning.localnode.java import Java, JavaNotFound, plugin_builder
from provisioning.localnode.runas import NodeUser

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


def build(es_version: str, lucene: str, minimum_java: int, java: Java | None = None) -> tuple[Path, str]:
    """Return (zip, hash); rebuilds only when the plugin's sources or the versions changed. `java`:
    the one to compile with (default: java.plugin_builder); builds by ECJ are cached apart."""
    if not (PLUGIN_SRC / "pom.xml").exists():
        raise ProvisionError(f"no plugin sources at {PLUGIN_SRC}")
    java = java or plugin_builder(minimum_java)
    digest = source_hash(es_version, lucene)
    for kind in [java.compiler] if java else ["javac", "ecj"]:  # without a compiler any build will do
        cached = local_dir() / "plugin-cache" / (digest + ("" if kind == "javac" else "-ecj")) / f"{PLUGIN_NAME}.zip"
        if cached.exists():
            say(f"analysis plugin up to date ({digest})")
            return cached, digest
    if java is None or java.compiler is None:
        raise JavaNotFound(f"no Java {minimum_java} or newer that can compile the plugin (javac, or the "
                           f"java.compiler module for ECJ)")
    how = (f"JDK {java.major}, javac" if java.compiler == "javac" else
           f"Java {java.major} has no javac: the Eclipse compiler (ECJ) from Maven Central, in process")
    say(f"building the analysis plugin with Maven ({how}) …")
    run_maven(
        [*(["-Pecj"] if java.compiler == "ecj" else []),
         f"-Delasticsearch.version={es_version}", f"-Dlucene.version={lucene}", "package"],
        cwd=PLUGIN_SRC,
        java_home=java.home,
    )
    built = PLUGIN_SRC / "target" / f"{PLUGIN_NAME}.zip"
    if not built.exists():
        raise ProvisionError(f"the plugin build did not produce {built}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(built, cached)
    return cached, digest


def install(es_home: Path, es_version: str, minimum_java: int, user: NodeUser, env: dict[str, str]) -> str | None:
    """Build if needed and install into the distribution (all local nodes share it); returns the hash,
    or None when no Java can compile it (the node then runs with the core analysis profile)."""
    try:
        zip_path, digest = build(es_version, lucene_version(es_home), minimum_java)
    except JavaNotFound as exc:
        # A runtime without the java.compiler module runs the node but cannot compile the plugin.
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
    """The plugin's sources changed since `installed` was put in (and a Java exists that can rebuild it)."""
    try:
        want = source_hash(es_version, lucene_version(es_home))
    except ProvisionError:
        return False
    if installed == want:
        return False
    # a node started without the plugin for want of a compiler is not restarted at every start
    return plugin_builder(minimum_java) is not None
