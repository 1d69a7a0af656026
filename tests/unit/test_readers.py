import gzip
import json
from pathlib import Path

import pytest

from indexer import make_sample
from indexer.loading.documents import DocumentBuilder
from indexer.loading.models import Paper
from indexer.loading.readers import Source, SourceError, jsonl, read_records, sniff
from indexer.loading.rejects import Reject
from papersearch.taxonomy import Taxonomy

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
PAGE_000 = FIXTURES / "seeds" / "000_3f7844dd6e583142.txt"
PAGE_002 = FIXTURES / "seeds" / "002_e13276c7637f8411.txt"
SAMPLE = ROOT / "indexer" / "sample" / "papers.jsonl"

DL, TH, SA, GML, OPT, APP = (
    "Deep Learning",
    "Theory",
    "Social Aspects",
    "General Machine Learning",
    "Optimization",
    "Applications",
)
TOPICS_000 = [
    (None, None),  # the page starts with the tail of the previous screen: an abstract without topic
    (TH, "Learning Theory"),
    (DL, "Generative Models and Autoencoders"),
    (None, None),  # two abstracts in a row
    (DL, "Theory"),
    (DL, "Theory"),
    (OPT, "Stochastic"),
    (TH, "Deep Learning"),
    (DL, "Self-Supervised Learning"),
    (SA, "Robustness"),
    (GML, "Scalable Algorithms"),
    (DL, "Foundation Models"),
    (TH, "Learning Theory"),
    (None, None),
    (DL, "Large Language Models"),
    (APP, "Computer Vision"),
    (SA, "Accountability, Transparency, and Interpretability"),
    (GML, "Unsupervised and Semi-supervised Learning"),
    (TH, "Learning Theory"),
    (SA, "Security"),
]
TOPICS_002 = [
    (DL, "Large Language Models"),
    (DL, "Attention Mechanisms"),
    (DL, None),
    (OPT, None),
    (APP, "Computer Vision"),
    (DL, "Large Language Models"),
    (GML, "Evaluation"),
    (DL, "Foundation Models"),
    ("Probabilistic Methods", "Monte Carlo and Sampling Methods"),
    (SA, "Privacy"),
    (DL, "Sequential Models, Time series"),
    (TH, "Game Theory"),
    (OPT, "Non-Convex"),
    (DL, "Theory"),
    (GML, "Sequential, Network, and Time Series Modeling"),
    (OPT, "Non-Convex"),
    (OPT, "Large Scale, Parallel and Distributed"),
    (APP, "Computer Vision"),
    (GML, "Hardware and Software"),
    (DL, "Everything Else"),
]


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return Taxonomy.load()


def papers_of(path: Path, taxonomy: Taxonomy | None = None) -> list[Paper]:
    records = list(read_records(path, taxonomy))
    assert all(isinstance(r, Paper) for r in records), [r for r in records if isinstance(r, Reject)]
    return records  # type: ignore[return-value]


def split(records: list) -> tuple[list[Paper], list[Reject]]:
    return [r for r in records if isinstance(r, Paper)], [r for r in records if isinstance(r, Reject)]


# --- listing pages ---------------------------------------------------------------------------------


def test_page_000_without_blank_lines_or_authors(taxonomy: Taxonomy) -> None:
    papers = papers_of(PAGE_000, taxonomy)
    assert len(papers) == 20
    assert [(p.topic_area, p.topic_subarea) for p in papers] == TOPICS_000
    assert all(p.authors == [] and not p.authors_et_al and p.title == "" for p in papers)
    assert papers[0].abstract.startswith("Autoregressive (AR) generation is the standard decoding paradigm")
    assert papers[3].abstract.startswith("An agent must try new behaviors")
    assert papers[13].abstract.startswith("Score-based and flow-based generative models")
    assert papers[-1].abstract.endswith("using a single frame against Qwen.")  # no final newline
    assert [p.source for p in papers] == [PAGE_000.name] * 20


