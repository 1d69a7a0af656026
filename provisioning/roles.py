"""Roles and users of the stack, created idempotently with a superuser's client.

`role_bodies` is the one definition of the roles: the local node writes it into the file realm's
roles.yml (provisioning/localnode), a real cluster gets it through the security API (below).
"""

from __future__ import annotations

from elasticsearch import Elasticsearch

from papersearch import credentials, querylog_schema
from papersearch.role_index_names import searchable, site_indices, without_query_log

READER_ROLE = "papersearch_reader"
WRITER_ROLE = "papersearch_writer"
BACKUP_ROLE = "papersearch_backup"


def role_bodies(index_patterns: list[str], site_alias: str | None = None) -> dict[str, dict]:
    """The roles over the papers' indices `index_patterns`. With `site_alias` (a site of its own on a shared
    cluster: the Docker stack, the security API) the web role reads that site's alias and versions only."""
    papers = [without_query_log(p) for p in index_patterns]
    readable = [searchable(p) for p in (site_indices(site_alias) if site_alias else index_patterns)]
    log = [querylog_schema.INDEX_PATTERN]
    return {
        # The webapp searches, counts and reads its alias's mapping and existence (view_index_metadata); it
        # calls nothing cluster-wide, so no cluster privilege (no _nodes, no _tasks: issue 45.6), and it
        # neither reads nor lists (_resolve/index) the build-lock indices, nor another site's (issue 53.7).
        # It appends to the query log's days that exist: create_doc alone cannot create an index
        # (auto_configure or create_index would let any name under the pattern be made: DECISIONS.md D-188).
        READER_ROLE: {
            "cluster": [],
            "indices": [{"names": readable, "privileges": ["read", "view_index_metadata"]},
                        {"names": log, "privileges": ["create_doc"]}],
        },
        # The indexer creates versioned indices, writes, swaps aliases and deletes old versions; it reads
        # the query log (report), makes its days ahead (querylog_schema.prepare_days) and deletes old ones
        # (prune); appending is the backup role's. It owns the query log's index template.
        WRITER_ROLE: {
            "cluster": ["monitor", "manage_index_templates"],
            "indices": [{"names": papers, "privileges": ["all"]},
                        {"names": log, "privileges": ["read", "create_index", "delete_index"]}],
        },
        # papersearch-admin backup, backups and restore (DECISIONS.md D-127): snapshot and
        # repository actions are cluster-wide, so only the ones the commands use, by action name; on its own
        # enough for the commands (checks, the alias switch, merging restored query-log entries by id).
        BACKUP_ROLE: {
            "cluster": ["monitor", "create_snapshot", "cluster:admin/repository/put",
                        "cluster:admin/repository/verify", "cluster:admin/snapshot/delete",
                        "cluster:admin/snapshot/restore"],
            "indices": [{"names": papers, "privileges": ["read", "view_index_metadata", "manage", "write"]},
                        {"names": log, "privileges": ["read", "view_index_metadata", "monitor", "maintenance",
                                                      "create_doc", "delete_index"]}],
        },
    }


# The indexer's user runs every papersearch-admin command, backups included.
ROLES_OF_USER = {credentials.WEB: (READER_ROLE,), credentials.INDEXER: (WRITER_ROLE, BACKUP_ROLE)}


def ensure_roles_and_users(
    admin: Elasticsearch, passwords: dict[str, str], index_patterns: list[str] | None = None,
    site_alias: str | None = None,
) -> None:
    """Create or update both roles and both users through the API (native realm); idempotent."""
    patterns = index_patterns or ["papers*"]
    for name, body in role_bodies(patterns, site_alias).items():
        admin.security.put_role(name=name, **body)
    for user, roles in ROLES_OF_USER.items():
        admin.security.put_user(username=user, password=passwords[user], roles=list(roles))
