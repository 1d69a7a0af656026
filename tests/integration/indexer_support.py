"""Helpers of the indexer tests (test_indexer_*.py): `papersearch-admin` run as a subprocess against a test
alias, what it left on the cluster, and the seed pages read the way a person reads them."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from support import ROOT, TAXONOMY

from indexer import versions

SEEDS = sorted((ROOT / "tests" / "fixtures" / "seeds").glob("*.txt"))
ADMIN_CLI = str(Path(sys.executable).parent / "papersearch-admin")
CHROME = ("论文检索", "篇学术成果中精准定位")


# --- running the CLI ----------------------------------------------------------------------------------------------


# The CLI's .local (where default rejects files go) is a scratch folder, not the project's.
# Set per module by the cli_local_dir fixture (tests/integration/conftest.py).
CLI_LOCAL_DIR: dict[str, Path] = {}


def admin_env(cluster, alias: str, local_dir: Path | None = None, **extra: str) -> dict[str, str]:
    """papersearch-admin's environment as the indexer against `alias`, its .local in `local_dir` (default: this
    module's CLI_LOCAL_DIR)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ES_", "PAPERSEARCH_"))}  # nothing from the caller's environment leaks in
    env.update(
        ES_URL=cluster.url,
        ES_USERNAME=cluster.indexer[0],
        ES_PASSWORD=cluster.indexer[1],
        PAPERSEARCH_ALIAS=alias,
        PAPERSEARCH_LOCAL_DIR=str(local_dir or CLI_LOCAL_DIR["path"]),
        # The CLI's and the fault tests are about loading (locks, memory, rejects, versions, faults) on up to
        # 100,000 synthetic papers: without vectors, which would take the encoder most of an hour (30,000 papers:
        # 75 s of a fault test's 90); test_search_by_meaning.py builds with them.
        PAPERSEARCH_MEANING="0",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def admin_command(args: tuple[object, ...]) -> list[str]:
    return [ADMIN_CLI, *(str(a) for a in args)]


def run_admin(cluster, alias: str, *args: object, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    """Run `papersearch-admin ARGS…` as the indexer against `alias`; stdin is not a terminal."""
    return subprocess.run(admin_command(args), env=admin_env(cluster, alias, **env), cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def admin_here(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], cluster, alias: str,
               *args: object, **env: str) -> subprocess.CompletedProcess:
    """`papersearch-admin ARGS…` as run_admin runs it, in this process: the same entry point and environment
    without a second of interpreter start-up per call (for tests that run the CLI many times)."""
    from indexer import admin

    for key in [k for k in os.environ if k.startswith(("ES_", "PAPERSEARCH_"))]:
        monkeypatch.delenv(key)
    for key, value in admin_env(cluster, alias, **env).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # not a terminal, as in run_admin
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    capfd.readouterr()
    try:
        code = admin.main([str(a) for a in args])
    finally:  # the command routes logging its way; undo that
        root.handlers[:] = handlers
        root.setLevel(level)
    out = capfd.readouterr()
    return subprocess.CompletedProcess(admin_command(args), code, out.out, out.err)


def reindex(cluster, alias: str, *sources: Path, expect: int = 0, **env: str) -> subprocess.CompletedProcess:
    result = run_admin(cluster, alias, "reindex", "--no-progress", *sources, **env)
    assert result.returncode == expect, result.stdout + result.stderr
    return result


# --- looking at the cluster ---------------------------------------------------------------------------------------


def live(es: Elasticsearch, alias: str) -> str | None:
    return versions.live_index(es, alias)


def alias_indices(es: Elasticsearch, alias: str) -> set[str]:
    return set(es.indices.get(index=f"{alias}*", allow_no_indices=True, expand_wildcards="all"))


def cluster_state(es: Elasticsearch, *patterns: str) -> dict[str, dict]:
    """What a dry run must leave as it was: every index matching the patterns, its aliases, _meta and documents."""
    found = es.indices.get(index=",".join(patterns), allow_no_indices=True, expand_wildcards="all")
    if found:
        es.indices.refresh(index=",".join(found))  # every write so far, seen
    return {name: {"aliases": sorted(body["aliases"]), "meta": body["mappings"].get("_meta"),
                   "docs": sorted(h["_id"] for h in es.search(index=name, size=1000, source=False)["hits"]["hits"])}
            for name, body in found.items()}


def all_docs(es: Elasticsearch, index: str) -> dict[str, dict]:
    hits = es.search(index=index, query={"match_all": {}}, size=1000)["hits"]["hits"]
    return {h["_id"]: h["_source"] for h in hits}


def count(es: Elasticsearch, index: str) -> int:
    return es.count(index=index)["count"]


def lock_doc(es: Elasticsearch, alias: str) -> dict | None:
    if not es.indices.exists(index=f"{alias}_locks"):
        return None
    found = es.options(ignore_status=404).get(index=f"{alias}_locks", id="build")
    return found["_source"] if found.get("found") else None


# --- inputs -------------------------------------------------------------------------------------------------------


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def expected_page(path: Path) -> list[dict]:
    """The papers on a listing page, read the way a person reads it: a topic line ("Area · Subarea" or a bare
    area), an optional author line, then the abstract (a long line). Chrome lines are skipped."""
    areas = {a["name"] for a in TAXONOMY["areas"]}
    papers: list[dict] = []
    topic: list[str] | None = None
    authors: str | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = norm(raw)
        if not line or any(c in line for c in CHROME):
            continue
        if " · " in line or line in areas:
            topic, authors = line.split(" · ", 1), None
        elif len(line) < 400:
            authors = line
        else:
            names = [n.strip() for n in authors.split(",")] if authors else []
            et_al = bool(names) and names[-1].endswith("等")
            if et_al:
                names[-1] = names[-1].removesuffix("等").strip()
            papers.append({
                "abstract": line,
                "topic_area": topic[0] if topic else None,
                "topic_subarea": topic[1] if topic and len(topic) > 1 else None,
                "authors": names,
                "authors_et_al": et_al,
                "source": path.name,
            })
            topic, authors = None, None
    return papers
