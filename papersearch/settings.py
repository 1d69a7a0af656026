"""Runtime settings from the environment (pydantic-settings), defaulting to the local node.

ES_URL points everything at an existing cluster (one URL, or several nodes separated by commas); without
it the local node's (or local cluster's) URLs and the credentials in .local/credentials.json are used.
"""

from __future__ import annotations

import json
from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from papersearch import credentials, querylog_schema
from papersearch.paths import node_state_file


def metrics_networks(spec: str) -> list[IPv4Network | IPv6Network]:
    """PAPERSEARCH_METRICS_ALLOW ("127.0.0.0/8,::1,10.0.0.0/8") as networks; ValueError naming a bad one."""
    networks = []
    for part in (p.strip() for p in spec.split(",")):
        if part:
            try:
                networks.append(ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"PAPERSEARCH_METRICS_ALLOW: {part!r} is not an address or CIDR") from None
    return networks


DEFAULT_BIND = "127.0.0.1:8000"
# A bind to every interface is reached on loopback from this host; a visitor's address is not knowable here.
_WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "[::]": "[::1]"}


def public_url_of_bind(bind: str) -> str:
    """The default public address for a gunicorn bind: "0.0.0.0:8080" → "http://127.0.0.1:8080". A unix socket
    or file descriptor has a proxy in front whose address is unknown here: http://localhost (its port 80)."""
    if bind.startswith(("unix:", "fd://")):
        return "http://localhost"
    host, sep, port = bind.rpartition(":")  # an IPv6 host is in brackets, as gunicorn wants it
    if not sep or not port.isdigit():
        host, port = bind, "8000"  # no port: gunicorn's default
    return f"http://{_WILDCARDS.get(host, host)}:{port}"


