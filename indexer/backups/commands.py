"""`papersearch-admin backup`, `backups` and `restore`: the site's snapshots for admins.

    backup [--note TEXT] [--keep 30d [--keep-at-least 3]]   a snapshot of the complete versions, which one is
                                                             live, and the query log; then retention
    backups [--json]                                         what the repository holds, when, how big
    restore [SNAPSHOT] [--overwrite] [--yes] [--dry-run]     the newest (or the named) backup of this site back

A schedule is cron or a systemd timer calling `backup --keep 30d` (docs/operations.md "Backups"; the
distribution has no snapshot lifecycle management: DECISIONS.md D-125).
"""

from __future__ import annotations

import argparse
import json
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the admin builds its parser before it imports the client (indexer.admin)
    from indexer.backups.backup import BackupReport
    from indexer.backups.repository import Backup, Repository
    from indexer.backups.restore import Plan, RestoreReport

from indexer.cli.exit_codes import EXIT_FAILED, EXIT_OK
from indexer.cli.runner import Session, add_dry_run, command
from indexer.progress import size_text
from papersearch import querylog_schema

MAX_NOTE = 200  # characters; the snapshot's whole description must stay under 1024 bytes (indexer/backups/backup.py)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from indexer.querylog.commands import duration

    cmd = sub.add_parser("backup", help="snapshot the site (versions, alias, query log) into its repository")
    cmd.add_argument("--note", default="", help=f"a description kept with the snapshot (≤ {MAX_NOTE} characters)")
    cmd.add_argument("--keep", type=duration, help="then delete this site's snapshots older than this, e.g. 30d")
    cmd.add_argument("--keep-at-least", type=int, default=3, metavar="N",
                     help="with --keep: never fewer than the newest N complete snapshots (default 3)")
    cmd.add_argument("--no-progress", action="store_true")
    cmd.add_argument("--json", action="store_true")
    cmd.set_defaults(handler=run_backup)
    cmd = sub.add_parser("backups", help="the site's snapshots: when, how big, what each holds")
    cmd.add_argument("--json", action="store_true")
    cmd.set_defaults(handler=run_backups)
    cmd = sub.add_parser("restore", help="restore a backup: beside the live site, then the alias switches")
    cmd.add_argument("snapshot", nargs="?", help="default: the newest complete backup of this site")
    cmd.add_argument("--overwrite", action="store_true",
                     help="replace existing indices of the same names instead of restoring beside them "
                          "(no second copy on disk; the site is down meanwhile when the live version is one)")
    cmd.add_argument("--yes", action="store_true")
    add_dry_run(cmd, "which snapshot it would restore, each version under which name, which query-log days, "
                     "which indices it would replace and where the alias would move")
    cmd.add_argument("--no-progress", action="store_true")
    cmd.add_argument("--json", action="store_true")
    cmd.set_defaults(handler=run_restore)


def _interrupt_on_sigterm() -> None:
    """cron and systemd stop a job with SIGTERM: treat it as Ctrl-C, so the snapshot is aborted, not orphaned."""
    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


@command
def run_backup(args: argparse.Namespace, session: Session) -> int:
    from indexer.backups import backup

    if len(args.note) > MAX_NOTE:
        print(f"papersearch-admin: --note has {len(args.note)} characters, at most {MAX_NOTE}")
        return EXIT_FAILED
    _interrupt_on_sigterm()
    report = backup.take(session.client, session.settings, args.note, progress=not args.no_progress)
    if args.keep:
        report.deleted = backup.apply_retention(session.client, session.settings, args.keep, args.keep_at_least)
    print(json.dumps(_backup_json(report), indent=2) if args.json else render_backup(report, args))
    return EXIT_OK


@command
def run_backups(args: argparse.Namespace, session: Session) -> int:
    from indexer.backups import repository

    client, alias = session.client, session.alias
    repo = repository.ensure(client, session.settings)
    found = repository.snapshots(client, repo)
    mine = [b for b in found if b.of(alias)]
    sizes = repository.sizes(client, repo, [b.name for b in mine if b.state == "SUCCESS"])
    rows = [_backup_row(b, sizes.get(b.name)) for b in mine]
    if args.json:
        print(json.dumps({"repository": repo.describe(), "site": alias, "backups": rows,
                          "other_snapshots": len(found) - len(mine)}, indent=2))
    else:
        print(render_backups(repo.describe(), alias, rows, len(found) - len(mine)))
    return EXIT_OK


@command
def run_restore(args: argparse.Namespace, session: Session) -> int:
    from indexer import versions
    from indexer.backups import restore

    client, alias = session.client, session.alias
    if args.dry_run:
        repo, plan, live = restore.preview(client, session.settings, args.snapshot, overwrite=args.overwrite)
        print(json.dumps({"dry_run": True, **_plan_json(plan, repo, live)}, indent=2) if args.json
              else render_plan(plan, repo, alias, live))
        return EXIT_OK
    live = versions.live_index(client, alias)
    what = "replace existing indices of the same names" if args.overwrite else "restore beside it"
    if live and not session.confirm(f"the site {alias} is live ({live}): {what}, then point {alias} "
                                    "at the restored version?", args.yes):
        return EXIT_FAILED
    report = restore.restore(client, session.settings, args.snapshot, overwrite=args.overwrite,
                             progress=not args.no_progress)
    # A backup holds the log's days up to its own; the webapp may not make an index (D-188), so the days from
    # today on are made again here, or a site restored after a lost disk drops its events from tomorrow.
    querylog_schema.prepare_days_if_allowed(client, session.settings.query_log_index)
    print(json.dumps(_restore_json(report), indent=2) if args.json else render_restore(report, alias))
    return EXIT_OK


