"""papersearch-admin's commands on an alias's papers and versions — reindex, add, delete, rollback, status, prune:
their arguments and their handlers (indexer/admin.py builds the parser, indexer/cli/runner.py runs a handler).
Light to import, like the parser: the handlers import what they use.

A dry run (--dry-run of delete, rollback, prune) asks the same plan the real run carries out (operations.delete_plan,
versions.rollback_target, versions.prunable) and checks the build lock the real run would take.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from indexer.cli.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_REJECTS
from indexer.cli.runner import Session, add_dry_run, command, loading_command


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1 (the live version is always kept), not {text!r}")
    return value


def add_parsers(sub: argparse._SubParsersAction) -> None:
    for name, handler in (("reindex", run_reindex), ("add", run_add)):
        cmd = sub.add_parser(name, help=f"{name} papers from files (listing pages, JSON Lines, arXiv snapshot)")
        cmd.add_argument("sources", nargs="+", type=Path)
        cmd.add_argument("--rejects", type=Path, help="rejects file (JSON Lines; default under .local/rejects/)")
        cmd.add_argument("--allow-rejects", action="store_true", help="exit 0 even if records were rejected")
        cmd.add_argument("--no-progress", action="store_true")
        if name == "reindex":
            cmd.add_argument("--allow-empty", action="store_true", help="swap even if no paper was accepted")
            cmd.add_argument("--if-missing", action="store_true",
                             help="do nothing when the alias already exists (first-start sample loading)")
        cmd.set_defaults(handler=handler)
    cmd = sub.add_parser("delete", help="delete papers by id")
    cmd.add_argument("ids", nargs="+")
    cmd.add_argument("--yes", action="store_true")
    add_dry_run(cmd, "which of the papers it would delete from which version, and which it cannot find")
    cmd.set_defaults(handler=run_delete)
    cmd = sub.add_parser("rollback", help="point the alias at the previous version")
    cmd.add_argument("--yes", action="store_true")
    add_dry_run(cmd, "which version the alias would move to")
    cmd.set_defaults(handler=run_rollback)
    cmd = sub.add_parser("status", help="show alias, versions, cluster health")
    cmd.add_argument("--json", action="store_true")
    cmd.set_defaults(handler=run_status)
    cmd = sub.add_parser("prune", help="delete old versions")
    cmd.add_argument("--keep", type=_at_least_one, metavar="N",
                     help="complete versions to keep, the live one included (default PAPERSEARCH_KEEP_INDICES)")
    cmd.add_argument("--yes", action="store_true")
    add_dry_run(cmd, "which versions it would delete")
    cmd.set_defaults(handler=run_prune)


def _rejects_path(args: argparse.Namespace) -> Path:
    from papersearch.paths import local_dir

    if args.rejects:
        return args.rejects
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return local_dir() / "rejects" / f"{args.command}-{stamp}.jsonl"


@loading_command
def run_reindex(args: argparse.Namespace, session: Session) -> int:
    return _load(args, session)


@loading_command
def run_add(args: argparse.Namespace, session: Session) -> int:
    return _load(args, session)


def _load(args: argparse.Namespace, session: Session) -> int:
    from indexer import operations, versions
    from indexer.loading.rejects import RejectsWriter
    from papersearch import index_definition

    client, settings = session.client, session.settings
    live = versions.live_index(client, settings.alias) if args.command == "reindex" and args.if_missing else None
    if live:
        print(f"alias {settings.alias} exists; nothing loaded (--if-missing)")
        if (built := versions.schema_of(client, live)) < (current := index_definition.schema_version()):
            print(f"note: {live} was built by schema version {built}, this version writes {current}: "
                  f"reindex your sources to fill the new fields (README, Loading data)")
        return EXIT_OK
    path = _rejects_path(args)
    sources = session.producer or args.sources
    with RejectsWriter(path) as rejects:
        if args.command == "reindex":
            report = operations.reindex(client, settings, sources, rejects, progress=not args.no_progress,
                                        allow_empty=args.allow_empty)
        else:
            report = operations.add(client, settings, sources, rejects, progress=not args.no_progress)
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


def _not_found(missing: list[str]) -> str:
    return f"not found {len(missing)}{': ' + ', '.join(missing) if missing else ''}"


@command
def run_delete(args: argparse.Namespace, session: Session) -> int:
    from indexer import operations

    alias = session.alias
    if args.dry_run:
        plan = operations.delete_plan(session.client, alias, args.ids)
        print(f"would delete {len(plan.found)} from {plan.index} (alias {alias}); {_not_found(plan.missing)}")
        return EXIT_OK if not plan.missing else EXIT_FAILED
    if not session.confirm(f"delete {len(args.ids)} papers from {alias}?", args.yes):
        return EXIT_FAILED
    deleted, missing = operations.delete(session.client, alias, args.ids)
    print(f"deleted {len(deleted)}; {_not_found(missing)}")
    return EXIT_OK if not missing else EXIT_FAILED


@command
def run_rollback(args: argparse.Namespace, session: Session) -> int:
    from indexer import versions
    from indexer.build_lock import BuildLock

    alias = session.alias
    if args.dry_run:
        BuildLock(session.client, alias).check()
        was, now = versions.rollback_target(session.client, alias)
        print(f"would point alias {alias} → {now} (was {was})")
        return EXIT_OK
    if not session.confirm(f"point {alias} back at the previous version?", args.yes):
        return EXIT_FAILED
    with BuildLock(session.client, alias):
        was, now = versions.rollback(session.client, alias)
    print(f"alias {alias} → {now} (was {was})")
    return EXIT_OK


@command
def run_prune(args: argparse.Namespace, session: Session) -> int:
    from indexer import versions
    from indexer.build_lock import BuildLock

    alias = session.alias
    keep = args.keep or session.settings.keep_indices
    if args.dry_run:
        BuildLock(session.client, alias).check()
        doomed = versions.prunable(session.client, alias, keep)
        print(f"would prune {len(doomed)}: {', '.join(doomed) or '-'}")
        return EXIT_OK
    if not session.confirm(f"delete versions of {alias} beyond the newest {keep}?", args.yes):
        return EXIT_FAILED
    with BuildLock(session.client, alias):
        pruned = versions.prune(session.client, alias, keep)
    print(f"pruned {len(pruned)}: {', '.join(pruned) or '-'}")
    return EXIT_OK


def _meaning_note(info: dict) -> str | None:
    """What `status` says when the live version's vectors are not the ones this version searches with."""
    from papersearch import meaning

    live = next((v for v in info["versions"] if v["live"]), None)
    if live is None or not meaning.enabled() or live["meaning"] == meaning.MODEL:
        return None
    built = f"with the model {live['meaning']}" if live["meaning"] else "without vectors of meaning"
    return (f"note: {live['name']} was built {built}; this version searches with {meaning.MODEL}: reindex to "
            f"search it by meaning (or set PAPERSEARCH_MEANING=0)")


@command
def run_status(args: argparse.Namespace, session: Session) -> int:
    import json

    from indexer import operations

    alias = session.alias
    info = operations.status(session.client, alias)
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
        vectors = f"meaning {v['meaning']}" if v["meaning"] else "no vectors"
        print(f"  {v['name']}  {v['docs']:>9} docs  profile {v['profile']}  schema {v['schema']}  {vectors}  "
              f"{flags}".rstrip())
    if (note := _meaning_note(info)) is not None:
        print(note)
    if info["build_lock"]:
        print(f"build lock held by {info['build_lock'].get('owner')} since {info['build_lock'].get('started')}")
    return EXIT_OK
