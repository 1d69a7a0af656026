import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pydantic import ValidationError

from indexer.loading.models import Paper, content_id, paper_from_json, paper_or_reject
from indexer.loading.rejects import Reject
from papersearch.taxonomy import Taxonomy

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE = ROOT / "indexer" / "sample" / "papers.jsonl"


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return Taxonomy.load()


def test_minimal_paper_and_defaults() -> None:
    p = Paper(abstract="  Some\nabstract. ")
    assert p.abstract == "Some abstract."
    assert p.title == "" and p.authors == [] and p.year is None and p.topic_area is None
    assert p.id.startswith("p") and len(p.id) == 17


def test_requires_some_text() -> None:
    with pytest.raises(ValidationError):
        Paper(title=" ", abstract="\n", authors=["A"])
    assert Paper(title_zh="标题").title_zh == "标题"
    assert Paper(abstract_zh="摘要").abstract_zh == "摘要"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "x" * 1001),
        ("title_zh", "中" * 1001),
        ("abstract", "x" * 20001),
        ("authors", ["x" * 301]),
        ("authors", [f"Author {i}" for i in range(501)]),
        ("keywords", ["k" * 201]),
    ],
)
def test_over_long_is_an_error_not_truncated(field: str, value: object) -> None:
    data = {"title": "T", field: value}
    with pytest.raises(ValidationError) as info:
        Paper.model_validate(data)
    assert info.value.errors()[0]["loc"][0] == field
    assert "longer than" in info.value.errors()[0]["msg"]


def test_limits_are_inclusive_and_measured_after_normalisation() -> None:
    assert len(Paper(title="x" * 1000).title) == 1000
    assert len(Paper(title="x" * 1000 + "   \n").title) == 1000


def test_year_range_and_coercion() -> None:
    assert Paper(title="T", year="2024").year == 2024
    assert Paper(title="T", year="").year is None
    for bad in (1500, 3024, "soon", 2020.5):
        with pytest.raises(ValidationError):
            Paper(title="T", year=bad)


def test_urls_http_only() -> None:
    p = Paper(title="T", url="https://a.org/x", pdf_url="http://a.org/x.pdf")
    assert (p.url, p.pdf_url) == ("https://a.org/x", "http://a.org/x.pdf")
    assert Paper(title="T", url="").url is None
    for bad in ("ftp://a.org/x", "javascript:alert(1)", "a.org/x", "https://", "http://a.org/has space"):
        with pytest.raises(ValidationError):
            Paper(title="T", pdf_url=bad)


@pytest.mark.parametrize(("field", "given", "kept"), [
    ("doi", "10.1000/xyz_1", "10.1000/xyz_1"), ("doi", "https://doi.org/10.48550/arXiv.1706.03762",
                                                 "10.48550/arXiv.1706.03762"),
    ("doi", "doi: 10.1109/5.771073", "10.1109/5.771073"), ("doi", "", None), ("doi", None, None),
    ("arxiv_id", "arXiv:1706.03762v7", "1706.03762v7"), ("arxiv_id", "math.GT/0309136", "math.GT/0309136"),
    ("arxiv_id", "hep-th/9901001", "hep-th/9901001"), ("arxiv_id", " ", None),
])
def test_doi_and_arxiv_id_are_kept_without_their_prefixes(field: str, given: object, kept: str | None) -> None:
    assert getattr(Paper(title="x", **{field: given}), field) == kept


@pytest.mark.parametrize(("field", "given"), [("doi", "not a doi"), ("doi", "11.1000/x"), ("doi", "10.1000/a b"),
                                              ("arxiv_id", "1706.037"), ("arxiv_id", "https://arxiv.org/abs/1706")])
def test_a_malformed_identifier_is_refused_naming_the_field(field: str, given: str) -> None:
    reject = paper_or_reject({"title": "x", field: given}, source="f.jsonl", line=3)
    assert isinstance(reject, Reject) and reject.field == field and reject.reason.startswith("not a")


def test_urls_agree_with_urlsplit() -> None:
    """The regular expression that spares most URLs urlsplit decides as urlsplit does."""

    def by_urlsplit(value: str) -> bool:
        try:
            parts = urlsplit(value)
        except ValueError:
            return False
        return parts.scheme.lower() in ("http", "https") and bool(parts.netloc) and " " not in value

    urls = ["https://a.org/x", "HTTP://A.ORG", "http://a.org:8080/p?q=1#f", "https://a.org?x", "http:///path",
            "http://?q", "http://#f", "http://[::1]/x", "http://[::1/x", "http://a]b/", "https:a.org",
            "http://user@a.org/", "http://例子.中国/x", "http://a\uff0fb/", "https://a.org/ü", "mailto:a@b.org",
            "http://a.org/%20x", "https://", "http://a b", "//a.org/x", "http://a.org\\x"]
    for url in urls:
        expected = by_urlsplit(url)
        try:
            got = Paper(title="T", url=url).url == url
        except ValidationError:
            got = False
        assert got == expected, url