def test_page_002_with_blank_lines_and_authors(taxonomy: Taxonomy) -> None:
    papers = papers_of(PAGE_002, taxonomy)
    assert len(papers) == 20
    assert [(p.topic_area, p.topic_subarea) for p in papers] == TOPICS_002
    assert papers[0].authors[:3] == ["Haoyun Jiang", "Haolin li", "jianwei zhang"]
    assert len(papers[0].authors) == 10 and not papers[0].authors_et_al
    # "… Dacheng Li 等" → the flag, and 等 is not part of the last name
    assert papers[1].authors[-1] == "Dacheng Li" and papers[1].authors_et_al
    assert len(papers[1].authors) == 10
    assert papers[3].authors == ["Michael Sander", "Vincent Roulet", "Tianlin Liu", "Mathieu Blondel"]
    assert papers[5].authors == ["Tianjian Li", "Daniel Khashabi"]
    assert papers[14].authors == ["Andrea Testa", "Søren Hauberg", "Tamim Asfour", "Leonel Rozo"]
    assert papers[16].authors == ["Ze'ev Zukerman", "Bassel Hamoud", "Kfir Levy"]
    assert "Wang" in papers[18].authors  # a one-word name is still a name
    assert sum(p.authors_et_al for p in papers) == 1
    assert all(len(p.abstract) > 500 for p in papers)


def test_no_page_chrome_in_papers(taxonomy: Taxonomy) -> None:
    for page in (PAGE_000, PAGE_002):
        for p in papers_of(page, taxonomy):
            text = " ".join([p.abstract, *p.authors])
            assert "论文检索" not in text and "精准定位" not in text and " · " not in text


def _read_text(folder: Path, text: str, taxonomy: Taxonomy) -> list:
    path = folder / "page.txt"
    path.write_bytes(text.encode("utf-8"))
    return list(read_records(path, taxonomy))


def test_over_long_abstract_rejected_at_its_block_start(taxonomy: Taxonomy, tmp_path: Path) -> None:
    text = "论文检索\n\nTheory · Learning Theory\n\n" + "word " * 4001 + "\n"
    records = _read_text(tmp_path, text, taxonomy)
    assert len(records) == 1 and isinstance(records[0], Reject)
    assert (records[0].line, records[0].field, records[0].reason) == (
        3,
        "abstract",
        "longer than 20000 characters",
    )


SYNTHETIC = [
    "论文检索",
    "输入标题、作者或关键词，从 987,654 篇学术成果中精准定位",
    "Deep Learning · Large Language Models",
    "张三，李四，王五 等",
    "我们研究大语言模型的稀疏注意力机制，并在多个基准上验证了效果。实验表明该方法显著降低了计算成本。",
    "Theory · Knitting",
    "Ada Lovelace, Alan Turing",
    "We study knitting from a theoretical point of view, with proofs. Results follow.",
    "A second abstract in a row has no topic and no authors, and it is still a paper of its own.",
    "Optimization",
]


@pytest.mark.parametrize("blank", [False, True])
@pytest.mark.parametrize("crlf", [False, True])
def test_synthetic_page_variants(taxonomy: Taxonomy, tmp_path: Path, blank: bool, crlf: bool) -> None:
    newline = "\r\n" if crlf else "\n"
    sep = newline * 2 if blank else newline
    text = "\ufeff" + sep.join(line + "  " for line in SYNTHETIC)  # BOM, trailing spaces, no final newline
    papers, rejects = split(_read_text(tmp_path, text, taxonomy))
    assert len(papers) == 3
    zh, knit, lone = papers
    assert (zh.topic_area, zh.topic_subarea) == ("Deep Learning", "Large Language Models")
    assert zh.authors == ["张三", "李四", "王五"] and zh.authors_et_al
    assert zh.abstract.startswith("我们研究") and not zh.abstract.endswith(" ")
    assert (knit.topic_area, knit.topic_subarea) == ("Theory", "Knitting")  # unknown subarea kept
    assert knit.authors == ["Ada Lovelace", "Alan Turing"]
    assert (lone.topic_area, lone.authors) == (None, [])
    # the trailing "Optimization" topic line has no abstract: reported, not silently dropped
    assert len(rejects) == 1 and rejects[0].reason == "topic line without an abstract"
    assert rejects[0].line == (19 if blank else 10)


