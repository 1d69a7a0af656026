"""Helpers of the backup tests (test_backups.py, test_backup_disaster.py): what a site holds, read back in
full so that a restore can be compared with it, and the repository's clean-up."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from elasticsearch import Elasticsearch

from papersearch.added import FIELD as ADDED


def papers(es: Elasticsearch, alias: str) -> dict[str, str]:
    """Every paper of the live version: id → the date it was added."""
    es.indices.refresh(index=alias)
    hits = es.search(index=alias, query={"match_all": {}}, size=10_000, source=[ADDED])["hits"]["hits"]
    return {h["_id"]: h["_source"][ADDED] for h in hits}


def log_entries(es: Elasticsearch, base: str) -> dict[str, tuple[str, str, str]]:
    """Every query-log entry of the base's daily indices: id → (index, event, query id)."""
    pattern = f"{base}-2*"  # the daily indices only
    if not es.indices.get(index=pattern, allow_no_indices=True, expand_wildcards="open"):
        return {}
    es.indices.refresh(index=pattern)
    hits = es.search(index=pattern, query={"match_all": {}}, size=10_000)["hits"]["hits"]
    return {h["_id"]: (h["_index"], h["_source"]["event"], h["_source"]["query_id"]) for h in hits}


def forget_repository(admin: Elasticsearch, name: str, folder: Path | None = None) -> None:
    """Delete every snapshot in the repository, unregister it, and remove its folder when it is on this machine."""
    if admin.options(ignore_status=404).snapshot.get_repository(name=name).meta.status == 200:
        found = admin.options(ignore_status=404).snapshot.get(repository=name, snapshot="_all")
        names = [s["snapshot"] for s in found.get("snapshots", [])] if found.meta.status == 200 else []
        if names:
            admin.options(ignore_status=404, request_timeout=300).snapshot.delete(repository=name,
                                                                                   snapshot=",".join(names))
        admin.snapshot.delete_repository(name=name)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def admin_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)
