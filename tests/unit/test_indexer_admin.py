"""papersearch-admin's parser: every command dispatches to its own handler (set_defaults), and the commands that
delete or replace data take --dry-run. No cluster: parsing only."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from indexer import admin

REQUIRED = {("reindex",): ["f.jsonl"], ("add",): ["f.jsonl"], ("delete",): ["x"],
            ("querylog", "prune"): ["--older-than", "90d"]}  # the arguments a command cannot go without
DRY_RUN = [("delete",), ("rollback",), ("prune",), ("restore",), ("querylog", "prune")]


def leaf_commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> dict[tuple[str, ...],
                                                                                     argparse.ArgumentParser]:
    """Every runnable command (a subparser without subparsers of its own), by its words."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return {path: parser}
    return {words: leaf for name, sub in subs[0].choices.items()
            for words, leaf in leaf_commands(sub, (*path, name)).items()}


def test_every_command_dispatches_to_its_own_handler():
    commands = leaf_commands(admin._parser())
    assert len(commands) == 12 and ("querylog", "prune") in commands and ("querylog", "prepare") in commands
    for words in commands:
        args = admin._parser().parse_args([*words, *REQUIRED.get(words, [])])
        assert callable(args.handler), words
        assert args.handler.__name__ == "run_" + "_".join(words)  # one handler per command, named after it


def test_main_calls_the_parsed_commands_handler(monkeypatch):
    from indexer import commands

    seen = []
    monkeypatch.setattr(commands, "run_status", lambda args: seen.append(args.json) or 7)
    assert admin.main(["status", "--json"]) == 7 and seen == [True]


@pytest.mark.parametrize("words", DRY_RUN, ids=" ".join)
def test_the_commands_that_delete_or_replace_data_take_dry_run_and_say_so_in_help(words):
    parser = admin._parser()
    given = [*words, *REQUIRED.get(words, [])]
    assert parser.parse_args([*given, "--dry-run"]).dry_run is True
    assert parser.parse_args(given).dry_run is False
    shown = " ".join(leaf_commands(parser)[words].format_help().split())
    assert "--dry-run" in shown and "change nothing" in shown and "exit 0 when the real run could go ahead" in shown


def test_prune_keeps_at_least_the_live_version(capsys):
    with pytest.raises(SystemExit) as bad:
        admin._parser().parse_args(["prune", "--keep", "0"])  # used to mean the default, 2, silently
    assert bad.value.code == 2 and "expected a whole number ≥ 1" in capsys.readouterr().err
    assert admin._parser().parse_args(["prune", "--keep", "1"]).keep == 1


def test_parsing_a_dry_run_imports_no_elasticsearch_client():
    # The parser is built (and reindex starts reading) before the client is imported (DECISIONS.md D-011).
    code = ("import sys; from indexer import admin; admin._parser().parse_args(['restore', '--dry-run']); "
            "assert 'elasticsearch' not in sys.modules, 'imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
