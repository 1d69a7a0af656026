"""What papersearch-admin runs once its arguments are parsed (see indexer.admin), and how failures read."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from elasticsearch import ApiError, Elasticsearch, TransportError

from indexer import backup_admin, operations, querylog_admin, versions
from indexer.backup_repository import BackupError
from indexer.build_lock import BuildLock, LockBusy
from indexer.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_REJECTS
from indexer.loader import WritesBlocked
from indexer.prepare import Producer
from indexer.readers import SourceError
from indexer.refusals import explain_refusal
from indexer.rejects import RejectsWriter
from papersearch import index_definition, logs
from papersearch.concepts import GlossaryError
from papersearch.es import make_client
from papersearch.paths import local_dir
from papersearch.settings import Settings


def _confirm(question: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        print(f"{question} — refusing without --yes (no terminal to ask)", file=sys.stderr)
        return False
    return input(f"{question} [y/N] ").strip().lower() == "y"


def _rejects_path(args: argparse.Namespace) -> Path:
    if args.rejects:
        return args.rejects
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return local_dir() / "rejects" / f"{args.command}-{stamp}.jsonl"


def _load_command(client: Elasticsearch, settings: Settings, args: argparse.Namespace,
                  producer: Producer | None) -> int:
    live = versions.live_index(client, settings.alias) if args.command == "reindex" and args.if_missing else None
    if live:
        print(f"alias {settings.alias} exists; nothing loaded (--if-missing)")
        if (built := versions.schema_of(client, live)) < (current := index_definition.schema_version()):
            print(f"note: {live} was built by schema version {built}, this version writes {current}: "
                  f"reindex your sources to fill the new fields (README, Loading data)")
        return EXIT_OK
    path = _rejects_path(args)
    with RejectsWriter(path) as rejects:
        if args.command == "reindex":
            report = operations.reindex(client, settings, producer or args.sources, rejects,
                                        progress=not args.no_progress,
                                        allow_empty=args.allow_empty)
        else:
            report = operations.add(client, settings, producer or args.sources, rejects,
                                    progress=not args.no_progress)
    print(f"{args.command}: {report.stats.summary()}")
    if args.command == "reindex":
        print(f"alias {settings.alias} → {report.index} (was {report.previous or 'none'}), "
              f"analysis profile {report.profile}")
        if report.pruned:
            print(f"pruned old versions: {', '.join(report.pruned)}")
    for topic, count in sorted(report.stats.unknown_topics.items()):
        print(f"note: unknown topic kept as given: {topic} ({count} papers)")
    problems = report.stats.rejected + report.stats.failed
    if problems:
        print(f"{problems} records rejected or failed, listed in {path}:")
        for line in report.rejects_summary:
            print(line)
        return EXIT_OK if args.allow_rejects else EXIT_REJECTS
    path.unlink(missing_ok=True)
    return EXIT_OK


def run(args: argparse.Namespace, settings: Settings, producer: Producer | None = None) -> int:
    client = make_client("indexer", settings, request_timeout=120)
    alias = settings.alias
    if args.command in ("reindex", "add"):
        return _load_command(client, settings, args, producer)
    if args.command in ("report", "querylog"):
        return querylog_admin.run(args, settings, client, _confirm)
    if args.command in ("backup", "backups", "restore"):
        return backup_admin.run(args, settings, client, _confirm)
    if args.command == "delete":
        if not _confirm(f"delete {len(args.ids)} papers from {alias}?", args.yes):
            return EXIT_FAILED
        deleted, missing = operations.delete(client, alias, args.ids)
        print(f"deleted {len(deleted)}; not found {len(missing)}{': ' + ', '.join(missing) if missing else ''}")
        return EXIT_OK if not missing else EXIT_FAILED
    if args.command == "rollback":
        if not _confirm(f"point {alias} back at the previous version?", args.yes):
            return EXIT_FAILED
        with BuildLock(client, alias):
            was, now = versions.rollback(client, alias)
        print(f"alias {alias} → {now} (was {was})")
        return EXIT_OK
    if args.command == "prune":
        keep = args.keep or settings.keep_indices
        if not _confirm(f"delete versions of {alias} beyond the newest {keep}?", args.yes):
            return EXIT_FAILED
        with BuildLock(client, alias):
            pruned = versions.prune(client, alias, keep)
        print(f"pruned {len(pruned)}: {', '.join(pruned) or '-'}")
        return EXIT_OK
    info = operations.status(client, alias)
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    cluster = info["cluster"]
    print(f"cluster {cluster['name']}: {cluster['status']} ({cluster['nodes']} nodes, {cluster['data_nodes']} data, "
          f"{cluster['unassigned_shards']} unassigned shards)")
    print(f"alias {alias} → {info['live'] or '(none)'}"
          + (f"  (health {info['live_health']})" if info["live"] else ""))
    for s in info["shards"]:
        print(f"  shard {s['shard']} {'primary' if s['primary'] else 'replica'}  {s['state']}  {s['node'] or '-'}")
    for v in info["versions"]:
        flags = ("live " if v["live"] else "") + ("" if v["complete"] else "INCOMPLETE ")
        print(f"  {v['name']}  {v['docs']:>9} docs  profile {v['profile']}  schema {v['schema']}  {flags}".rstrip())
    if info["build_lock"]:
        print(f"build lock held by {info['build_lock'].get('owner')} since {info['build_lock'].get('started')}")
    return EXIT_OK


def run_command(args: argparse.Namespace, producer: Producer | None = None) -> int:
    """Run one parsed command; `producer` is the reading already started for reindex/add."""
    settings = Settings(**({"PAPERSEARCH_ALIAS": args.alias} if args.alias else {}))
    logs.configure(settings.log_format, text_format="%(message)s")
    try:
        return run(args, settings, producer)
    except (SourceError, GlossaryError) as exc:
        print(f"papersearch-admin: {exc} (nothing was written)", file=sys.stderr)
    except LockBusy as exc:
        print(f"papersearch-admin: {exc}", file=sys.stderr)
    except (operations.BuildFailed, LookupError, BackupError) as exc:
        print(f"papersearch-admin: {exc}", file=sys.stderr)
    except WritesBlocked as exc:
        kept = "; the alias was not changed" if args.command == "reindex" else ""
        print(f"papersearch-admin: {exc}{kept}", file=sys.stderr)
    except TransportError as exc:
        print(f"papersearch-admin: cannot reach Elasticsearch at {settings.url()}: {exc}", file=sys.stderr)
    except ApiError as exc:
        print(f"papersearch-admin: {explain_refusal(exc, settings, make_client('indexer', settings))}",
              file=sys.stderr)
    except KeyboardInterrupt:
        print("papersearch-admin: interrupted; the alias was not changed", file=sys.stderr)
    finally:
        if producer is not None:
            producer.close()
    return EXIT_FAILED