def test_unknown_topic_is_kept_and_flagged(tmp_path: Path) -> None:
    tax = Taxonomy.load()
    papers, _ = split(_read_text(tmp_path, "\n".join(SYNTHETIC), tax))
    builder = DocumentBuilder(tax)
    docs = [builder.build(p) for p in papers]
    assert [d["topic_known"] for d in docs] == [True, False, False]
    assert docs[1]["topic_path"] == "Theory > Knitting"
    assert tax.unknown == {"Theory · Knitting": 1}


def test_same_page_twice_gives_same_ids(taxonomy: Taxonomy, tmp_path: Path) -> None:
    first = [p.id for p in papers_of(PAGE_002, taxonomy)]
    copy = tmp_path / "copy-of-002.txt"
    copy.write_bytes(PAGE_002.read_bytes().replace(b"\n", b"\r\n"))
    assert [p.id for p in papers_of(copy, taxonomy)] == first
    assert len(set(first)) == 20


def test_gzip_input(taxonomy: Taxonomy, tmp_path: Path) -> None:
    gz = tmp_path / "002.txt.gz"
    gz.write_bytes(gzip.compress(PAGE_002.read_bytes()))
    assert sniff(gz).format == "listing"
    assert [p.id for p in papers_of(gz, taxonomy)] == [p.id for p in papers_of(PAGE_002, taxonomy)]
    gzj = tmp_path / "papers.jsonl.gz"
    gzj.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    assert len(papers_of(gzj, taxonomy)) == 40


def test_truncated_gzip_raises_source_error(taxonomy: Taxonomy, tmp_path: Path) -> None:
    data = gzip.compress(SAMPLE.read_bytes() * 20)
    bad = tmp_path / "cut.jsonl.gz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"cut\.jsonl\.gz"):
        list(read_records(bad, taxonomy))


# --- JSON in our schema ----------------------------------------------------------------------------


def test_broken_jsonl_yields_good_records_and_a_reject_each(taxonomy: Taxonomy) -> None:
    path = FIXTURES / "broken.jsonl"
    assert sniff(path).format == "papers"
    papers, rejects = split(list(read_records(path, taxonomy)))
    assert [p.title or p.title_zh for p in papers] == [
        "Sparse Attention for Long Documents",
        "大语言模型的稀疏注意力",
        "Weaving with Qubits",
    ]
    got = [(r.line, r.field, r.reason) for r in rejects]
    assert got == [
        (2, "", "invalid JSON"),
        (3, "abstract", "needs a title or an abstract (English or Chinese)"),
        (4, "year", got[2][2]),
        (5, "title", "longer than 1000 characters"),
        (6, "url", "not an http(s) URL"),
        (9, "", "record is not a JSON object"),
        (11, "pdf_url", "not an http(s) URL"),
    ]
    assert got[2][2].startswith("outside 1800–")
    assert all(r.source == "broken.jsonl" and r.raw for r in rejects)
    assert rejects[0].format().startswith("broken.jsonl:2: record: invalid JSON (Expecting value")
    zh = papers[1]
    assert zh.authors == ["张三", "李四"] and zh.authors_et_al and zh.year == 2023
    assert (papers[2].topic_area, papers[2].topic_subarea) == ("Quantum Basket Weaving", "Looms")


def test_invalid_utf8_line_is_rejected_and_reading_goes_on(taxonomy: Taxonomy, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b'{"title": "A"}\n{"title": "\xff\xfe"}\n{"title": "C"}\n')
    papers, rejects = split(list(read_records(path, taxonomy)))
    assert [p.title for p in papers] == ["A", "C"]
    assert [(r.line, r.reason) for r in rejects] == [(2, "not valid UTF-8")]


