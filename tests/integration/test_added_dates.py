"""The date a paper was added to the index: written at index time, kept by an upsert (`add`) and by a full
reindex of the same paper id, so only new papers ever get a new date (papersearch/added.py)."""

from __future__ import annotations

from pathlib import Path

from elasticsearch import Elasticsearch
from support import build_alias, next_millisecond, write_jsonl

from indexer import operations
from indexer.loading.rejects import RejectsWriter


def paper(i: str, title: str) -> dict:
    return {"id": i, "title": title, "abstract": f"An abstract about {title.lower()}.", "authors": ["Ada Lovelace"]}


def dates(admin: Elasticsearch, alias: str) -> dict[str, str]:
    hits = admin.search(index=alias, size=100, source=["added"])["hits"]["hits"]
    return {h["_id"]: h["_source"]["added"] for h in hits}


def add(cluster, alias: str, path: Path) -> operations.BuildReport:
    with RejectsWriter(None) as rejects:
        return operations.add(cluster.client("indexer"), cluster.settings(alias), [path], rejects, progress=False)


def test_added_dates_survive_upserts_and_reindexes(cluster, admin, alias, tmp_path):
    first = write_jsonl(tmp_path / "first.jsonl", [paper("a", "Alpha"), paper("b", "Beta")])
    build_alias(cluster, alias, [first])
    built = dates(admin, alias)
    assert built["a"] == built["b"] and len(built["a"]) == len("2026-12-01T10:20:30.123Z")

    next_millisecond()  # dates are to the millisecond
    add(cluster, alias, write_jsonl(tmp_path / "add.jsonl", [paper("b", "Beta revised"), paper("c", "Gamma")]))
    upserted = dates(admin, alias)
    assert upserted["b"] == built["b"]  # an existing paper keeps its date …
    assert admin.get(index=alias, id="b")["_source"]["title"] == "Beta revised"  # … while its record is replaced
    assert upserted["c"] > built["a"]  # a new one is newer

    next_millisecond()
    everything = write_jsonl(tmp_path / "all.jsonl", [paper(i, t) for i, t in
                                                      (("a", "Alpha"), ("b", "Beta"), ("c", "Gamma"), ("d", "Delta"))])
    report = build_alias(cluster, alias, [everything])
    assert report.previous and report.index != report.previous  # a new version, built from scratch
    rebuilt = dates(admin, alias)
    assert {k: rebuilt[k] for k in "abc"} == {k: upserted[k] for k in "abc"}
    assert rebuilt["d"] > rebuilt["c"]
