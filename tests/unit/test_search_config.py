"""The search section of config/index.json is validated when the app (or the indexer's index body) is built:
a misspelt key, a value of the wrong type or an unknown facet type fails there, naming the key's path in the
file (issue 43.2); and webapp/ reads the settings as attributes, never as config["…"] look-ups."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from papersearch import index_definition
from papersearch.search_config import ConfigError, SearchConfig
from webapp import create_app
from webapp.services import search_settings

ROOT = Path(__file__).resolve().parents[2]


def _clear() -> None:
    for cached in (index_definition.load, index_definition.search_config, search_settings.search_config):
        cached.cache_clear()


@pytest.fixture
def config_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[dict], Any]], None]]:
    """Writes a copy of config/ whose index.json's search section the test changes, and points the code at it."""
    shutil.copytree(ROOT / "config", tmp_path, dirs_exist_ok=True)

    def change(edit: Callable[[dict], Any]) -> None:
        definition = json.loads((ROOT / "config" / "index.json").read_text(encoding="utf-8"))
        edit(definition["search"])
        (tmp_path / "index.json").write_text(json.dumps(definition), encoding="utf-8")
        monkeypatch.setenv("PAPERSEARCH_CONFIG_DIR", str(tmp_path))
        _clear()

    yield change
    monkeypatch.delenv("PAPERSEARCH_CONFIG_DIR", raising=False)
    _clear()  # the next test reads the real file again


def _rename(section: dict, old: str, new: str) -> None:
    section[new] = section.pop(old)


@pytest.mark.parametrize(("edit", "named"), [
    (lambda s: _rename(s["facets"][1], "size", "sise"), ["search.facets.1.sise: Extra inputs are not permitted",
                                                         "search.facets.1.size: Field required"]),
    (lambda s: _rename(s["rescore"], "window", "windw"), ["search.rescore.windw: Extra inputs"]),
    (lambda s: s["highlight"]["fields"]["title"].update(number_of_fragmnets=0),
     ["search.highlight.fields.title.number_of_fragmnets: Extra inputs"]),
    (lambda s: s.update(max_result_window="many"), ["search.max_result_window: Input should be a valid integer"]),
    (lambda s: s["facets"][0]["levels"][0].update(size=[50]), ["search.facets.0.levels.0.size: Input should be"]),
    (lambda s: s["facets"][2].update(type="histogram"),
     ["search.facets.2.type: Input tag 'histogram' found using 'type' does not match"]),
    (lambda s: s["facets"][2].pop("integer"), ["search.facets.2: Value error, facet 'year' has a range"]),
    (lambda s: s.update(default_sort="newest"), ["default_sort 'newest' is none of the sorts"]),
    (lambda s: s.pop("similar"), ["search.similar: Field required"]),
    (lambda s: s["facets"][1].update(param="year_from"), ["facets' URL parameters repeat"]),
])
def test_a_wrong_config_fails_when_the_app_starts_naming_the_key(config_copy, edit, named) -> None:
    config_copy(edit)
    with pytest.raises(ConfigError) as failed:
        create_app(service=object())
    message = str(failed.value)
    assert message.startswith("config/index.json: ")
    assert all(part in message for part in named), message


def test_the_indexer_fails_on_it_too(config_copy) -> None:
    """The indexer reads the section for a new index's settings (max_result_window): validated there."""
    config_copy(lambda s: _rename(s["large_index"], "sample", "sampel"))
    with pytest.raises(ConfigError, match=r"search\.large_index\.sampel: Extra inputs"):
        index_definition.index_body("core")


def test_the_webapp_needs_its_topic_hierarchy(config_copy) -> None:
    config_copy(lambda s: s["facets"].pop(0))
    SearchConfig.model_validate(index_definition.load()["search"])  # the core model has no such rule
    with pytest.raises(ConfigError, match="one hierarchy facet, named topic"):
        search_settings.search_config()


def test_the_real_config_keeps_its_numbers() -> None:
    """What goes into request bodies stays as the file writes it: 6 is no 6.0, a comment is no setting."""
    config = search_settings.search_config()
    assert type(config.query_fields["title"]) is int and config.query_fields["abstract.exact"] == 0.5
    raw = index_definition.load()["search"]
    assert config.highlight.body() == raw["highlight"] and config.sorts == raw["sorts"]
    assert config.rescore.comment and "comment" not in config.rescore.model_dump()


# Subscripts of the search settings as the webapp read them before (config["page_sizes"], settings["size"],
# search_config()["max_result_window"], app.config["SEARCH_CONFIG"]["query_cost"]); Flask's own config keys are
# upper case (app.config["SEARCH_CONFIG"], current_app.config[LIMIT_KEY]).
LOOKUP = re.compile(r'(?:\bconfig|\bsettings|\bspec|search_config\(\))\[(?!"?[A-Z_]+"?\])|"SEARCH_CONFIG"\]\['
                    r'|\bconfig\.get\("[a-z]')


def test_the_webapp_reads_the_search_settings_as_attributes() -> None:
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in sorted((ROOT / "webapp").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if LOOKUP.search(line)]
    assert found == []


def test_the_lookup_pattern_sees_the_old_idioms() -> None:
    for line in ('sizes = config["page_sizes"]', 'settings["min_length"]', 'search_config()["max_result_window"]',
                 'app.config["SEARCH_CONFIG"]["query_cost"]', 'config.get("phrase_slop", 0)', 'config[key]'):
        assert LOOKUP.search(line), line
    for line in ('app.config["SEARCH_CONFIG"] = config', 'current_app.config[LIMIT_KEY]', 'config.sorts[sort]'):
        assert not LOOKUP.search(line), line