def test_json_array_is_streamed(taxonomy: Taxonomy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "CHUNK", 7)  # force values across chunk boundaries
    items = [
        {"title": f"Paper {i}", "abstract": "Text, with ] and } inside.", "year": 2000 + i} for i in range(5)
    ]
    path = tmp_path / "array.json"
    path.write_text(
        "\ufeff[\n" + ",\n".join(json.dumps(x, indent=1) for x in items) + "\n]\n", encoding="utf-8"
    )
    assert sniff(path).format == "papers"
    papers = papers_of(path, taxonomy)
    assert [p.title for p in papers] == [f"Paper {i}" for i in range(5)]
    assert [p.year for p in papers] == [2000, 2001, 2002, 2003, 2004]
    assert len(papers[0].abstract) > 10


def test_json_array_with_broken_element(taxonomy: Taxonomy, tmp_path: Path) -> None:
    path = tmp_path / "bad-array.json"
    path.write_text(
        '[{"title": "A"},\n {"title": "B"},\n {"title": oops},\n {"title": "D"}]', encoding="utf-8"
    )
    papers, rejects = split(list(read_records(path, taxonomy)))
    assert [p.title for p in papers] == ["A", "B"]
    assert len(rejects) == 1 and rejects[0].line == 3 and rejects[0].reason == "invalid JSON"


def test_single_pretty_object_json(taxonomy: Taxonomy, tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"title": "Only one", "authors": ["A"]}, indent=2), encoding="utf-8")
    assert [p.title for p in papers_of(path, taxonomy)] == ["Only one"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert list(read_records(empty, taxonomy)) == []


def test_sample_file_is_what_make_sample_produces(tmp_path: Path, taxonomy: Taxonomy) -> None:
    out = tmp_path / "papers.jsonl"
    assert make_sample.main([str(PAGE_000), str(PAGE_002), "-o", str(out)]) == 0
    assert out.read_bytes() == SAMPLE.read_bytes()
    from_sample = papers_of(SAMPLE, taxonomy)
    from_pages = papers_of(PAGE_000, taxonomy) + papers_of(PAGE_002, taxonomy)
    assert from_sample == from_pages and len(from_sample) == 40
    assert all(list(json.loads(line)) == sorted(json.loads(line)) for line in SAMPLE.read_text().splitlines())


# --- arXiv -----------------------------------------------------------------------------------------


def test_arxiv_snapshot_lines_are_mapped(taxonomy: Taxonomy) -> None:
    path = FIXTURES / "arxiv-sample.jsonl"
    assert sniff(path).format == "arxiv"
    papers, rejects = split(list(read_records(path, taxonomy)))
    assert [r.line for r in rejects] == [4]
    new, old, attention, strings = papers
    assert new.id == "arxiv-2101.00001"
    assert new.title == "Learning to Compute" and new.abstract == "We show that machines can learn."
    assert new.authors == ["Ada Lovelace", "Alan Turing", "Grace Hopper"] and not new.authors_et_al
    assert (new.year, new.venue, new.record_type) == (2021, "arXiv", "preprint")
    assert new.url == "https://arxiv.org/abs/2101.00001" and new.pdf_url == "https://arxiv.org/pdf/2101.00001"
    assert (new.topic_area, new.topic_subarea) == ("General Machine Learning", None)
    assert old.id == "arxiv-math_0501001" and old.year == 2005
    assert (old.venue, old.record_type) == ("Ann. Math. 1 (2005) 1-10", None)  # published: the rules decide
    assert old.url == "https://arxiv.org/abs/math/0501001"
    assert (new.arxiv_id, new.doi) == ("2101.00001", None)
    assert (old.arxiv_id, old.doi) == ("math/0501001", "10.1000/xyz")  # the snapshot's doi, kept
    assert (
        old.authors == ["Carl Gauss", "Emmy Noether"] and old.authors_et_al
    )  # "and others"; affiliation dropped
    assert old.venue == "Ann. Math. 1 (2005) 1-10" and old.topic_area == "Optimization"
    # first *mapped* category wins: hep-th is skipped, cs.CL maps
    assert (attention.topic_area, attention.topic_subarea) == ("Applications", "Language, Speech and Dialog")
    assert attention.authors == ["Ashish Vaswani", "Noam Shazeer"] and attention.authors_et_al
    assert attention.year == 2017
    assert strings.topic_area is None and strings.year == 1999


# --- format detection and errors -------------------------------------------------------------------


def test_detect_format_by_extension_and_sniffing(tmp_path: Path) -> None:
    assert sniff(PAGE_000).format == "listing"
    nameless = tmp_path / "page"
    nameless.write_bytes(PAGE_002.read_bytes())
    assert sniff(nameless).format == "listing"
    data = tmp_path / "records.data"
    data.write_text('{"title": "T"}\n', encoding="utf-8")
    assert sniff(data).format == "papers"
    arx = tmp_path / "snapshot.ndjson"
    arx.write_bytes((FIXTURES / "arxiv-sample.jsonl").read_bytes())
    assert sniff(arx).format == "arxiv"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.md", b"Just some prose.\nNothing to see.\n", "unknown format"),
        ("blob.bin", b"\x00\x01\x02binary", "unknown format"),
    ],
)
def test_unknown_format_raises_before_yielding(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SourceError, match=message) as info:
        read_records(path)  # raises on the call itself, not on the first next()
    assert name in str(info.value)


