"""The roles as this checkout provisions them, in force on the real node (issue 53.7; DECISIONS.md D-188).

A throw-away user holds them (tests/realm_users.py), so the test judges the code's roles, not those the shared
node was started with: the web role cannot make an index by writing to it, yet the query log goes on across the
day's turn in days the indexer's role makes; a site with its own alias neither reads nor lists another's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from elasticsearch import AuthorizationException
from realm_users import user_with_roles
from support import delete_alias_indices

from papersearch import querylog_schema
from provisioning import stack_setup
from provisioning.roles import BACKUP_ROLE, READER_ROLE, WRITER_ROLE, role_bodies
from webapp.querylog_writer import NO_DAY, QueryLogWriter

LOCAL_ROLES = role_bodies(["papers*"])  # the local node's (provisioning/localnode/realm.py)
ROOT = Path(__file__).resolve().parents[2]
ADMIN_CLI = str(Path(sys.executable).parent / "papersearch-admin")


def test_the_web_role_cannot_make_an_index_and_the_log_goes_on_over_midnight(cluster, admin, query_log_base):
    base = query_log_base
    with user_with_roles(cluster, {"web": LOCAL_ROLES[READER_ROLE]}) as (web, *_), \
            user_with_roles(cluster, {"indexer": LOCAL_ROLES[WRITER_ROLE]}) as (indexer, *_):
        # Any name under the log's pattern, by every way a document can be sent: nothing is made.
        new = f"{querylog_schema.INDEX_PATTERN[:-1]}anything-new-{uuid.uuid4().hex[:6]}"
        answer = web.options(ignore_status=403).bulk(operations=[{"create": {"_index": new}}, {"event": "search"}])
        assert answer["items"][0]["create"]["status"] == 403
        with pytest.raises(AuthorizationException):
            web.index(index=new, document={"event": "search"}, op_type="create")
        with pytest.raises(AuthorizationException):
            web.indices.create(index=new)
        assert not admin.indices.exists(index=new)

        # The indexer's role makes the days ahead (every build, `querylog prepare`, `querylog prune`).
        # Days a month off, which nothing else made.
        just_before_midnight = (datetime.now(UTC) + timedelta(days=30)).replace(hour=23, minute=59, second=58)
        made = querylog_schema.prepare_days(indexer, base, just_before_midnight, ahead=1, template=False)
        today, tomorrow = querylog_schema.days_to_prepare(base, just_before_midnight, ahead=1)
        assert made == [today, tomorrow]
        beyond = querylog_schema.daily_index(base, just_before_midnight + timedelta(days=2))

        dropped: list[tuple[int, str]] = []
        writer = QueryLogWriter(web, base, flush_every=0.1, on_drop=lambda n, why: dropped.append((n, why)))
        for offset in (0, 1, 3, 5, 2 * 86400 + 1):  # the last one: a day nobody made
            writer.submit(querylog_schema.SearchEvent(
                timestamp=just_before_midnight + timedelta(seconds=offset), query_id=querylog_schema.new_query_id(),
                q="midnight", sort="relevance", page=1, size=10, total=1, took_ms=1, lang="en", source="page"))
        assert writer.flush(30)
        writer.close()
        admin.indices.refresh(index=f"{today},{tomorrow}")
        assert admin.count(index=today)["count"] == 2 and admin.count(index=tomorrow)["count"] == 2
        assert dropped == [(1, NO_DAY)]  # counted, not made
        assert not admin.indices.exists(index=beyond)


def test_a_site_reads_and_lists_only_its_own_indices(cluster, admin, alias):
    """Two sites on one cluster, `<alias>` and `<alias>x` (a name the old `<alias>*` grant covered)."""
    other = f"{alias}x"
    for index, name in ((f"{alias}-1", alias), (f"{other}-1", other)):
        admin.indices.create(index=index, aliases={name: {}})
        admin.index(index=index, document={"title": f"paper of {name}"}, refresh=True)
    config = stack_setup.read_config({"ES_URL": cluster.url, "ES_PASSWORD": "indexer-secret",
                                      "ES_WEB_PASSWORD": "web-secret", "PAPERSEARCH_ALIAS": alias}, superuser=False)
    try:
        roles = role_bodies(config.index_patterns, config.alias)  # what stack_setup provisions for this site
        with user_with_roles(cluster, {"web": roles[READER_ROLE]}) as (web, *_):
            assert web.count(index=alias)["count"] == 1  # its own alias and versions
            assert web.count(index=f"{alias}-1")["count"] == 1
            for index in (other, f"{other}-1"):
                with pytest.raises(AuthorizationException):
                    web.search(index=index)
            listed = web.indices.resolve_index(name="*")
            names = {i["name"] for i in listed["indices"]} | {a["name"] for a in listed["aliases"]}
            assert names == {alias, f"{alias}-1"}, names
            assert web.count(index=f"{alias}*")["count"] == 1  # a wildcard finds only what it may read
    finally:
        delete_alias_indices(admin, other)


def test_querylog_prepare_makes_the_next_days_as_the_indexer(cluster, admin, query_log_base):
    """`papersearch-admin querylog prepare` (make serve runs it; cron may) with the indexer's roles of this code."""
    with user_with_roles(cluster, {"writer": LOCAL_ROLES[WRITER_ROLE], "backup": LOCAL_ROLES[BACKUP_ROLE]}) as probe:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ES_", "PAPERSEARCH_"))}
        env |= {"ES_URL": cluster.url, "ES_USERNAME": probe.user, "ES_PASSWORD": probe.password,
                "PAPERSEARCH_QUERY_LOG_INDEX": query_log_base}

        def prepare(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run([ADMIN_CLI, "querylog", "prepare", *args], env=env, cwd=ROOT, capture_output=True,
                                  text=True, timeout=120, stdin=subprocess.DEVNULL)

        days = querylog_schema.days_to_prepare(query_log_base, ahead=3)
        done = prepare("--days", "3")
        assert (done.returncode, done.stdout) == (0, f"query log days through {days[-1]}: made 2: "
                                                     f"{days[2]}, {days[3]}\n"), done.stderr  # 0, 1: the fixture's
        assert admin.indices.exists(index=",".join(days))
        again = prepare("--days", "3")
        assert (again.returncode, again.stdout) == (0, f"query log days through {days[-1]}: made 0\n")
        too_many = prepare("--days", "40")
        assert too_many.returncode == 2 and "must be 0 to 31" in too_many.stderr
