"""bench/search_mix.py's config without the result cache (bench.search --no-result-cache): the webapp reads a copy
of config/ where no results page with words asks for the request cache; the project's own config/ is left as it is."""

from __future__ import annotations

import json
from pathlib import Path

from bench.search_mix import without_result_cache
from papersearch.paths import config_dir


def test_the_copy_turns_the_result_cache_off_and_keeps_everything_else(tmp_path: Path) -> None:
    copy = without_result_cache(tmp_path / "config")
    ours, theirs = (json.loads((d / "index.json").read_text(encoding="utf-8")) for d in (config_dir(), copy))
    assert theirs["search"]["result_cache"]["within"] == 0 < ours["search"]["result_cache"]["within"]
    theirs["search"]["result_cache"]["within"] = ours["search"]["result_cache"]["within"]
    assert theirs == ours
    assert sorted(p.name for p in copy.iterdir()) == sorted(p.name for p in config_dir().iterdir())