def test_missing_file_and_directory_raise_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        read_records(tmp_path / "nope.jsonl")
    with pytest.raises(SourceError, match="not a regular file"):
        read_records(tmp_path)
    with pytest.raises(SourceError, match="unknown format 'csv'"):
        read_records(Source(PAGE_000, "csv"))


class _CountingFile:
    """A file object that counts the bytes read through it."""

    def __init__(self, f, counter: dict) -> None:
        self._f, self._counter = f, counter

    def _count(self, data):
        self._counter["bytes"] += len(data)
        return data

    def read(self, *args):
        return self._count(self._f.read(*args))

    def readline(self, *args):
        return self._count(self._f.readline(*args))

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


@pytest.mark.parametrize("compressed", [False, True])
def test_a_source_is_sniffed_from_its_head_and_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         taxonomy: Taxonomy, compressed: bool) -> None:
    from indexer.loading import readers
    from indexer.loading.prepare import produce

    data = SAMPLE.read_bytes() * 50  # 2,000 records, far more than the sniffed head
    path = tmp_path / ("papers.jsonl.gz" if compressed else "papers.jsonl")
    path.write_bytes(gzip.compress(data) if compressed else data)
    counter = {"opens": 0, "bytes": 0}
    real_open = readers._open_raw

    def counting_open(p: Path):
        counter["opens"] += 1
        return _CountingFile(real_open(p), counter)

    monkeypatch.setattr(readers, "_open_raw", counting_open)
    source = sniff(path, taxonomy)
    assert (source.format, source.gzip, source.container) == ("papers", compressed, "lines")
    assert counter["opens"] == 1
    sniffed = counter["bytes"]
    first_line = len(data.split(b"\n", 1)[0]) + 1
    assert sniffed <= 2 + readers.SNIFF_BYTES + first_line  # magic, head, the first value once more
    chunks: list = []
    produce([source], taxonomy, chunks.append)
    assert counter["opens"] == 2  # the sniff and the one read for data
    assert counter["bytes"] - sniffed == path.stat().st_size  # the data read once, no re-probing
    assert sum(len(c) for c in chunks[:-1]) == 2000


def test_arxiv_publication_date_is_the_first_versions() -> None:
    """Issue 57.13: when arXiv first made the paper available; update_date (a later version's) is not one."""
    from indexer.loading.readers.arxiv import published_of

    first = {"versions": [{"created": "Mon, 2 Apr 2007 19:18:42 GMT"}, {"created": "Tue, 24 Jul 2007 20:10:27 GMT"}],
             "update_date": "2008-11-13"}
    assert published_of(first) == "2007-04-02"
    assert published_of({"versions": [{"created": "someday"}], "update_date": "2008-11-13"}) is None
    assert published_of({"update_date": "2008-11-13"}) is None