def test_json_path_validates_like_the_dict_path() -> None:
    """paper_from_json (pydantic's JSON parser) gives the same Paper as json.loads + paper_or_reject."""
    lines = [line for path in (SAMPLE, FIXTURES / "broken.jsonl") for line in path.read_text("utf-8").splitlines()]
    lines += ['{"title": "T", "authors": "A, B 等"}', '{"title": "T", "source": "given.txt"}',
              '{"title": "T", "year": "2020", "keywords": "a; b"}', '{"abstract": "x", "authors": ["A", "等"]}']
    accepted = 0
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            data = None
        expected = paper_or_reject(data, source="f.jsonl", line=1) if data is not None else None
        try:
            got = paper_from_json(line.encode(), source="f.jsonl")
        except ValidationError:
            assert not isinstance(expected, Paper), line
            continue
        assert got == expected, line
        accepted += 1
    assert accepted >= 44
    assert paper_from_json(b'{"title": "T"}', source="f.jsonl").source == "f.jsonl"
    assert paper_from_json(b'{"title": "T", "source": "given.txt"}', source="f.jsonl").source == "given.txt"


def test_authors_et_al_from_string_and_list() -> None:
    p = Paper(title="T", authors="Haocheng Xi, Shuo Yang, Dacheng Li 等")
    assert p.authors == ["Haocheng Xi", "Shuo Yang", "Dacheng Li"] and p.authors_et_al
    p = Paper(title="T", authors="A; B,\t等人")
    assert p.authors == ["A", "B"] and p.authors_et_al
    p = Paper(title="T", authors=["A", "B 等"])
    assert p.authors == ["A", "B"] and p.authors_et_al
    p = Paper(title="T", authors=["Ada  Lovelace", "Alan\u200bTuring"])
    assert p.authors == ["Ada Lovelace", "AlanTuring"] and not p.authors_et_al
    p = Paper(title="T", authors=["A", "B", "et al."])
    assert p.authors == ["A", "B"] and p.authors_et_al
    p = Paper(title="T", authors=["A", " ", "B"])
    assert p.authors == ["A", "B"] and not p.authors_et_al
    assert Paper(title="T", authors=["A"], authors_et_al=True).authors_et_al


def test_keywords_split_and_deduplicated() -> None:
    assert Paper(title="T", keywords="LLM; attention, llm，注意力").keywords == ["LLM", "attention", "注意力"]


def test_subarea_needs_area() -> None:
    with pytest.raises(ValidationError):
        Paper(title="T", topic_subarea="Theory")


def test_content_id_is_deterministic_and_normalisation_insensitive() -> None:
    a = Paper(title="Deep  Nets", abstract="We  study nets.", authors=["Ada Lovelace"])
    b = Paper(title="deep nets ", abstract="We study\nnets.", authors=[" Ada  Lovelace"], source="other.txt")
    c = Paper(title="Deep Nets", abstract="We study nets.", authors=["Alan Turing"])
    assert a.id == b.id == content_id(a)
    assert a.id != c.id
    assert Paper(id=" my-id ", title="T").id == "my-id"
    with pytest.raises(ValidationError):
        Paper(id="x" * 513, title="T")


def test_paper_or_reject_maps_errors_to_fields() -> None:
    ok = paper_or_reject({"title": "T"}, source="f.jsonl", line=1)
    assert isinstance(ok, Paper) and ok.source == "f.jsonl"
    kept = paper_or_reject({"title": "T", "source": "orig.txt"}, source="f.jsonl", line=1)
    assert isinstance(kept, Paper) and kept.source == "orig.txt"
    cases = {
        "title": {"title": "x" * 1001},
        "year": {"title": "T", "year": 3024},
        "abstract": {"authors": ["A"]},
        "topic_subarea": {"title": "T", "topic_subarea": "Theory"},
        "authors": {"title": "T", "authors": 42},
        "": [1, 2],
    }
    for field, data in cases.items():
        rej = paper_or_reject(data, source="f.jsonl", line=7, raw="RAW")
        assert isinstance(rej, Reject), field
        assert (rej.field, rej.line, rej.source, rej.raw) == (field, 7, "f.jsonl", "RAW")
