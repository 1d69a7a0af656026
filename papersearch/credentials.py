"""Local credentials: generated once, kept in .local/credentials.json (0600, never in git)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from papersearch.paths import credentials_file

# The three identities of the local stack: the superuser (bootstrap only), the indexer (writes
# papers* indices and aliases) and the webapp (read-only).
ELASTIC = "elastic"
INDEXER = "papersearch_indexer"
WEB = "papersearch_web"


def load(path: Path | None = None) -> dict[str, str]:
    path = path or credentials_file()
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def ensure(path: Path | None = None) -> dict[str, str]:
    """Return the local passwords, creating any that are missing (file mode 0600)."""
    path = path or credentials_file()
    creds = load(path)
    missing = [u for u in (ELASTIC, INDEXER, WEB) if u not in creds]
    if missing:
        for user in missing:
            creds[user] = secrets.token_urlsafe(24)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(creds, f, indent=2)
    os.chmod(path, 0o600)
    return creds
