"""The Docker stack's file realm (provisioning/file_realm.py), setup's file mode and the image entry points'
secret handling — without a Docker engine. Elasticsearch itself reads these files in tests/deploy/ and in
the container branch of the `cluster` fixture."""

from __future__ import annotations

import base64
import hashlib
import re
import stat
import subprocess
from pathlib import Path
from typing import ClassVar

import pytest

from provisioning import file_realm, stack_setup
from provisioning.roles import BACKUP_ROLE, READER_ROLE, WRITER_ROLE

ROOT = Path(__file__).resolve().parents[2]
PASSWORDS = {"papersearch_indexer": "indexer-secret-1", "papersearch_web": "web-secret-2"}


def test_password_hash_is_elasticsearch_pbkdf2() -> None:
    value = file_realm.password_hash("hunter22", salt=b"s" * 32, iterations=1000)
    prefix, iterations, salt, key = re.fullmatch(r"(\{PBKDF2\})(\d+)\$([^$]+)\$([^$]+)", value).groups()
    assert (prefix, iterations, base64.b64decode(salt)) == ("{PBKDF2}", "1000", b"s" * 32)
    assert base64.b64decode(key) == hashlib.pbkdf2_hmac("sha512", b"hunter22", b"s" * 32, 1000, 32)
    assert file_realm.PBKDF2_ITERATIONS in (1000, 10_000, 50_000, 100_000, 500_000, 1_000_000), \
        "Elasticsearch's Hasher knows only these costs"
    assert file_realm.hash_matches(file_realm.password_hash("hunter22"), "hunter22")
    assert not file_realm.hash_matches(file_realm.password_hash("hunter22"), "hunter23")
    assert not file_realm.hash_matches("$2a$10$bcrypt", "hunter22")


def test_write_makes_the_three_files_and_keeps_unchanged_ones(tmp_path: Path) -> None:
    assert sorted(file_realm.write(tmp_path, PASSWORDS, ["papers*"])) == ["roles.yml", "users", "users_roles"]
    users = dict(line.split(":", 1) for line in (tmp_path / "users").read_text().splitlines())
    assert set(users) == set(PASSWORDS)
    assert all(file_realm.hash_matches(users[u], p) for u, p in PASSWORDS.items())
    assert set((tmp_path / "users_roles").read_text().splitlines()) == {
        f"{WRITER_ROLE}:papersearch_indexer", f"{READER_ROLE}:papersearch_web", f"{BACKUP_ROLE}:papersearch_indexer"}
    roles = (tmp_path / "roles.yml").read_text()
    assert f"{READER_ROLE}:" in roles and "/papers.*&~(papersearch-querylog-.*)/" in roles
    for name in file_realm.FILES:
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o640
    assert file_realm.write(tmp_path, PASSWORDS, ["papers*"]) == [], "same passwords: nothing rewritten"
    assert file_realm.write(tmp_path, {**PASSWORDS, "papersearch_web": "changed-3"}, ["papers*"]) == ["users"]


class FakeClient:
    """Answers like Elasticsearch once its file realm holds the user (what setup waits for)."""

    made: ClassVar[list[str]] = []  # the query log's days setup made, by every client

    def __init__(self, realm: Path, user: str, password: str) -> None:
        self.realm, self.user, self.password = realm, user, password
        self.cluster = self.security = self.indices = self

    def put_index_template(self, **_kwargs) -> None:
        assert self.user == "papersearch_indexer", "the indexer's side owns the query log's template"

    def create(self, index: str, **_kwargs) -> None:
        assert self.user == "papersearch_indexer", "the web user makes no index (DECISIONS.md D-188)"
        self.made.append(index)

    def authenticate(self) -> dict:
        users = dict(line.split(":", 1) for line in (self.realm / "users").read_text().splitlines())
        assert file_realm.hash_matches(users[self.user], self.password)
        return {"username": self.user}

    def health(self, **_kwargs) -> dict:
        # The web role has no cluster privilege: Elasticsearch would answer it 403 (DECISIONS.md D-154).
        assert self.user != "papersearch_web", "the web user may not ask for the cluster's health"
        self.authenticate()
        return {"status": "green", "timed_out": False}


