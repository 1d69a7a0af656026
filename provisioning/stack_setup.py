"""One-shot setup of a self-managed cluster (the Docker stack's `setup` service): roles and users.

    python -m provisioning.stack_setup [--timeout SECONDS] [--realm-dir DIR] [--secret-key-file FILE]

With --realm-dir (the Docker stack): writes the webapp's read-only role and user and the indexer's
write role and user as Elasticsearch's file realm into DIR (users, users_roles, roles.yml;
provisioning/file_realm.py), a volume every Elasticsearch container reads and reloads, then waits
until both users can log in and the cluster at ES_URL is yellow or green. No superuser is needed.
Without it: waits for the cluster, then creates or updates the same roles and users through the
security API as the superuser (native realm; provisioning.roles.ensure_roles_and_users), and
checks that both users can log in. Running it again is harmless: it sets the same roles and
passwords again.
With --secret-key-file (the Docker stack): the webapp replicas' signing secret, generated into FILE the
first time and kept after that, so every replica signs and checks query ids with the same key
(PAPERSEARCH_SECRET_KEY_FILE; an operator's own key is a file put there before the first start).

Environment:
  ES_URL              the cluster, e.g. http://es:9200 (required)
  ELASTIC_PASSWORD    the superuser's password (required without --realm-dir; used here only)
  ELASTIC_USERNAME    the superuser (default: elastic)
  ES_PASSWORD         password to set for papersearch_indexer (required)
  ES_WEB_PASSWORD     password to set for papersearch_web (required)
  ES_CA_CERTS         CA bundle when ES_URL is https (optional)
  PAPERSEARCH_ALIAS   the alias; the indexer's roles cover the indices "<alias>*", the webapp reads "<alias>"
                      and "<alias>-*" (its versions) only (default: papers)
  PAPERSEARCH_QUERY_LOG_INDEX  the query log's base; its next days are made (default: papersearch-querylog)

Exit status: 0 done; 1 the cluster could not be reached in time or refused; 2 bad configuration.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from elasticsearch import ApiError, AuthenticationException, Elasticsearch, TransportError

from papersearch import credentials, querylog_schema
from papersearch.role_index_names import site_indices
from provisioning import file_realm
from provisioning.roles import BACKUP_ROLE, READER_ROLE, WRITER_ROLE, ensure_roles_and_users

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2

# Elasticsearch's native realm rejects shorter passwords.
MIN_PASSWORD_LENGTH = 6
PLACEHOLDER_PREFIX = credentials.PLACEHOLDER_PREFIX
ALIAS_PATTERN_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")


class ConfigError(ValueError):
    pass


class SetupFailed(RuntimeError):
    pass


@dataclass(frozen=True)
class SetupConfig:
    url: str
    admin_user: str
    admin_password: str
    passwords: dict[str, str]  # papersearch user -> password
    alias: str = "papers"
    ca_certs: str | None = None
    query_log_base: str = querylog_schema.DEFAULT_BASE

    @property
    def index_patterns(self) -> list[str]:
        return [f"{self.alias}*"]


def read_config(env: Mapping[str, str], superuser: bool = True) -> SetupConfig:
    """The setup's configuration from the environment; every problem is reported at once.
    `superuser`: ELASTIC_PASSWORD is needed (the security API; not for the file realm)."""
    problems: list[str] = []
    required = {
        "ES_URL": "the cluster's URL, e.g. http://es:9200",
        **({"ELASTIC_PASSWORD": "the superuser's password"} if superuser else {}),
        "ES_PASSWORD": f"the password to set for {credentials.INDEXER}",
        "ES_WEB_PASSWORD": f"the password to set for {credentials.WEB}",
    }
    for name, what in required.items():
        if not env.get(name):
            problems.append(f"{name} is not set ({what})")
    url = env.get("ES_URL", "")
    if url:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            problems.append(f"ES_URL must look like http://host:9200, got {url!r}")
    for name in ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD"):
        value = env.get(name, "")
        if not value:
            continue
        if value.lower().startswith(PLACEHOLDER_PREFIX):
            problems.append(f"{name} still has the placeholder value from .env.example; set a real secret in .env")
        elif len(value) < MIN_PASSWORD_LENGTH:
            problems.append(f"{name} is too short (Elasticsearch needs at least {MIN_PASSWORD_LENGTH} characters)")
    if env.get("ES_PASSWORD") and env.get("ES_PASSWORD") == env.get("ES_WEB_PASSWORD"):
        problems.append("ES_PASSWORD and ES_WEB_PASSWORD are equal; give the indexer and the webapp different secrets")
    alias = env.get("PAPERSEARCH_ALIAS") or "papers"
    if not alias[0].isalnum() or not set(alias) <= ALIAS_PATTERN_CHARS:
        problems.append(f"PAPERSEARCH_ALIAS must be lowercase letters, digits and _, got {alias!r}")
    query_log_base = env.get("PAPERSEARCH_QUERY_LOG_INDEX") or querylog_schema.DEFAULT_BASE
    if not re.fullmatch(querylog_schema.BASE_RE, query_log_base):
        problems.append(f"PAPERSEARCH_QUERY_LOG_INDEX must match {querylog_schema.BASE_RE}, got {query_log_base!r}")
    if problems:
        raise ConfigError("; ".join(problems))
    return SetupConfig(
        url=url,
        admin_user=env.get("ELASTIC_USERNAME") or credentials.ELASTIC,
        admin_password=env.get("ELASTIC_PASSWORD", ""),
        passwords={credentials.INDEXER: env["ES_PASSWORD"], credentials.WEB: env["ES_WEB_PASSWORD"]},
        alias=alias,
        ca_certs=env.get("ES_CA_CERTS") or None,
        query_log_base=query_log_base,
    )


def _client(config: SetupConfig, user: str, password: str) -> Elasticsearch:
    kwargs: dict = {"basic_auth": (user, password), "request_timeout": 10, "max_retries": 0}
    if config.ca_certs:
        kwargs["ca_certs"] = config.ca_certs
    return Elasticsearch(config.url, **kwargs)


def _describe(exc: TransportError) -> str:
    """The transport's own reason ("... Connection refused"), not just "Connection error"."""
    detail = getattr(exc, "message", None) or str(exc)
    return str(detail) or type(exc).__name__


