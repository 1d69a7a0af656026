"""papersearch-admin: load papers and manage the live index.

  reindex SOURCE…   full rebuild into a new version, verified, then the alias swaps atomically
  add SOURCE…       upsert into the live index
  delete ID…        remove papers from the live index
  rollback          point the alias back at the previous complete version
  status            alias → index, versions and counts, analysis profile, cluster health, build lock
  prune             delete old versions beyond --keep and leftovers of killed builds
  report            what people searched for and did not find (the query log); querylog prune
  backup            snapshot the site (versions, alias, query log) into its repository; --keep 30d retention
  backups           the site's snapshots: when, how big, what each holds
  restore           a backup back, beside the live site, then the alias switches (or into an empty cluster)

Exit status: 0 ok; 1 failed; 2 bad usage; 3 finished but some records were rejected or failed
(allow that with --allow-rejects).

A command that seems stuck prints every thread's stack to stderr on SIGUSR1 (`kill -USR1 PID`), and goes on.
"""

from __future__ import annotations

import argparse
import faulthandler
import signal
import sys
from pathlib import Path

from indexer import backup_admin, querylog_admin
from indexer.exit_codes import EXIT_FAILED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="papersearch-admin", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alias", help="index alias (default: PAPERSEARCH_ALIAS or 'papers')")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("reindex", "add"):
        cmd = sub.add_parser(name, help=f"{name} papers from files (listing pages, JSON Lines, arXiv snapshot)")
        cmd.add_argument("sources", nargs="+", type=Path)
        cmd.add_argument("--rejects", type=Path, help="rejects file (JSON Lines; default under .local/rejects/)")
        cmd.add_argument("--allow-rejects", action="store_true", help="exit 0 even if records were rejected")
        cmd.add_argument("--no-progress", action="store_true")
        if name == "reindex":
            cmd.add_argument("--allow-empty", action="store_true", help="swap even if no paper was accepted")
            cmd.add_argument("--if-missing", action="store_true",
                             help="do nothing when the alias already exists (first-start sample loading)")
    cmd = sub.add_parser("delete", help="delete papers by id")
    cmd.add_argument("ids", nargs="+")
    cmd.add_argument("--yes", action="store_true")
    cmd = sub.add_parser("rollback", help="point the alias at the previous version")
    cmd.add_argument("--yes", action="store_true")
    cmd = sub.add_parser("status", help="show alias, versions, cluster health")
    cmd.add_argument("--json", action="store_true")
    cmd = sub.add_parser("prune", help="delete old versions")
    cmd.add_argument("--keep", type=int, help="complete versions to keep, the live one included")
    cmd.add_argument("--yes", action="store_true")
    querylog_admin.add_parsers(sub)
    backup_admin.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    from indexer.prepare import Producer, start
    from indexer.readers import SourceError

    producer: Producer | None = None
    if args.command in ("reindex", "add") and not getattr(args, "if_missing", False):
        # Reading starts before the Elasticsearch client is even imported, so parsing overlaps start-up,
        # taking the lock and creating the index (DECISIONS.md D-011).
        try:
            producer = start(args.sources)
        except SourceError as exc:
            print(f"papersearch-admin: {exc} (nothing was written)", file=sys.stderr)
            return EXIT_FAILED
    from indexer.commands import run_command

    return run_command(args, producer)


if __name__ == "__main__":
    sys.exit(main())
