"""config/index.json: analysis profiles, mapping and search settings, shared by indexer and webapp."""

from __future__ import annotations

import copy
import json
import logging
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from papersearch.paths import config_dir
from papersearch.search_config import SearchConfig, validated

if TYPE_CHECKING:  # only a type here; the indexer's producer reads this file without the client
    from elasticsearch import Elasticsearch

log = logging.getLogger(__name__)

Profile = Literal["plugin", "core"]


@lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    return json.loads((config_dir() / "index.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def search_config() -> SearchConfig:
    """The search settings, validated (papersearch/search_config.py): a wrong key fails here, named."""
    return validated(SearchConfig, load()["search"])


def concepts_config() -> dict[str, Any]:
    """The concept glossary's file, the field papers are tagged into, and which fields are tagged."""
    return load()["concepts"]


def choose_profile(client: Elasticsearch, forced: str = "auto") -> Profile:
    """The plugin profile when every node has our plugin, else the core-only fallback (logged)."""
    profiles = load()["analysis_profiles"]
    if forced in profiles:
        log.info("analysis profile %s (forced by configuration)", forced)
        return forced  # type: ignore[return-value]
    needed = profiles["plugin"]["requires_plugin"]
    nodes = client.nodes.info(metric="plugins")["nodes"].values()
    if nodes and all(any(p["name"] == needed for p in node.get("plugins", [])) for node in nodes):
        log.info("analysis profile plugin (every node has %s)", needed)
        return "plugin"
    log.warning("analysis profile core: %s is not installed on every node; using core-only analysis", needed)
    return "core"


def schema_version() -> int:
    """The mapping's version (config/index.json): a version built by an older one lacks fields."""
    return int(load()["schema_version"])


def built_schema(meta: dict[str, Any]) -> int:
    """The schema version a version's papers were written by (its mapping's _meta): an `add` that brings an older
    version's mapping up to date records the version it was built with, whose papers lack the new fields."""
    return int(meta.get("built_schema_version", meta.get("schema_version", 1)))


def mapping_meta(profile: Profile) -> dict[str, Any]:
    """What a version records about how it was built: the analysis profile and the schema version."""
    return {"analysis_profile": profile, "schema_version": schema_version()}


def index_body(profile: Profile, shards: int = 1, replicas: int = 0) -> dict[str, Any]:
    """Settings and mappings for a new versioned index."""
    definition = load()
    analysis = copy.deepcopy(definition["analysis_profiles"][profile]["analysis"])
    return {
        "settings": {
            "number_of_shards": shards,
            "number_of_replicas": replicas,
            "max_result_window": search_config().max_result_window,
            "analysis": analysis,
        },
        # _meta records the profile so that `status` and the webapp can tell how an index was analysed.
        "mappings": copy.deepcopy(definition["mappings"]) | {"_meta": mapping_meta(profile)},
    }
