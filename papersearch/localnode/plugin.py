"""Build our analysis plugin (plugin/) with Maven, cached by a hash of its sources."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from papersearch.localnode.distribution import ProvisionError, run_maven, say
from papersearch.localnode.java import find_java
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
