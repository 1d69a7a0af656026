"""The producer: chunks of bulk bodies with the file and line of every document, rejects in order,
progress in input bytes, and the same stream whether it runs in a thread or a forked process."""

import fcntl
import gzip
import json
import struct
import termios
import threading
from pathlib import Path

import pytest
from nodeless import wait_for

from indexer.loading import prepare
from indexer.loading.prepare import Chunk, Finished, Producer, produce
from indexer.loading.readers import SourceError, sniff
from indexer.loading.rejects import Reject
from papersearch.taxonomy import Taxonomy

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "fixtures" / "broken.jsonl"
SAMPLE = ROOT / "indexer" / "sample" / "papers.jsonl"


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return Taxonomy.load()


def run(paths: list[Path], taxonomy: Taxonomy, added: str | None = None) -> tuple[list[Chunk], Finished]:
    out: list = []
    produce([sniff(p, taxonomy) for p in paths], taxonomy, out.append, added)
    *chunks, end = out
    assert isinstance(end, Finished) and all(isinstance(c, Chunk) for c in chunks)
    return chunks, end


def documents(chunk: Chunk) -> list[tuple[dict, dict]]:
    lines = bytes(chunk.body).splitlines()
    return [(json.loads(a), json.loads(d)) for a, d in zip(lines[::2], lines[1::2], strict=True)]


def test_every_document_keeps_its_file_and_line_and_rejects_stay_in_order(taxonomy: Taxonomy) -> None:
    chunks, end = run([BROKEN, SAMPLE], taxonomy)
    where = [c.where(i) for c in chunks for i in range(len(c))]
    rejects = [r for c in chunks for r in c.rejects]
    assert [(s, line) for s, line, _ in where[:3]] == [("broken.jsonl", 1), ("broken.jsonl", 7), ("broken.jsonl", 10)]
    assert [(s, line) for s, line, _ in where[3:]] == [("papers.jsonl", n) for n in range(1, 41)]
    assert [r.line for r in rejects] == [2, 3, 4, 5, 6, 9, 11] and all(isinstance(r, Reject) for r in rejects)
    assert sum(c.read for c in chunks) == len(where) + len(rejects)
    for chunk in chunks:
        pairs = documents(chunk)
        assert [a["index"]["_id"] for a, _ in pairs] == [chunk.where(i)[2] for i in range(len(chunk))]
        assert all(d["id"] == a["index"]["_id"] and "heading" in d for a, d in pairs)
    assert end.unknown_topics == {"Quantum Basket Weaving · Looms": 1}


def test_chunks_are_cut_by_count_and_by_bytes(taxonomy: Taxonomy, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare, "CHUNK_DOCS", 7)
    chunks, _ = run([SAMPLE], taxonomy)
    assert [len(c) for c in chunks] == [7, 7, 7, 7, 7, 5]
    monkeypatch.setattr(prepare, "CHUNK_DOCS", 1000)
    monkeypatch.setattr(prepare, "CHUNK_BYTES", 6000)
    chunks, _ = run([SAMPLE], taxonomy)
    assert sum(len(c) for c in chunks) == 40 and len(chunks) > 5
    assert all(len(c.body) <= 6000 for c in chunks if len(c) > 1)


def test_part_holds_exactly_the_chosen_documents(taxonomy: Taxonomy) -> None:
    chunk = run([SAMPLE], taxonomy)[0][0]
    pairs = documents(chunk)
    part = Chunk(body=bytearray(chunk.part([1, 5, 39])))
    assert [d["id"] for _, d in documents(part)] == [pairs[i][1]["id"] for i in (1, 5, 39)]


def test_progress_counts_input_bytes_as_stored(taxonomy: Taxonomy, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare, "CHUNK_DOCS", 10)
    gz = tmp_path / "papers.jsonl.gz"
    gz.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    chunks, _ = run([gz, SAMPLE], taxonomy)
    positions = [c.position for c in chunks]
    assert positions == sorted(positions) and positions[0] > 0
    assert positions[-1] == gz.stat().st_size + SAMPLE.stat().st_size


def drain(producer: Producer) -> list[bytes]:
    bodies = []
    while (chunk := producer.next()) is not None:
        bodies.append(bytes(chunk.body))
    return bodies