def test_setup_in_file_mode_needs_no_superuser_and_writes_the_realm(tmp_path: Path) -> None:
    env = {"ES_URL": "http://es:9200", "ES_PASSWORD": "s3cret-indexer", "ES_WEB_PASSWORD": "s3cret-webapp"}
    with pytest.raises(stack_setup.ConfigError, match="ELASTIC_PASSWORD is not set"):
        stack_setup.read_config(env)
    code = stack_setup.main(["--realm-dir", str(tmp_path), "--timeout", "5"], env=env,
                            factory=lambda _c, user, password: FakeClient(tmp_path, user, password))
    assert code == stack_setup.EXIT_OK
    assert (tmp_path / "users").exists() and (tmp_path / "roles.yml").exists()
    assert len(FakeClient.made) == 8 and FakeClient.made[0].startswith("papersearch-querylog-20")  # today + 7 ahead
    # The site's web role reads its alias and versions, not `papers*` (another site's `papersx-…`: issue 53.7).
    roles = (tmp_path / "roles.yml").read_text()
    reader = roles.split(f"{READER_ROLE}:", 1)[1].split("\n", 4)[3]
    assert '"/papers&~(' in reader and '"/papers-.*&~(' in reader and "/papers.*" not in reader, reader


def test_app_entrypoint_turns_secret_files_into_the_commands_environment(tmp_path: Path) -> None:
    (tmp_path / "ES_PASSWORD").write_text("from-file")
    (tmp_path / "ES_WEB_PASSWORD").write_text("web-from-file")
    (tmp_path / "not-a-name").write_text("ignored")
    env = {"PATH": "/usr/bin:/bin", "PAPERSEARCH_SECRETS_DIR": str(tmp_path), "ES_WEB_PASSWORD": "from-env"}
    out = subprocess.run(["sh", str(ROOT / "docker" / "app-entrypoint.sh"), "env"], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert "ES_PASSWORD=from-file" in out
    assert "ES_WEB_PASSWORD=from-env" in out, "the environment wins over a file"
    assert not any(line.startswith("not-a-name") for line in out)


def test_elasticsearch_entrypoint_reads_file_variables_and_dotted_settings() -> None:
    script = (ROOT / "docker" / "elasticsearch-entrypoint.sh").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT / "docker" / "elasticsearch-entrypoint.sh")]).returncode == 0
    assert "_FILE$" in script and "bootstrap.password" in script and "env -0" in script
    assert 'exec bin/elasticsearch "${settings[@]}" "$@"' in script


def test_a_running_local_node_gets_this_codes_roles(tmp_path: Path) -> None:
    """`papersearch-node start` on a running node rewrites a roles.yml of older roles in place (owner and mode kept:
    the node's user reads it), so a role change needs no restart (issue 53.7); an up-to-date one is left alone."""
    from provisioning.localnode import realm

    old, current = tmp_path / "node-1", tmp_path / "node-2"
    for conf in (old, current):
        conf.mkdir()
    (old / "roles.yml").write_text("papersearch_reader:\n  cluster: []\n")
    (old / "roles.yml").chmod(0o660)
    (current / "roles.yml").write_text(realm.local_roles())
    assert realm.refresh_roles([old, current, tmp_path / "missing"]) == [old / "roles.yml"]
    assert (old / "roles.yml").read_text() == realm.local_roles()
    assert stat.S_IMODE((old / "roles.yml").stat().st_mode) == 0o660
    assert '"create_doc"]' in realm.local_roles() and "auto_configure" not in realm.local_roles()
    assert realm.refresh_roles([old, current]) == []
