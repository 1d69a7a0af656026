"""Security material of the local node(s): the elastic password (keystore) and the file realm.

The native realm keeps users in the .security index, whose mapping needs the analysis-common module
that this distribution lacks; the file realm needs no index (DECISIONS.md D-002). The material is made in
the distribution's config folder with its own tools and copied to every node of a cluster, so all
nodes know the same users.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from papersearch import credentials
from provisioning.file_realm import roles_yaml
from provisioning.localnode.distribution import ProvisionError
from provisioning.localnode.runas import NodeUser
from provisioning.roles import ROLES_OF_USER, role_bodies

# Files a node needs to authenticate the same users as every other node.
FILES = ("elasticsearch.keystore", "users", "users_roles", "roles.yml")
MARKER = ".papersearch-realm"


def local_roles() -> str:
    """roles.yml of the local node: every site on it logs in as the same users, so the roles cover `papers*`
    (DECISIONS.md D-188)."""
    return roles_yaml(role_bodies(["papers*"]))


def refresh_roles(confs: list[Path]) -> list[Path]:
    """A running node's roles.yml brought up to this code's roles (Elasticsearch reloads the file within
    seconds; users and passwords are left to `ensure`); the files rewritten."""
    roles = local_roles()
    written = []
    for conf in confs:
        path = conf / "roles.yml"
        if not path.exists() or path.read_text() == roles:
            continue
        draft = conf / ".roles.yml.tmp"
        draft.write_text(roles)
        stat = path.stat()
        os.chown(draft, stat.st_uid, stat.st_gid)
        os.chmod(draft, stat.st_mode & 0o777)
        os.replace(draft, path)
        written.append(path)
    return written


def ensure(es_home: Path, user: NodeUser, env: dict[str, str]) -> None:
    """Keystore with bootstrap.password and the file realm's roles and users in es_home/config.

    The tools start a JVM each (seconds apiece), so they run only when the passwords or roles changed.
    """
    conf = es_home / "config"
    passwords = credentials.ensure()
    roles = local_roles()
    digest = hashlib.sha256(json.dumps([passwords, roles], sort_keys=True).encode()).hexdigest()
    marker = conf / MARKER
    if marker.exists() and marker.read_text() == digest and all((conf / f).exists() for f in FILES):
        return
    keystore = str(es_home / "bin" / "elasticsearch-keystore")
    if not (conf / "elasticsearch.keystore").exists():
        subprocess.run(user.wrap([keystore, "create"]), env=env, check=True, capture_output=True)
    # bootstrap.password seeds the elastic user's password the first time security starts.
    subprocess.run(user.wrap([keystore, "add", "-x", "-f", "bootstrap.password"]),
                   input=passwords[credentials.ELASTIC], text=True, env=env, check=True, capture_output=True)
    (conf / "roles.yml").write_text(roles)
    tool = str(es_home / "bin" / "elasticsearch-users")
    existing = subprocess.run(user.wrap([tool, "list"]), env=env, capture_output=True, text=True).stdout
    for name, roles in ROLES_OF_USER.items():
        known = any(line.split(":")[0].strip() == name for line in existing.splitlines())
        if known:
            steps = [["passwd", name, "-p", passwords[name]], ["roles", name, "-a", ",".join(roles)]]
        else:
            steps = [["useradd", name, "-p", passwords[name], "-r", ",".join(roles)]]
        for step in steps:
            proc = subprocess.run(user.wrap([tool, *step]), env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise ProvisionError(f"elasticsearch-users {step[0]} {name} failed: {proc.stdout}{proc.stderr}")
    marker.write_text(digest)
    user.chown(conf)

