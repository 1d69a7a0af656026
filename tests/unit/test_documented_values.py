"""Values the README states are the ones the code sends (issue 44.11: it said feeds are cached max-age=300, they
sent 600). The code owns each value; the README cites it."""

from __future__ import annotations

import re
from pathlib import Path

from webapp import caching

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_feeds_max_age_is_the_one_sent() -> None:
    feed_row = next(line for line in README.splitlines() if line.startswith("| `/feed` |"))
    stated = re.findall(r"max-age=(\d+)", feed_row)
    sent = re.fullmatch(r"public, max-age=(\d+)", caching.FEED)
    assert sent and stated == [sent.group(1)], (stated, caching.FEED)