ClientFactory = Callable[[SetupConfig, str, str], Elasticsearch]


def wait_for_cluster(client: Elasticsearch, url: str, timeout: float, say: Callable[[str], None] = print,
                     user: str = credentials.ELASTIC, rejected: str | None = None) -> str:
    """Block until the cluster is yellow or green; the status. A rejected login fails at once with
    `rejected` as the reason, or is waited out like any other answer when `rejected` is None (a file
    realm that Elasticsearch has not reloaded yet)."""
    deadline = time.monotonic() + timeout
    last_error = "no answer"
    announced = False
    while True:
        try:
            health = client.cluster.health(wait_for_status="yellow", timeout="5s")
            status = health.get("status", "unknown")
            if status in ("yellow", "green") and not health.get("timed_out", False):
                return status
            last_error = f"cluster status {status}"
        except AuthenticationException:
            if rejected is not None:
                raise SetupFailed(f"Elasticsearch at {url} rejected the user {user!r}: {rejected}") from None
            last_error = f"{user} cannot log in yet"
        except ApiError as exc:  # e.g. 408 while waiting for yellow, 503 during startup
            last_error = f"HTTP {exc.meta.status}: {exc.message}"
        except TransportError as exc:
            last_error = _describe(exc)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SetupFailed(
                f"cannot reach Elasticsearch at {url} within {timeout:g}s ({last_error}); "
                "is the es service up and healthy, and is ES_URL right?"
            )
        if not announced:
            say(f"waiting for Elasticsearch at {url} (up to {timeout:g}s): {last_error}")
            announced = True
        time.sleep(min(2.0, max(remaining, 0.05)))


SUPERUSER_REJECTED = ("check ELASTIC_PASSWORD. Elasticsearch takes it as bootstrap.password from the keystore of "
                      "its container; once it was changed through the API, the stored one counts (docs/operations.md)")


def run(config: SetupConfig, timeout: float, factory: ClientFactory = _client,
        say: Callable[[str], None] = print, realm_dir: Path | None = None) -> None:
    if realm_dir is not None:
        run_file_realm(config, timeout, realm_dir, factory, say)
        return
    admin = factory(config, config.admin_user, config.admin_password)
    status = wait_for_cluster(admin, config.url, timeout, say, config.admin_user, SUPERUSER_REJECTED)
    say(f"cluster at {config.url} is {status}")
    try:
        ensure_roles_and_users(admin, config.passwords, config.index_patterns, config.alias)
        # The web user appends only to days that exist (issue 53.7): the first ones are made here.
        querylog_schema.prepare_days(admin, config.query_log_base)
    except ApiError as exc:
        raise SetupFailed(
            f"Elasticsearch refused to create the roles/users ({exc.meta.status}: {exc.message}); the native realm "
            f"must be enabled and {config.admin_user!r} must have the manage_security privilege"
        ) from None
    except TransportError as exc:
        raise SetupFailed(f"lost Elasticsearch at {config.url} while creating roles/users: {_describe(exc)}") from None
    for user, password in config.passwords.items():
        try:
            factory(config, user, password).security.authenticate()
        except ApiError as exc:
            raise SetupFailed(f"user {user} was created but cannot log in ({exc.meta.status}: {exc.message})") from None
        except TransportError as exc:
            raise SetupFailed(f"user {user} was created but the login check failed: {_describe(exc)}") from None
    _say_done(config, say)