def _holds(meta) -> str:
    others = len(meta.versions) - 1
    return (f"live {meta.live} ({meta.versions[meta.live]} papers)"
            + (f" + {others} older version{'s' if others > 1 else ''}" if others else "")
            + f"; query log {meta.query_log_days} days, {meta.query_log_docs} entries")


def _backup_json(report: BackupReport) -> dict:
    return {"snapshot": report.name, "repository": report.repository.describe(), **report.meta.model_dump(),
            "seconds": round(report.seconds, 2), "size_bytes": report.total_bytes,
            "added_bytes": report.added_bytes, "deleted": report.deleted}


def render_backup(report: BackupReport, args: argparse.Namespace) -> str:
    lines = [f"backup {report.name} of site {report.meta.site} into {report.repository.describe()}",
             f"  {_holds(report.meta)}",
             f"  {size_text(report.total_bytes)} ({size_text(report.added_bytes)} new in the repository), "
             f"{report.seconds:.1f} s"]
    if args.keep:
        hours = int(args.keep.total_seconds() // 3600)
        span = f"{hours // 24} days" if hours % 24 == 0 else f"{hours} hours"
        lines.append(f"retention (older than {span}, at least {args.keep_at_least} kept): deleted "
                     f"{len(report.deleted)}{': ' + ', '.join(report.deleted) if report.deleted else ''}")
    return "\n".join(lines)


def _backup_row(b: Backup, size: tuple[int, int] | None) -> dict:
    assert b.meta is not None
    return {"snapshot": b.name, "state": b.state, "started": b.start.isoformat(timespec="seconds"),
            "seconds": b.seconds, "size_bytes": size[0] if size else None, "added_bytes": size[1] if size else None,
            "holds": b.meta.model_dump(), "failures": b.failures}


def render_backups(repo: str, alias: str, rows: list[dict], others: int) -> str:
    from indexer.backups.repository import SiteMeta

    lines = [f"repository {repo}: {len(rows)} backups of site {alias}"
             + (f" ({others} other snapshots: other sites', or not papersearch-admin's)" if others else "")]
    if rows:
        lines.append(f"  {'snapshot':<40}{'state':<9}{'started (UTC)':<22}{'seconds':>8}{'size':>11}{'new':>11}")
    for row in rows:
        seconds = "" if row["seconds"] is None else f"{row['seconds']:.1f}"
        size = "" if row["size_bytes"] is None else size_text(row["size_bytes"])
        added = "" if row["added_bytes"] is None else size_text(row["added_bytes"])
        lines.append(f"  {row['snapshot']:<40}{row['state']:<9}{row['started'][:19]:<22}{seconds:>8}{size:>11}"
                     f"{added:>11}")
        meta = SiteMeta.model_validate(row["holds"])
        lines.append(f"    {_holds(meta)}" + (f"; note: {meta.note}" if meta.note else ""))
        lines += [f"    failed: {f}" for f in row["failures"]]
    return "\n".join(lines)


def _plan_json(p: Plan, repo: Repository, previous: str | None) -> dict:
    return {"snapshot": p.snapshot.name, "repository": repo.describe(), "versions": p.versions, "live": p.live,
            "previous": previous, "query_log_days_restored": p.log_whole, "query_log_days_merged": list(p.log_merge),
            "replaced": p.replace}


def _restore_json(report: RestoreReport) -> dict:
    return {**_plan_json(report.plan, report.repository, report.previous), "papers": report.papers,
            "query_log_entries_added": report.merged.added, "query_log_entries_present": report.merged.present,
            "seconds": round(report.seconds, 2)}


def render_plan(p: Plan, repo: Repository, alias: str, previous: str | None) -> str:
    """What a restore would do (the dry run), in the words of render_restore."""
    assert p.snapshot.meta is not None
    lines = [f"would restore {p.snapshot.name} from {repo.describe()}"]
    if p.replace:
        lines.append(f"  would delete first, to restore in their place: {', '.join(p.replace)}")
    for original, target in p.versions.items():
        name = target if target == original else f"{original} as a new version (named now: {target})"
        lines.append(f"  {name}: {p.snapshot.meta.versions[original]} papers at the backup"
                     + ("  (live)" if target == p.live else ""))
    lines.append(f"  query log: {len(p.log_whole)} days to restore whole"
                 + (f" ({', '.join(p.log_whole)})" if p.log_whole else "")
                 + f", {len(p.log_merge)} to merge" + (f" ({', '.join(p.log_merge)})" if p.log_merge else ""))
    lines.append(f"would point alias {alias} → {p.live} (was {previous or 'none'})")
    if previous and previous not in p.versions.values():
        lines.append(f"the previous live version {previous} would be kept (papersearch-admin prune removes it)")
    return "\n".join(lines)


def render_restore(report: RestoreReport, alias: str) -> str:
    p = report.plan
    lines = [f"restored {p.snapshot.name} from {report.repository.describe()} in {report.seconds:.1f} s"]
    for original, target in p.versions.items():
        name = target if target == original else f"{original} as {target}"
        lines.append(f"  {name}: {report.papers[target]} papers" + ("  (live)" if target == p.live else ""))
    lines.append(f"  query log: {len(p.log_whole)} days restored whole, {len(p.log_merge)} merged "
                 f"({report.merged.added} entries added, {report.merged.present} already there)")
    if p.replace:
        lines.append(f"  replaced: {', '.join(p.replace)}")
    lines.append(f"alias {alias} → {p.live} (was {report.previous or 'none'})")
    if report.previous and report.previous not in p.versions.values():
        lines.append(f"the previous live version {report.previous} is kept (papersearch-admin prune removes it)")
    return "\n".join(lines)
