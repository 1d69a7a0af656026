"""papersearch-admin: load papers and manage the live index.

  reindex SOURCE…   full rebuild into a new version, verified, then the alias swaps atomically
  add SOURCE…       upsert into the live index
  delete ID…        remove papers from the live index
  rollback          point the alias back at the previous complete version
  status            alias → index, versions and counts, analysis profile, cluster health, build lock
  prune             delete old versions beyond --keep and leftovers of killed builds
  report            what people searched for and did not find (the query log); querylog prune, prepare
  backup            snapshot the site (versions, alias, query log) into its repository; --keep 30d retention
  backups           the site's snapshots: when, how big, what each holds
  restore           a backup back, beside the live site, then the alias switches (or into an empty cluster)

--dry-run (delete, rollback, prune, querylog prune, restore): say what the command would delete, restore or
move, change nothing; exit 0 when the real run could go ahead, 1 with its error when it would fail.

Exit status: 0 ok; 1 failed; 2 bad usage; 3 finished but some records were rejected or failed
(allow that with --allow-rejects).

A command that seems stuck prints every thread's stack to stderr on SIGUSR1 (`kill -USR1 PID`), and goes on.
"""

from __future__ import annotations

import argparse
import faulthandler
import signal
import sys

from indexer import commands
from indexer.backups import commands as backup_commands
from indexer.querylog import commands as querylog_commands


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="papersearch-admin", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--alias", help="index alias (default: PAPERSEARCH_ALIAS or 'papers')")
    sub = parser.add_subparsers(dest="command", required=True)
    commands.add_parsers(sub)  # every subparser sets its handler (indexer/cli/runner.py runs it)
    querylog_commands.add_parsers(sub)
    backup_commands.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
