"""Signed query ids (webapp/controllers/query_ids.py) and the secret they are signed with."""

from __future__ import annotations

import multiprocessing
import re
import stat
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from itsdangerous import TimestampSigner

from papersearch import credentials, querylog_schema
from papersearch.settings import Settings
from provisioning import stack_setup
from webapp.controllers.events import MAX_BEACON_BYTES
from webapp.controllers.query_ids import MAX_AGE, MAX_SHOWN, TOKEN_PATTERN, Expired, QueryIds

KEY = b"k" * 32


PAPERS = [f"paper-{i}" for i in range(11, 21)]


def test_a_token_says_what_was_issued_and_nothing_else_passes():
    ids = QueryIds(KEY)
    query_id = querylog_schema.new_query_id()
    token = ids.issue(query_id, "page", offset=10, paper_ids=PAPERS)
    assert re.fullmatch(TOKEN_PATTERN, token) and token.startswith(f"{query_id}.page.11.20.")
    issued = ids.verify(token)
    assert (issued.query_id, issued.source, issued.first, issued.last) == (query_id, "page", 11, 20)
    assert abs((datetime.now(UTC) - issued.issued_at).total_seconds()) < 60
    assert issued.shows(11) and issued.shows(20) and not issued.shows(10) and not issued.shows(21)

    body = token.rsplit(".", 1)[0]
    forged = [
        token.replace(".page.", ".api."),  # another source
        token.replace(".11.20.", ".1.100."),  # a wider range
        token.replace(".11.20.", ".11.19."),  # marks that do not fit the range
        f"{querylog_schema.new_query_id()}{token[32:]}",  # another search's id
        f"{body}.{'A' * 43}",  # a made-up signature
        body,  # no signature
        token + "x",
    ]
    assert [ids.verify(t) for t in forged] == [None] * len(forged)
    assert QueryIds(b"x" * 32).verify(token) is None  # another server's key


def test_a_click_counts_only_for_the_paper_shown_at_its_position():
    ids = QueryIds(KEY)
    issued = ids.verify(ids.issue(querylog_schema.new_query_id(), "page", offset=10, paper_ids=PAPERS))
    assert [ids.shown_at(issued, 11 + i, pid) for i, pid in enumerate(PAPERS)] == [True] * 10
    assert not ids.shown_at(issued, 12, PAPERS[0])  # shown, but elsewhere
    assert not ids.shown_at(issued, 11, "ANY-STRING-<script>")  # the probe's id
    assert not ids.shown_at(issued, 21, PAPERS[0])  # not a position shown


def test_tokens_expire(monkeypatch):
    ids = QueryIds(KEY)
    fresh = ids.issue(querylog_schema.new_query_id(), "page", offset=0, paper_ids=PAPERS)
    now = int(time.time())
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: now - MAX_AGE - 5)
    old = ids.issue(querylog_schema.new_query_id(), "page", offset=0, paper_ids=PAPERS)
    monkeypatch.undo()
    assert ids.verify(fresh) is not None
    with pytest.raises(Expired):
        ids.verify(old)


def test_a_search_without_results_gives_no_position():
    issued = QueryIds(KEY).verify(QueryIds(KEY).issue(querylog_schema.new_query_id(), "api", offset=0, paper_ids=[]))
    assert issued is not None and not issued.shows(1) and not issued.shows(0)


def test_the_largest_page_fits_the_pattern_and_a_beacon():
    ids = QueryIds(KEY)
    token = ids.issue(querylog_schema.new_query_id(), "api", offset=9_900, paper_ids=["p" * 512] * MAX_SHOWN)
    click = f'{{"type":"click","query_id":"{token}","position":10000,"paper_id":"{"p" * 512}"}}'
    assert re.fullmatch(TOKEN_PATTERN, token) and len(click.encode()) <= MAX_BEACON_BYTES


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


def test_the_replicas_key_file_is_written_once_by_setup_and_read_by_every_replica(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PAPERSEARCH_LOCAL_DIR", str(tmp_path / "local"))
    key_file = tmp_path / "keys" / "secret-key"
    with pytest.raises(ValueError, match=f"PAPERSEARCH_SECRET_KEY_FILE {key_file}: No such file"):
        Settings(PAPERSEARCH_SECRET_KEY_FILE=str(key_file)).signing_key()  # never made up by a replica
    say: list[str] = []
    stack_setup._ensure_secret_key(key_file, say.append)
    first = key_file.read_text()
    stack_setup._ensure_secret_key(key_file, say.append)  # a second setup run keeps it
    assert key_file.read_text() == first and say == [f"signing secret {key_file}: generated",
                                                     f"signing secret {key_file}: kept"]
    replicas = {Settings(PAPERSEARCH_SECRET_KEY_FILE=str(key_file)).signing_key() for _ in range(3)}
    assert replicas == {first.encode()}
    assert not (tmp_path / "local").exists(), "no per-host key beside it"
    key_file.write_text("short\n")
    with pytest.raises(ValueError, match="5 characters, at least 32 needed"):
        Settings(PAPERSEARCH_SECRET_KEY_FILE=str(key_file)).signing_key()
    with pytest.raises(stack_setup.SetupFailed, match="at least 32"):
        stack_setup._ensure_secret_key(key_file, say.append)


def test_a_token_is_valid_only_on_the_site_that_issued_it():
    """Issue 45.8: two sites on one secret (a checkout's .local/secret-key) refuse each other's tokens."""
    qid = querylog_schema.new_query_id()
    a, b = QueryIds(KEY, "papers|papersearch-querylog"), QueryIds(KEY, "papers_b|papersearch-querylog_b")
    token = a.issue(qid, "page", 0, ["p1"])
    assert a.verify(token) is not None and b.verify(token) is None
    assert a.mark(qid, 1, "p1") != b.mark(qid, 1, "p1")


def test_a_beacon_this_site_never_signed_is_forbidden():
    """Issue 44.11: a well-formed click whose query id another key signed is refused 403 (not the site's own), as
    the OpenAPI document says; a real token for a position its search did not show stays a 400."""
    from webapp import openapi
    from webapp.controllers.events import Recorder, UnknownQuery
    from webapp.controllers.params import ParamError, RequestArgs
    from webapp.services.search_settings import search_config

    recorder = Recorder(None, QueryIds(KEY, "site"))
    forged = QueryIds(b"f" * 32, "site").issue(querylog_schema.new_query_id(), "page", 0, PAPERS)
    with pytest.raises(UnknownQuery) as refused:
        recorder.beacon(f'{{"type":"click","query_id":"{forged}","position":1,"paper_id":"{PAPERS[0]}"}}'.encode())
    assert refused.value.status == 403
    real = QueryIds(KEY, "site").issue(querylog_schema.new_query_id(), "page", 0, PAPERS)
    with pytest.raises(ParamError) as bad:
        recorder.beacon(f'{{"type":"click","query_id":"{real}","position":99,"paper_id":"{PAPERS[0]}"}}'.encode())
    assert bad.value.status == 400
    responses = openapi.document(RequestArgs(search_config()))["paths"]["/api/events"]["post"]["responses"]
    assert "never signed" in responses["403"]["description"]
