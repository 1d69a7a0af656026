"""`papersearch-admin report` and `papersearch-admin querylog prune`: the query log for admins.

    report [--since 7d] [--source page|api|all] [--json]
                                          searches per day, zero-result share, top (zero-result) queries,
                                          retyped queries, median click position, p50/p95 took
    querylog prune --older-than 90d [--dry-run]
                                          delete daily indices of days before that (no ILM here); make the
                                          next days', as prepare does
    querylog prepare [--days N]           make today's and the next N days' indices (default 7): the webapp
                                          appends only to days that exist (DECISIONS.md D-188)
"""

from __future__ import annotations

import argparse
import unicodedata
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the admin builds its parser before it imports the client (indexer.admin)
    from elasticsearch import Elasticsearch

    from indexer.querylog.report import Report

from indexer.cli.exit_codes import EXIT_FAILED, EXIT_OK
from indexer.cli.runner import Session, add_dry_run, command
from papersearch import querylog_schema

SOURCES = ("page", "api", "all")  # the values of the events' `source`, and all of them
_SOURCE_NAMES = {"page": "search page only", "api": "API only", "all": "search page and API"}


def duration(text: str) -> timedelta:
    from indexer.querylog.report import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parsers(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser("report", help="what people searched for, and did not find (the query log)")
    cmd.add_argument("--since", type=duration, default=timedelta(days=7), help="how far back (default 7d)")
    cmd.add_argument("--source", choices=SOURCES, default="page",
                     help="the search page's events (default), the API's, or all")
    cmd.add_argument("--json", action="store_true")
    cmd.set_defaults(handler=run_report)
    cmd = sub.add_parser("querylog", help="manage the query log's daily indices")
    actions = cmd.add_subparsers(dest="querylog_command", required=True)
    prune = actions.add_parser("prune", help="delete the daily indices older than --older-than")
    prune.add_argument("--older-than", type=duration, required=True, help="e.g. 90d")
    prune.add_argument("--yes", action="store_true")
    add_dry_run(prune, "which daily indices it would delete")
    prune.set_defaults(handler=run_querylog_prune)
    ahead = actions.add_parser("prepare", help="make today's and the next days' indices (the webapp cannot)")
    ahead.add_argument("--days", type=_days_ahead, default=None,
                       help="days after today (default 7, at most 31)")
    ahead.set_defaults(handler=run_querylog_prepare)


def _days_ahead(text: str) -> int:
    try:
        days = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of days: {text!r}") from None
    if not 0 <= days <= MAX_DAYS_AHEAD:
        raise argparse.ArgumentTypeError(f"must be 0 to {MAX_DAYS_AHEAD} (each day is an index), got {days}")
    return days


# Each day made ahead is an empty one-shard index; a month is plenty for a missed cron.
MAX_DAYS_AHEAD = 31


def old_days(client: Elasticsearch, base: str, older_than: timedelta, now: datetime | None = None) -> list[str]:
    """The daily indices whose whole day lies before now − older_than: what prune deletes."""
    from indexer.querylog.report import log_indices

    cutoff = ((now or datetime.now(UTC)) - older_than).date()
    return [name for name, day in log_indices(client, base).items() if day < cutoff]


def prune(client: Elasticsearch, base: str, older_than: timedelta, now: datetime | None = None) -> list[str]:
    """Delete the daily indices whose whole day lies before now − older_than; the names deleted."""
    doomed = old_days(client, base, older_than, now)
    if doomed:
        client.indices.delete(index=",".join(doomed))  # by name: wildcard deletes are refused
    return doomed


@command
def run_report(args: argparse.Namespace, session: Session) -> int:
    from indexer.querylog.report import build

    base = session.settings.query_log_index
    report = build(session.client, base, args.since, source=args.source)
    print(report.model_dump_json(indent=2) if args.json else render(report, base))
    return EXIT_OK


@command
def run_querylog_prune(args: argparse.Namespace, session: Session) -> int:
    base = session.settings.query_log_index
    if args.dry_run:
        doomed = old_days(session.client, base, args.older_than)
        print(f"would delete {len(doomed)}: {', '.join(doomed) or '-'}")
        return EXIT_OK
    days = args.older_than.days
    if not session.confirm(f"delete query-log indices {base}-* of days more than {days} days ago?", args.yes):
        return EXIT_FAILED
    deleted = prune(session.client, base, args.older_than)
    print(f"deleted {len(deleted)}: {', '.join(deleted) or '-'}")
    querylog_schema.prepare_days_if_allowed(session.client, base)  # the daily cron keeps the webapp's days ahead
    return EXIT_OK


@command
def run_querylog_prepare(args: argparse.Namespace, session: Session) -> int:
    days = querylog_schema.DAYS_AHEAD if args.days is None else args.days
    base = session.settings.query_log_index
    made = querylog_schema.prepare_days(session.client, base, ahead=days)
    print(f"query log days through {querylog_schema.days_to_prepare(base, ahead=days)[-1]}: "
          f"made {len(made)}{': ' + ', '.join(made) if made else ''}")
    return EXIT_OK


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def render(report: Report, base: str) -> str:
    span = f"{report.since:%Y-%m-%d %H:%M} – {report.until:%Y-%m-%d %H:%M} UTC"
    if not report.indices:
        return f"query log {base}: no entries {span}"
    position = "-" if report.median_click_position is None else f"{report.median_click_position:g}"
    lines = [
        f"query log {base}, {span} ({len(report.indices)} daily indices), {_SOURCE_NAMES[report.source]}",
        f"searches {report.searches}, zero results {report.zero_result} "
        f"({_percent(report.zero_result, report.searches)}), took p50 {_ms(report.took_p50_ms)}, "
        f"p95 {_ms(report.took_p95_ms)}",
        f"result clicks {report.clicks}, median click position {position}",
        "",
        f"{'day':<12}{'searches':>10}{'zero results':>14}",
    ]
    lines += [f"{row.day.isoformat():<12}{row.searches:>10}{_percent(row.zero_result, row.searches):>14}"
              for row in report.days]
    for title, rows in (("top queries", report.top_queries),
                        ("top zero-result queries", report.top_zero_result_queries)):
        lines += ["", f"{_cell(title, 50)}{'searches':>10}"]
        lines += [f"{_cell(row.query, 50)}{row.searches:>10}" for row in rows] or ["  (none)"]
    lines += ["", f"{_cell('retyped within a minute → most often to', 70)}{'times':>8}"]
    lines += [f"{_cell(_cell(row.query, 33).rstrip() + ' → ' + row.next_query, 70)}{row.times:>8}"
              for row in report.retyped] or ["  (none)"]
    return "\n".join(lines)


def _width(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def _cell(text: str, width: int) -> str:
    """`text` cut and padded to `width` terminal columns (Chinese characters take two)."""
    out, used = [], 0
    for char in text:
        if used + _width(char) > width - 1:
            out.append("…")
            used += 1
            break
        out.append(char)
        used += _width(char)
    return "".join(out) + " " * (width - used)
