"""Local credentials: generated once, kept in .local/ (0600, never in git): the node's passwords in
credentials.json, the webapp's signing secret in secret-key (when PAPERSEARCH_SECRET_KEY is not set)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from papersearch.paths import credentials_file, local_dir

# The three identities of the local stack: the superuser (bootstrap only), the indexer (writes
# papers* indices and aliases) and the webapp (read-only).
ELASTIC = "elastic"
INDEXER = "papersearch_indexer"
WEB = "papersearch_web"
# Secrets in .env.example start with this; a stack must not run with them.
PLACEHOLDER_PREFIX = "change-me"
MIN_SECRET_KEY = 32  # characters of the webapp's signing secret


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


def secret_key(path: Path | None = None) -> str:
    """The local signing secret, created on first use. Every gunicorn worker starts at once and calls this:
    the file is written whole under another name and linked into place, so the first one wins and every
    worker reads the same key."""
    path = path or local_dir() / "secret-key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32))
        try:
            os.link(draft, path)  # fails when another process was first
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


def checked_secret_key(value: str, where: str) -> str:
    """`value` when it is long enough to sign with; ValueError naming `where` otherwise."""
    if len(value) < MIN_SECRET_KEY:
        raise ValueError(f"{where}: {len(value)} characters, at least {MIN_SECRET_KEY} needed")
    return value
