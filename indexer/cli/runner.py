"""How each papersearch-admin command runs once parsed: every subparser's `handler` (set with set_defaults) is a
command body wrapped here — settings from the environment and --alias, the log format, one client, and any
failure turned into one line on stderr and exit 1. Light to import: the parser is built, and `reindex` starts
reading its sources, before the Elasticsearch client is imported (DECISIONS.md D-011).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elasticsearch import Elasticsearch

    from indexer.loading.prepare import Producer
    from papersearch.settings import Settings

from indexer.cli.exit_codes import EXIT_FAILED

Handler = Callable[[argparse.Namespace], int]


@dataclass
class Session:
    """What a command's body works with."""

    settings: Settings
    client: Elasticsearch
    producer: Producer | None = None  # reindex/add: the reading already under way

    @property
    def alias(self) -> str:
        return self.settings.alias

    @staticmethod
    def confirm(question: str, yes: bool) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            print(f"{question} — refusing without --yes (no terminal to ask)", file=sys.stderr)
            return False
        return input(f"{question} [y/N] ").strip().lower() == "y"


Body = Callable[[argparse.Namespace, Session], int]


def add_dry_run(cmd: argparse.ArgumentParser, what: str) -> None:
    """The --dry-run flag of a command that deletes or replaces data (one wording for all of them)."""
    cmd.add_argument("--dry-run", action="store_true",
                     help=f"say {what}, change nothing, ask nothing; exit 0 when the real run could go ahead, "
                          "1 with its error when it would fail")


def command(body: Body) -> Handler:
    """The handler of one command: `body` run with a Session, its failures as one line and exit 1."""
    @functools.wraps(body)
    def handler(args: argparse.Namespace) -> int:
        return _run(body, args, None)

    return handler


def loading_command(body: Body) -> Handler:
    """`command` for reindex/add: reading the sources starts first, before the Elasticsearch client is even
    imported, so parsing overlaps start-up, taking the lock and creating the index (DECISIONS.md D-011)."""
    @functools.wraps(body)
    def handler(args: argparse.Namespace) -> int:
        from indexer.loading.prepare import start
        from indexer.loading.readers import SourceError

        producer = None
        if not getattr(args, "if_missing", False):  # --if-missing may read nothing at all
            try:
                producer = start(args.sources)
            except SourceError as exc:
                print(f"papersearch-admin: {exc} (nothing was written)", file=sys.stderr)
                return EXIT_FAILED
        return _run(body, args, producer)

    return handler


def _run(body: Body, args: argparse.Namespace, producer: Producer | None) -> int:
    from elasticsearch import ApiError, TransportError

    from indexer.backups.repository import BackupError
    from indexer.build_lock import LockBusy
    from indexer.cli.refusals import explain_refusal
    from indexer.loading.loader import WritesBlocked
    from indexer.loading.readers import SourceError
    from indexer.operations import BuildFailed
    from papersearch import logs
    from papersearch.concepts import GlossaryError
    from papersearch.es import make_client
    from papersearch.settings import Settings

    settings = Settings(**({"PAPERSEARCH_ALIAS": args.alias} if args.alias else {}))
    logs.configure(settings.log_format, text_format="%(message)s")
    try:
        return body(args, Session(settings, make_client("indexer", settings, request_timeout=120), producer))
    except (SourceError, GlossaryError) as exc:
        print(f"papersearch-admin: {exc} (nothing was written)", file=sys.stderr)
    except (LockBusy, BuildFailed, LookupError, BackupError) as exc:
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
