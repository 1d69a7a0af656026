import json
from pathlib import Path

from nodeless import read_rejects

from indexer.loading.rejects import RAW_LIMIT, Reject, RejectsWriter


def test_format_one_line() -> None:
    r = Reject.make("broken.jsonl", 4, "year", "outside 1800–2027")
    assert r.format() == "broken.jsonl:4: year: outside 1800–2027"
    assert str(r) == r.format()
    r = Reject.make("a.txt", None, "", "invalid JSON", detail="Expecting value at column 3")
    assert r.format() == "a.txt: record: invalid JSON (Expecting value at column 3)"


def test_raw_is_capped() -> None:
    r = Reject.make("f", 1, "", "x", raw="y" * (RAW_LIMIT + 50))
    assert len(r.raw) == RAW_LIMIT + 1 and r.raw.endswith("…")


def test_writer_streams_jsonl_and_counts(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "rejects.jsonl"
    rejects = [
        Reject.make("f.jsonl", 2, "", "invalid JSON", detail="at column 3", raw="{"),
        Reject.make("f.jsonl", 5, "title", "longer than 1000 characters"),
        Reject.make("g.jsonl", 9, "", "invalid JSON", detail="at column 7", raw="[中文"),
    ]
    with RejectsWriter(out) as writer:
        for r in rejects:
            writer.write(r)
        assert writer.total == 3
        assert writer.counts == {"record: invalid JSON": 2, "title: longer than 1000 characters": 1}
        assert writer.summary()[0] == "      2  record: invalid JSON"
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    assert json.loads(lines[2]) == {
        "source": "g.jsonl",
        "line": 9,
        "field": "",
        "reason": "invalid JSON",
        "detail": "at column 7",
        "raw": "[中文",
    }
    assert read_rejects(out) == rejects


def test_writer_truncates_old_file_and_counts_only_without_path(tmp_path: Path) -> None:
    out = tmp_path / "rejects.jsonl"
    out.write_text("stale\n", encoding="utf-8")
    RejectsWriter(out).close()
    assert out.read_text(encoding="utf-8") == ""
    counting = RejectsWriter(None)
    counting.write(Reject.make("f", 1, "url", "not an http(s) URL"))
    counting.close()
    assert counting.counts == {"url: not an http(s) URL": 1}
