"""What a backup and a restore of the site cost: `papersearch-admin backup` and `restore` as subprocesses on the
bench corpus, timed from the outside, with the snapshot's size.

    .venv/bin/python -m bench.backup --size 13033 [--cleanup]
    .venv/bin/python -m bench.backup --size 1m --cleanup

One full reindex builds the site (alias papersbench_backup, one version, plus a query-log day of
--log-entries entries), then, in order:
  backup        the first snapshot: every file is copied into the repository
  backup again  nothing changed: an incremental snapshot copies nothing new
  restore       beside the live site: every version under a new name, checked, the alias switched
  restore empty the site's indices deleted first (what a lost disk leaves), restored under their own names
Sizes: what the snapshot refers to and what it added (Elasticsearch's snapshot status), and the repository
folder on disk where this machine can see it. Results go to bench/results/backup-<time>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import requests

from bench.common import (
    INDEXER_USER,
    RESULTS_DIR,
    ROOT,
    VENV_BIN,
    credentials,
    delete_indices,
    ensure_node,
    es_url,
    identity,
    log,
    machine,
    session,
)
from bench.corpus import DEFAULT_SEED, SIZES, ensure_corpus
from bench.indexing import run_ours

ALIAS = "papersbench_backup"
LOG_BASE = "papersearch-querylog-benchbackup"


def admin(*args: str) -> tuple[dict, float]:
    """`papersearch-admin ARGS --json` as the indexer on the bench alias: its JSON and the wall seconds."""
    user, password = identity(INDEXER_USER)
    env = {**os.environ, "ES_URL": es_url(), "ES_USERNAME": user, "ES_PASSWORD": password,
           "PAPERSEARCH_ALIAS": ALIAS, "PAPERSEARCH_QUERY_LOG_INDEX": LOG_BASE}
    started = time.perf_counter()
    proc = subprocess.run([str(VENV_BIN / "papersearch-admin"), *args, "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"papersearch-admin {' '.join(args)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return json.loads(proc.stdout), round(seconds, 2)


def write_query_log(entries: int) -> None:
    """One day of search entries through the webapp's own writer and identity."""
    from bench.common import WEB_USER
    from papersearch import querylog_schema
    from papersearch.es import make_client
    from papersearch.settings import Settings
    from webapp.querylog_writer import QueryLogWriter

    user, password = identity(WEB_USER)
    client = make_client("web", Settings(ES_URL=es_url(), ES_WEB_USERNAME=user, ES_WEB_PASSWORD=password))
    writer = QueryLogWriter(client, LOG_BASE, flush_every=0.2)
    for i in range(entries):
        writer.submit(querylog_schema.SearchEvent(query_id=querylog_schema.new_query_id(), q=f"query {i % 500}",
                                                  sort="relevance",
                                           page=1, size=10, total=i % 37, took_ms=12, lang="en", source="page"))
    assert writer.flush(120)
    writer.close()


def folder_bytes(path: str | None) -> int | None:
    if not path or not Path(path).is_dir():
        return None
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def delete_log() -> None:
    s = session(INDEXER_USER)
    for entry in s.get(f"{es_url()}/_resolve/index/{LOG_BASE}-*", timeout=30).json().get("indices", []):
        s.delete(f"{es_url()}/{entry['name']}", timeout=60).raise_for_status()


def forget(repository: str, unregister: bool = False) -> None:
    """Delete the repository's snapshots (and its registration: the superuser's, not a role's business)."""
    s = session(INDEXER_USER)
    found = s.get(f"{es_url()}/_snapshot/{repository}/_all", timeout=60)
    for snap in found.json().get("snapshots", []) if found.ok else []:
        s.delete(f"{es_url()}/_snapshot/{repository}/{snap['snapshot']}", timeout=600).raise_for_status()
    if unregister:
        requests.delete(f"{es_url()}/_snapshot/{repository}", auth=("elastic", credentials()["elastic"]), timeout=60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="13033", help="papers, or 13k / 100k / 1m")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--log-entries", type=int, default=10_000)
    parser.add_argument("--cleanup", action="store_true", help="delete the site, its snapshots and folder after")
    args = parser.parse_args(argv)
    size = SIZES.get(args.size.lower()) or int(args.size)
    ensure_node()
    corpus = ensure_corpus(size, args.seed, log=log)
    repository = f"{ALIAS}_backups"
    forget(repository)
    delete_log()
    log(f"reindex of {size} papers into {ALIAS}")
    built = run_ours(corpus, ALIAS)
    write_query_log(args.log_entries)
    steps = {}
    for step, command in [("backup", ("backup", "--no-progress")), ("backup again", ("backup", "--no-progress")),
                          ("restore", ("restore", "--yes", "--no-progress"))]:
        log(step)
        steps[step] = admin(*command)
    delete_indices(f"{ALIAS}-*")  # the site's versions, alias and query log gone, as on a lost disk
    delete_log()
    log("restore empty")
    steps["restore empty"] = admin("restore", "--yes", "--no-progress")
    first = steps["backup"][0]
    path = first["repository"].rsplit(" at ", 1)[-1].rstrip(")")
    result = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(), "papers": size,
        "index": built.index, "reindex_seconds": round(built.seconds, 1), "query_log_entries": args.log_entries,
        # wall seconds of the command (process start included), and the seconds it reports for its own work
        **{f"{step.replace(' ', '_')}_seconds": [wall, out["seconds"]] for step, (out, wall) in steps.items()},
        "snapshot_bytes": first["size_bytes"], "backup_again_added_bytes": steps["backup again"][0]["added_bytes"],
        "repository_folder_bytes": folder_bytes(path),
        "steps": {k: v[0] for k, v in steps.items()},
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / f"backup-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("steps", "machine")}, indent=2))
    log(f"written {out}")
    if args.cleanup:
        delete_indices(f"{ALIAS}-*")
        delete_log()
        forget(repository, unregister=True)
        if path.startswith("/") and Path(path).is_dir():
            shutil.rmtree(path, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
