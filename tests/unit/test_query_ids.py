"""Signed query ids (webapp/controllers/query_ids.py) and the secret they are signed with."""

from __future__ import annotations

import multiprocessing
import re
import stat
from pathlib import Path

import pytest

from papersearch import credentials, querylog
from papersearch.settings import Settings
from webapp.controllers.query_ids import TOKEN_PATTERN, Issued, QueryIds

KEY = b"k" * 32


def test_a_token_says_what_was_issued_and_nothing_else_passes():
    ids = QueryIds(KEY)
    query_id = querylog.new_query_id()
    token = ids.issue(query_id, "page", offset=10, shown=10)
    assert re.fullmatch(TOKEN_PATTERN, token) and token.startswith(f"{query_id}.page.11.20.")
    issued = ids.verify(token)
    assert issued == Issued(query_id, "page", 11, 20)
    assert issued.shows(11) and issued.shows(20) and not issued.shows(10) and not issued.shows(21)

    body = token.rsplit(".", 1)[0]
    forged = [
        token.replace(".page.", ".api."),  # another source
        token.replace(".11.20.", ".1.100."),  # a wider range
        f"{querylog.new_query_id()}{token[32:]}",  # another search's id
        f"{body}.{'A' * 43}",  # a made-up signature
        body,  # no signature
        token + "x",
    ]
    assert [ids.verify(t) for t in forged] == [None] * len(forged)
    assert QueryIds(b"x" * 32).verify(token) is None  # another server's key


def test_a_search_without_results_gives_no_position():
    issued = QueryIds(KEY).verify(QueryIds(KEY).issue(querylog.new_query_id(), "api", offset=0, shown=0))
    assert issued is not None and not issued.shows(1) and not issued.shows(0)


def _read_key(path: str, start, queue) -> None:
    start.wait()
    queue.put(credentials.secret_key(Path(path)))


def test_the_local_key_is_made_once_even_when_workers_start_together(tmp_path: Path):
    """gunicorn's workers start at the same moment: all of them must end up with the same key."""
    path = tmp_path / "secret-key"
    context = multiprocessing.get_context("fork")
    start, queue = context.Event(), context.Queue()
    workers = [context.Process(target=_read_key, args=(str(path), start, queue)) for _ in range(8)]
    for w in workers:
        w.start()
    start.set()
    keys = {queue.get(timeout=30) for _ in workers}
    for w in workers:
        w.join(30)
    assert len(keys) == 1 and len(keys.pop()) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["secret-key"]  # no drafts left behind


def test_the_secret_comes_from_the_environment_or_local_file(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PAPERSEARCH_LOCAL_DIR", str(tmp_path))
    assert Settings(PAPERSEARCH_SECRET_KEY="s" * 32).signing_key() == b"s" * 32
    local = Settings().signing_key()
    assert local == (tmp_path / "secret-key").read_text().strip().encode() == Settings().signing_key()
    assert Settings(PAPERSEARCH_SECRET_KEY="").secret_key is None  # compose's ${PAPERSEARCH_SECRET_KEY:-}
    with pytest.raises(ValueError, match="at least 32"):
        Settings(PAPERSEARCH_SECRET_KEY="short")
    with pytest.raises(ValueError, match="placeholder"):
        Settings(PAPERSEARCH_SECRET_KEY="change-me-query-id-signing-secret-xxxxxxxx").signing_key()
