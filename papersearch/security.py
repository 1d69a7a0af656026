"""Roles and users of the stack, created idempotently with a superuser's client."""

from __future__ import annotations

from elasticsearch import Elasticsearch

from papersearch import credentials

READER_ROLE = "papersearch_reader"
WRITER_ROLE = "papersearch_writer"


def role_bodies(index_patterns: list[str]) -> dict[str, dict]:
    return {
        # The webapp searches and reads index metadata (alias checks) and cluster health, nothing else.
        READER_ROLE: {
            "cluster": ["monitor"],
            "indices": [{"names": index_patterns, "privileges": ["read", "view_index_metadata"]}],
        },
        # The indexer creates versioned indices, writes, swaps aliases and deletes old versions.
        WRITER_ROLE: {
            "cluster": ["monitor"],
            "indices": [{"names": index_patterns, "privileges": ["all"]}],
        },
    }


ROLE_OF_USER = {credentials.WEB: READER_ROLE, credentials.INDEXER: WRITER_ROLE}


def ensure_roles_and_users(
    admin: Elasticsearch, passwords: dict[str, str], index_patterns: list[str] | None = None
) -> None:
    """Create or update both roles and both users through the API (native realm); idempotent."""
    patterns = index_patterns or ["papers*"]
    for name, body in role_bodies(patterns).items():
        admin.security.put_role(name=name, **body)
    for user, role in ROLE_OF_USER.items():
        admin.security.put_user(username=user, password=passwords[user], roles=[role])
