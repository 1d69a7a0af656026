"""indexer/progress.py: the admin's one progress display (loading, backup, restore)."""

from __future__ import annotations

import io

import pytest

from indexer import progress
from indexer.progress import Progress, size_text


def test_switched_off_it_shows_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress("indexing", enabled=False, total=100)
    bar.show(50, indexed=3)
    bar.close()
    assert capsys.readouterr().err == ""


def test_bytes_with_counts_on_stderr_never_backwards(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress("backup", total=0)
    bar.show(2048, 4096, shards="1/2")
    bar.show(1024)  # a late report of an earlier position: ignored
    assert bar.bar.n == 2048 and bar.bar.total == 4096
    bar.close()
    err = capsys.readouterr().err
    assert "backup" in err and "shards=1/2" in err


def test_loading_shows_bytes_of_the_input_with_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(progress.sys, "stderr", out)
    on = Progress("indexing", total=2_000_000)
    on.show(1_000_000, indexed=900, rejected=3)
    on.close()
    text = out.getvalue()
    assert "1.00M/2.00M" in text and "indexed=900" in text and "rejected=3" in text


def test_size_text() -> None:
    assert size_text(1536) == "1.54kB" and size_text(3_500_000_000) == "3.50GB"  # decimal units, as tqdm shows