@pytest.mark.parametrize("process", [False, True])
def test_producer_thread_and_process_hand_over_the_same_chunks(taxonomy: Taxonomy, process: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prepare, "CHUNK_DOCS", 3)
    sources = [sniff(p, taxonomy) for p in (BROKEN, SAMPLE)]
    stamp = "2020-01-02T03:04:05.678Z"
    expected = [bytes(c.body) for c in run([BROKEN, SAMPLE], taxonomy, stamp)[0]]
    with Producer(sources, taxonomy, process=process) as producer:
        assert drain(producer) == [b.replace(stamp.encode(), producer.added.encode()) for b in expected]
        assert producer.next() is None  # and stays finished for every sender
        assert producer.unknown_topics == {"Quantum Basket Weaving · Looms": 1}


@pytest.mark.parametrize("process", [False, True])
def test_a_file_that_breaks_midway_fails_the_load(taxonomy: Taxonomy, tmp_path: Path, process: bool) -> None:
    data = gzip.compress(SAMPLE.read_bytes() * 200)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    with Producer([sniff(cut, taxonomy)], taxonomy, process=process) as producer, \
            pytest.raises(SourceError, match=r"cut\.jsonl\.gz"):
        drain(producer)


def test_closing_stops_a_producer_process_that_nobody_reads(taxonomy: Taxonomy, tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    big.write_bytes(SAMPLE.read_bytes() * 500)  # 20,000 papers: far more than the queue holds
    producer = Producer([sniff(big, taxonomy)], taxonomy, process=True)
    assert producer.next() is not None
    producer.close()
    assert producer._proc is not None and not producer._proc.is_alive()


@pytest.mark.parametrize("process", [False, True])
def test_a_broken_glossary_stops_the_producer_before_any_chunk(taxonomy: Taxonomy, process: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from papersearch import concepts

    def broken(*args):
        raise concepts.GlossaryError(["concepts.tsv:7: en: empty form"])

    monkeypatch.setattr(concepts, "matcher", broken)
    with Producer([sniff(SAMPLE, taxonomy)], taxonomy, process=process) as producer, \
            pytest.raises(concepts.GlossaryError) as info:
        producer.next()
    assert info.value.problems == ["concepts.tsv:7: en: empty form"]


def _next_within(producer: Producer, seconds: float) -> tuple[bool, object]:
    """producer.next() in a thread: (whether it returned within `seconds`, what it returned or raised)."""
    result: list = []

    def call() -> None:
        try:
            result.append(producer.next())
        except Exception as exc:
            result.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive(), result[0] if result else None


def _mid_chunk(taxonomy: Taxonomy, tmp_path: Path) -> Producer:
    """A producer process whose pipe holds the first part of the next chunk (a chunk is larger than the pipe,
    64 kB): the moment a build's failure closes it, or the process dies."""
    big = tmp_path / "big.jsonl"
    big.write_bytes(SAMPLE.read_bytes() * 500)  # 20,000 papers: far more than the queue holds
    producer = Producer([sniff(big, taxonomy)], taxonomy, process=True)
    first = producer.next()
    pipe = producer._queue._reader.fileno()  # type: ignore[attr-defined]
    assert first is not None and len(first.body) > fcntl.fcntl(pipe, fcntl.F_GETPIPE_SZ)  # no chunk fits the pipe
    # Once the next chunk has begun to arrive, the pipe holds part of it, and the rest waits for a reader.
    wait_for(lambda: struct.unpack("i", fcntl.ioctl(pipe, termios.FIONREAD, b"\0" * 4))[0] > 0, 60,
             "the next chunk to begin filling the pipe", interval=0.01)
    return producer


def test_a_sender_asking_after_close_gets_the_end_not_half_a_chunk(taxonomy: Taxonomy, tmp_path: Path) -> None:
    """A build that fails closes the producer while the other bulk thread may still ask it for a chunk
    (CI, 2026-12-01: such a build hung for good after a node restart)."""
    producer = _mid_chunk(taxonomy, tmp_path)
    producer.close()
    returned, value = _next_within(producer, 30)
    assert returned, "next() after close() blocked on a chunk the stopped process never finished"
    assert value is None


def test_a_producer_process_that_dies_mid_chunk_fails_the_load(taxonomy: Taxonomy, tmp_path: Path) -> None:
    producer = _mid_chunk(taxonomy, tmp_path)
    assert producer._proc is not None
    producer._proc.kill()  # say the OOM killer
    producer._proc.join(5)
    try:
        returned, value = _next_within(producer, 30)
        assert returned, "next() blocked on a chunk the dead process never finished"
        assert isinstance(value, RuntimeError) and "producer stopped without finishing" in str(value), value
    finally:
        producer.close()
