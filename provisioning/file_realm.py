"""Elasticsearch's file realm as files: `users` (name:hash), `users_roles` (role:names) and `roles.yml`.

The local node writes roles.yml next to its own tools' users files (provisioning/localnode/realm.py);
the Docker stack's setup service writes all three into a volume the Elasticsearch containers read
(provisioning/stack_setup.py, DECISIONS.md D-063). Password
hashes are Elasticsearch's PBKDF2 format, `{PBKDF2}<iterations>$<salt>$<key>` (HMAC-SHA512, 32-byte
salt and key, base64), so no Elasticsearch tool (a JVM per call) is needed to make them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from provisioning.roles import ROLES_OF_USER, role_bodies

# One of the costs Elasticsearch's Hasher accepts (1000, 10000, 50000, 100000, 500000, 1000000);
# verified once per cache period, not per request.
PBKDF2_ITERATIONS = 100_000
_PREFIX = "{PBKDF2}"
FILES = ("users", "users_roles", "roles.yml")


def password_hash(password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    salt = salt if salt is not None else secrets.token_bytes(32)
    key = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations, 32)
    return f"{_PREFIX}{iterations}${base64.b64encode(salt).decode()}${base64.b64encode(key).decode()}"


def hash_matches(stored: str, password: str) -> bool:
    """Whether a hash written by password_hash is of this password (to keep unchanged files as they are)."""
    if not stored.startswith(_PREFIX):
        return False
    try:
        iterations, salt, _ = stored[len(_PREFIX):].split("$")
        candidate = password_hash(password, base64.b64decode(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(candidate, stored)


def roles_yaml(roles: dict[str, dict]) -> str:
    """roles.yml for the file realm (its parser wants block YAML per role; lists as JSON flow style)."""
    out = ["# Written by papersearch from provisioning/roles.py; do not edit."]
    for name, body in roles.items():
        out += [f"{name}:", f"  cluster: {json.dumps(body['cluster'])}", "  indices:"]
        for entry in body["indices"]:
            out += [f"    - names: {json.dumps(entry['names'])}",
                    f"      privileges: {json.dumps(entry['privileges'])}"]
    return "\n".join(out) + "\n"


def _read_users(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    pairs = (line.split(":", 1) for line in path.read_text(encoding="utf-8").splitlines() if ":" in line)
    return {name.strip(): value.strip() for name, value in pairs}


def render(directory: Path, passwords: dict[str, str], index_patterns: list[str],
           site_alias: str | None = None) -> dict[str, str]:
    """The three files' contents; a stored hash that still matches its password is kept."""
    stored = _read_users(directory / "users")
    hashes = {user: stored[user] if hash_matches(stored.get(user, ""), password) else password_hash(password)
              for user, password in passwords.items()}
    by_role: dict[str, list[str]] = {}
    for user in passwords:
        for role in ROLES_OF_USER[user]:
            by_role.setdefault(role, []).append(user)
    return {
        "users": "".join(f"{user}:{value}\n" for user, value in hashes.items()),
        "users_roles": "".join(f"{role}:{','.join(users)}\n" for role, users in by_role.items()),
        "roles.yml": roles_yaml(role_bodies(index_patterns, site_alias)),
    }


def write(directory: Path, passwords: dict[str, str], index_patterns: list[str],
          site_alias: str | None = None) -> list[str]:
    """Write the files that changed (atomically, mode 0640); the names written."""
    written = []
    for name, content in render(directory, passwords, index_patterns, site_alias).items():
        path = directory / name
        if path.exists() and path.read_text(encoding="utf-8") == content:
            continue
        tmp = directory / f".{name}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(content)
        os.chmod(tmp, 0o640)
        os.replace(tmp, path)
        written.append(name)
    return written
