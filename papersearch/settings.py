"""Runtime settings from the environment (pydantic-settings), defaulting to the local node.

ES_URL points everything at an existing cluster; without it the local node's URL and the
credentials in .local/credentials.json are used.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from papersearch import credentials, querylog
from papersearch.paths import node_state_file


def _local_url() -> str:
    state = node_state_file()
    port = 9200
    if state.exists():
        port = json.loads(state.read_text()).get("port", port)
    return f"http://127.0.0.1:{port}"


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
    replicas: int = Field(default=0, ge=0, validation_alias="PAPERSEARCH_REPLICAS")
    # Webapp: requests per client IP ("off" disables), counted in the storage (memory:// = per gunicorn
    # worker, redis://host:6379 = shared), and how many reverse proxies in front may be trusted for
    # X-Forwarded-For.
    rate_limit: str = Field(default="120/minute", validation_alias="PAPERSEARCH_RATE_LIMIT")
    rate_limit_storage: str = Field(default="memory://", validation_alias="PAPERSEARCH_RATE_LIMIT_STORAGE")
    trusted_proxies: int = Field(default=0, ge=0, validation_alias="PAPERSEARCH_TRUSTED_PROXIES")
    # Operations (docs/operations.md): /metrics, the query log and its daily indices' base name, log lines.
    metrics: bool = Field(default=True, validation_alias="PAPERSEARCH_METRICS")
    query_log: bool = Field(default=True, validation_alias="PAPERSEARCH_QUERY_LOG")
    query_log_index: str = Field(default=querylog.DEFAULT_BASE, validation_alias="PAPERSEARCH_QUERY_LOG_INDEX",
                                 pattern=querylog.BASE_RE)
    log_format: Literal["text", "json"] = Field(default="text", validation_alias="PAPERSEARCH_LOG_FORMAT")

    def url(self) -> str:
        return self.es_url or _local_url()

    def is_local(self) -> bool:
        return self.es_url is None

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