def _local_urls() -> list[str]:
    """Every node of the local node or cluster, as recorded by papersearch-node."""
    state = json.loads(node_state_file().read_text()) if node_state_file().exists() else {}
    return state.get("urls") or [f"http://127.0.0.1:{state.get('port', 9200)}"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    es_url: str | None = Field(default=None, validation_alias="ES_URL")
    # The indexer's (write) identity: basic auth or an API key.
    es_username: str | None = Field(default=None, validation_alias="ES_USERNAME")
    es_password: SecretStr | None = Field(default=None, validation_alias="ES_PASSWORD")
    es_api_key: SecretStr | None = Field(default=None, validation_alias="ES_API_KEY")
    # The webapp's read-only identity.
    es_web_username: str | None = Field(default=None, validation_alias="ES_WEB_USERNAME")
    es_web_password: SecretStr | None = Field(default=None, validation_alias="ES_WEB_PASSWORD")
    es_web_api_key: SecretStr | None = Field(default=None, validation_alias="ES_WEB_API_KEY")
    es_ca_certs: str | None = Field(default=None, validation_alias="ES_CA_CERTS")
    es_request_timeout: float = Field(default=10.0, validation_alias="ES_REQUEST_TIMEOUT")

    alias: str = Field(default="papers", validation_alias="PAPERSEARCH_ALIAS", pattern=r"^[a-z0-9][a-z0-9_]*$")
    analysis_profile: Literal["auto", "plugin", "core"] = Field(
        default="auto", validation_alias="PAPERSEARCH_ANALYSIS_PROFILE"
    )
    keep_indices: int = Field(default=2, ge=1, validation_alias="PAPERSEARCH_KEEP_INDICES")
    shards: int = Field(default=1, ge=1, validation_alias="PAPERSEARCH_SHARDS")
    # None: min(1, data nodes - 1) when a version is built (indexer/operations.py).
    replicas: int | None = Field(default=None, ge=0, validation_alias="PAPERSEARCH_REPLICAS")
    # Webapp: requests per client IP ("off" disables), counted in the storage (memory:// = per gunicorn
    # worker, redis://host:6379 = shared), and how many reverse proxies in front may be trusted for
    # X-Forwarded-For.
    rate_limit: str = Field(default="120/minute", validation_alias="PAPERSEARCH_RATE_LIMIT")
    rate_limit_storage: str = Field(default="memory://", validation_alias="PAPERSEARCH_RATE_LIMIT_STORAGE")
    # A file holding the storage's password (the Docker stack's Redis: written by setup), kept out of the URI
    # and so out of the environment and `docker inspect`.
    rate_limit_storage_password_file: Path | None = Field(
        default=None, validation_alias="PAPERSEARCH_RATE_LIMIT_STORAGE_PASSWORD_FILE")
    # The one setting of trust in forwarded headers (X-Forwarded-For, -Proto), for the app and gunicorn alike:
    # gunicorn trusts none itself (config/gunicorn.conf.py), the app this many proxies' (webapp/headers_and_limits.py).
    trusted_proxies: int = Field(default=0, ge=0, validation_alias="PAPERSEARCH_TRUSTED_PROXIES")
    # The webapp's own serving (webapp/server.py, set by config/gunicorn.conf.py): connections one client address
    # may hold open in each gunicorn worker (past it: 429 and closed; 0: no cap; none behind trusted proxies, which
    # cap per address themselves), and the seconds a request may take to arrive, from its first byte to the last of
    # its body (past it: 408). A campus behind one NAT address stays far below 200 open connections per worker.
    connections_per_address: int = Field(default=200, ge=0, validation_alias="PAPERSEARCH_CONNECTIONS_PER_ADDRESS")
    request_timeout: float = Field(default=20.0, gt=0, validation_alias="PAPERSEARCH_REQUEST_TIMEOUT")
    # gunicorn's address (config/gunicorn.conf.py reads it here): host:port, [v6]:port, unix:/path or fd://N.
    bind: str = Field(default=DEFAULT_BIND, validation_alias="PAPERSEARCH_BIND", min_length=1)
    # gunicorn's worker processes (None: 2×CPU+1, at most 9) and log level (config/gunicorn.conf.py).
    workers: int | None = Field(default=None, ge=1, validation_alias="PAPERSEARCH_WORKERS")
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        default="info", validation_alias="PAPERSEARCH_LOG_LEVEL")
    # Seconds without heartbeat after which a killed build's lock is taken over (indexer/build_lock.py).
    lock_ttl: float = Field(default=120.0, gt=0, validation_alias="PAPERSEARCH_LOCK_TTL")
    # The site's address as its visitors see it: every absolute URL (feeds, sitemaps, OpenSearch, JSON-LD,
    # redirects) starts with it, whatever the request's Host says; no path (webapp/site.py). Unset or empty:
    # http:// and the bind address (public_url_of_bind), so a site bound to another port redirects to it.
    public_url: str = Field(default="", validation_alias="PAPERSEARCH_PUBLIC_URL",
                            pattern=r"^(https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?/?)?$")
    # Host names requests may carry besides the public URL's (comma-separated; ".example.org" takes its
    # subdomains too); any other Host is refused with 400.
    allowed_hosts: str = Field(default="localhost,127.0.0.1,[::1]", validation_alias="PAPERSEARCH_ALLOWED_HOSTS")
    # Operations (docs/operations.md): /metrics, the query log and its daily indices' base name, log lines.
    metrics: bool = Field(default=True, validation_alias="PAPERSEARCH_METRICS")
    # Who may read /metrics: client addresses (CIDRs, comma-separated), and/or a second gunicorn bind that
    # serves /metrics alone to whoever reaches it (webapp/metrics.py).
    metrics_allow: str = Field(default="127.0.0.0/8,::1", validation_alias="PAPERSEARCH_METRICS_ALLOW")
    metrics_bind: str | None = Field(default=None, validation_alias="PAPERSEARCH_METRICS_BIND",
                                     pattern=r"^\[?[0-9A-Za-z.:-]*\]?:[0-9]{1,5}$")
    query_log: bool = Field(default=True, validation_alias="PAPERSEARCH_QUERY_LOG")
    # Search by meaning (sentence vectors, papersearch/meaning.py): off for a site that cannot afford the vectors'
    # disk, heap and embedding time; config/index.json search.meaning.enabled is the other half (both must be on).
    meaning: bool = Field(default=True, validation_alias="PAPERSEARCH_MEANING")
    query_log_index: str = Field(default=querylog_schema.DEFAULT_BASE, validation_alias="PAPERSEARCH_QUERY_LOG_INDEX",
                                 pattern=querylog_schema.BASE_RE)
    # papersearch-admin backup/backups/restore: the site's snapshot repository, registered on first use as an
    # fs repository at the location (relative: under the node's path.repo). Empty: "<alias>_backups" at "<alias>".
    backup_repository: str = Field(default="", validation_alias="PAPERSEARCH_BACKUP_REPOSITORY",
                                   pattern=r"^([a-z0-9][a-z0-9_-]*)?$")
    backup_location: str = Field(default="", validation_alias="PAPERSEARCH_BACKUP_LOCATION")
    log_format: Literal["text", "json"] = Field(default="text", validation_alias="PAPERSEARCH_LOG_FORMAT")
    # The webapp's signing secret (query ids, webapp/controllers/query_ids.py): the same on every worker and
    # host; or read from PAPERSEARCH_SECRET_KEY_FILE (the Docker stack's replicas: written once by setup);
    # without either, generated once into .local/secret-key.
    secret_key: SecretStr | None = Field(default=None, validation_alias="PAPERSEARCH_SECRET_KEY",
                                         min_length=credentials.MIN_SECRET_KEY)
    secret_key_file: Path | None = Field(default=None, validation_alias="PAPERSEARCH_SECRET_KEY_FILE")

    @field_validator("secret_key", "secret_key_file", "metrics_bind", "rate_limit_storage_password_file", "workers",
                     mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if value == "" else value  # compose's ${VAR:-} hands an unset variable on as ""

    @model_validator(mode="after")
    def _public_url_from_bind(self) -> Settings:
        if not self.public_url:
            self.public_url = public_url_of_bind(self.bind)
        return self

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value  # gunicorn takes INFO as info

    @field_validator("metrics_allow")
    @classmethod
    def _networks(cls, value: str) -> str:
        metrics_networks(value)  # a typo must stop the start, not open or close /metrics unnoticed
        return value

    def repository(self) -> tuple[str, str]:
        """The backup repository's name and fs location."""
        return self.backup_repository or f"{self.alias}_backups", self.backup_location or self.alias

    def urls(self) -> list[str]:
        """The nodes to talk to; the clients spread requests over them and retry on another one."""
        if not self.es_url:
            return _local_urls()
        return [u.strip() for u in self.es_url.split(",") if u.strip()]

    def url(self) -> str:
        return ",".join(self.urls())

    def is_local(self) -> bool:
        return self.es_url is None

    def signing_key(self) -> bytes:
        if self.secret_key is not None:
            value = self.secret_key.get_secret_value()
        elif self.secret_key_file is not None:
            value = _read_secret_key(self.secret_key_file)
        else:
            return credentials.secret_key().encode()
        if value.lower().startswith(credentials.PLACEHOLDER_PREFIX):
            raise ValueError("PAPERSEARCH_SECRET_KEY is still the placeholder of .env.example: set a real secret")
        return value.encode()

    def rate_limit_storage_uri(self) -> str:
        """The storage URI, with the password of rate_limit_storage_password_file put in (redis://:pw@host)."""
        if self.rate_limit_storage_password_file is None:
            return self.rate_limit_storage
        scheme, sep, rest = self.rate_limit_storage.partition("://")
        password = quote(self.rate_limit_storage_password_file.read_text().strip(), safe="")
        return f"{scheme}{sep}:{password}@{rest.rpartition('@')[2]}"

    def indexer_auth(self) -> dict:
        return _auth(self, self.es_username, self.es_password, self.es_api_key, credentials.INDEXER)

    def web_auth(self) -> dict:
        return _auth(self, self.es_web_username, self.es_web_password, self.es_web_api_key, credentials.WEB)


def _auth(settings: Settings, user: str | None, password: SecretStr | None, api_key: SecretStr | None,
          local_user: str) -> dict:
    """Client keyword arguments for one identity; the local node's generated passwords by default."""
    if api_key is not None:
        return {"api_key": api_key.get_secret_value()}
    if user and password is not None:
        return {"basic_auth": (user, password.get_secret_value())}
    if settings.is_local():
        creds = credentials.load()
        if local_user in creds:
            return {"basic_auth": (local_user, creds[local_user])}
    return {}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def _read_secret_key(path: Path) -> str:
    """PAPERSEARCH_SECRET_KEY_FILE's key; a missing, unreadable or short file stops the start, naming it."""
    try:
        value = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ValueError(f"PAPERSEARCH_SECRET_KEY_FILE {path}: {exc.strerror or exc}") from None
    return credentials.checked_secret_key(value, f"PAPERSEARCH_SECRET_KEY_FILE {path}")