def run_file_realm(config: SetupConfig, timeout: float, realm_dir: Path, factory: ClientFactory = _client,
                   say: Callable[[str], None] = print) -> None:
    """Write the file realm, then wait until Elasticsearch has reloaded it (within seconds) and each user logs in."""
    try:
        written = file_realm.write(realm_dir, config.passwords, config.index_patterns, config.alias)
    except OSError as exc:
        raise SetupFailed(f"cannot write the file realm into {realm_dir}: {exc}") from None
    say(f"file realm in {realm_dir}: {', '.join(written) + ' written' if written else 'unchanged'}")
    deadline = time.monotonic() + timeout
    for user, password in config.passwords.items():
        wait_for_login(factory(config, user, password), config.url, deadline, say, user)
    # The web user has no cluster privilege (DECISIONS.md D-154), so the indexer asks for the health.
    indexer = factory(config, credentials.INDEXER, config.passwords[credentials.INDEXER])
    status = wait_for_cluster(indexer, config.url, max(deadline - time.monotonic(), 0.0), say, credentials.INDEXER)
    say(f"cluster at {config.url} is {status}")
    try:  # the web user appends only to days that exist (issue 53.7): the indexer makes the first ones
        querylog_schema.prepare_days(indexer, config.query_log_base)
    except (ApiError, TransportError) as exc:
        raise SetupFailed(f"cannot make the query log's days as {credentials.INDEXER}: {exc}") from None
    _say_done(config, say)


def wait_for_login(client: Elasticsearch, url: str, deadline: float, say: Callable[[str], None], user: str) -> None:
    """Block until `user` logs in (Elasticsearch reloads a written file realm within seconds); needs no privilege."""
    announced = False
    while True:
        try:
            client.security.authenticate()
            return
        except AuthenticationException:
            last_error = f"{user} cannot log in yet"
        except ApiError as exc:
            last_error = f"HTTP {exc.meta.status}: {exc.message}"
        except TransportError as exc:
            last_error = _describe(exc)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SetupFailed(f"{user} could not log in to Elasticsearch at {url} in time ({last_error})")
        if not announced:
            say(f"waiting for {user} to log in at {url}: {last_error}")
            announced = True
        time.sleep(min(1.0, max(remaining, 0.05)))


def _ensure_secret_key(path: Path, say: Callable[[str], None] = print, what: str = "signing secret") -> None:
    existed = path.exists()
    try:
        credentials.checked_secret_key(credentials.secret_key(path), f"the {what} {path}")
    except OSError as exc:
        raise SetupFailed(f"cannot write the {what} {path}: {exc}") from None
    except ValueError as exc:
        raise SetupFailed(str(exc)) from None
    say(f"{what} {path}: {'kept' if existed else 'generated'}")


def _say_done(config: SetupConfig, say: Callable[[str], None]) -> None:
    patterns = ", ".join(config.index_patterns)
    say(f"roles {READER_ROLE} (read {', '.join(site_indices(config.alias))}), {WRITER_ROLE} (write {patterns}) "
        f"and {BACKUP_ROLE} "
        f"(snapshots of {patterns}) are in place")
    say(f"users {credentials.WEB} ({READER_ROLE}) and {credentials.INDEXER} ({WRITER_ROLE}, {BACKUP_ROLE}) "
        "can log in")


def main(argv: list[str] | None = None, env: Mapping[str, str] | None = None,
         factory: ClientFactory = _client) -> int:
    parser = argparse.ArgumentParser(prog="python -m provisioning.stack_setup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=180.0,
                        help="seconds to wait for the cluster to answer yellow or green (default 180)")
    parser.add_argument("--realm-dir", type=Path, default=None,
                        help="write the users and roles as Elasticsearch's file realm into this directory "
                             "instead of creating them through the security API")
    parser.add_argument("--secret-key-file", type=Path, default=None,
                        help="generate the webapp's signing secret into this file unless it exists")
    parser.add_argument("--redis-password-file", type=Path, default=None,
                        help="generate the password of the rate-limit Redis into this file unless it exists")
    args = parser.parse_args(argv)
    if args.timeout < 0:
        parser.error("--timeout must not be negative")
    try:
        config = read_config(os.environ if env is None else env, superuser=args.realm_dir is None)
    except ConfigError as exc:
        print(f"stack_setup: configuration: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        if args.secret_key_file is not None:
            _ensure_secret_key(args.secret_key_file)
        if args.redis_password_file is not None:
            _ensure_secret_key(args.redis_password_file, what="Redis password")
        run(config, args.timeout, factory, realm_dir=args.realm_dir)
    except SetupFailed as exc:
        print(f"stack_setup: FAILED: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("stack_setup: interrupted", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
