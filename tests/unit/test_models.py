import pytest
from pydantic import ValidationError

from indexer.models import Paper, content_id, paper_or_reject, to_document
from indexer.rejects import Reject
from papersearch.taxonomy import Taxonomy


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


def test_authors_et_al_from_string_and_list() -> None:
    p = Paper(title="T", authors="Haocheng Xi, Shuo Yang, Dacheng Li 等")
    assert p.authors == ["Haocheng Xi", "Shuo Yang", "Dacheng Li"] and p.authors_et_al
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


def test_document_known_topic(taxonomy: Taxonomy) -> None:
    p = Paper(
        title="T", authors=["A", "B"], topic_area="deep learning", topic_subarea="large language models"
    )
    doc = to_document(p, taxonomy)
    assert doc["topic_area"] == "Deep Learning" and doc["topic_subarea"] == "Large Language Models"
    assert doc["topic_path"] == "Deep Learning > Large Language Models"
    assert doc["topic_labels_zh"] == ["深度学习", "大语言模型"]
    assert doc["topic_known"] is True
    assert doc["heading"] == "T"
    assert doc["suggest"] == ["T", "A", "B"]
    assert doc["id"] == p.id


def test_document_area_only_and_repeated_subarea_names(taxonomy: Taxonomy) -> None:
    doc = to_document(Paper(title="T", topic_area="Applications"), taxonomy)
    assert (doc["topic_path"], doc["topic_labels_zh"]) == ("Applications", ["应用"])
    doc = to_document(Paper(title="T", topic_area="Theory", topic_subarea="Deep Learning"), taxonomy)
    assert doc["topic_path"] == "Theory > Deep Learning" and doc["topic_labels_zh"] == ["理论", "深度学习"]


def test_document_unknown_topic_kept_and_reported() -> None:
    taxonomy = Taxonomy.load()
    doc = to_document(Paper(title="T", topic_area="Deep Learning", topic_subarea="Knitting"), taxonomy)
    assert doc["topic_known"] is False
    assert doc["topic_path"] == "Deep Learning > Knitting" and doc["topic_labels_zh"] == ["深度学习"]
    doc = to_document(Paper(title="T", topic_area="Basket Weaving"), taxonomy)
    assert (
        doc["topic_known"] is False and doc["topic_path"] == "Basket Weaving" and doc["topic_labels_zh"] == []
    )
    assert taxonomy.unknown == {"Deep Learning · Knitting": 1, "Basket Weaving": 1}
    no_topic = to_document(Paper(title="T"), taxonomy)
    assert no_topic["topic_path"] is None and no_topic["topic_known"] is False


def test_document_heading_fallbacks(taxonomy: Taxonomy) -> None:
    assert to_document(Paper(title_zh="中文标题", abstract="A."), taxonomy)["heading"] == "中文标题"
    doc = to_document(Paper(abstract="First sentence here. Second one.", authors=["A"]), taxonomy)
    assert doc["heading"] == "First sentence here." and doc["suggest"] == ["First sentence here.", "A"]
    long = to_document(Paper(abstract="word " * 100), taxonomy)["heading"]
    assert len(long) <= 120 and long.endswith("…")
    assert to_document(Paper(abstract_zh="我们研究注意力。其他。"), taxonomy)["heading"] == "我们研究注意力。"
    both = to_document(Paper(title="En", title_zh="中", authors=["En"]), taxonomy)
    assert both["suggest"] == ["En", "中"]


def test_document_has_every_field(taxonomy: Taxonomy) -> None:
    doc = to_document(Paper(title="T"), taxonomy)
    expected = set(Paper.model_fields) | {
        "topic_path",
        "topic_labels_zh",
        "heading",
        "suggest",
        "topic_known",
        "concepts",
        "languages",
    }
    assert set(doc) == expected


def test_document_topic_spelling_variants_are_stored_canonically() -> None:
    taxonomy = Taxonomy.load()
    doc = to_document(Paper(title="T", topic_area="Social Aspects",
                            topic_subarea="Accountability, Transparency and Interpretability"), taxonomy)
    assert doc["topic_path"] == "Social Aspects > Accountability, Transparency, and Interpretability"
    assert doc["topic_known"] is True and doc["topic_labels_zh"] == ["社会影响", "问责、透明与可解释性"]
    doc = to_document(Paper(title="T", topic_area="reinforcement learning -> Batch/Offline"), taxonomy)
    assert (doc["topic_area"], doc["topic_subarea"]) == ("Reinforcement Learning", "Batch/Offline")
    doc = to_document(Paper(title="T", topic_area="deep learning", topic_subarea="Knitting"), taxonomy)
    assert doc["topic_path"] == "Deep Learning > Knitting" and doc["topic_known"] is False
    assert taxonomy.unknown == {"deep learning · Knitting": 1}


def test_document_carries_the_concepts_the_paper_names_in_either_language(taxonomy: Taxonomy) -> None:
    paper = Paper(title="Contrastive learning for graph neural networks", abstract_zh="我们研究联邦学习。",
                  keywords=["knowledge distillation"])
    doc = to_document(paper, taxonomy)
    assert set(doc["concepts"]) >= {"contrastive_learning", "graph_neural_network", "federated_learning",
                                    "knowledge_distillation"}
    assert "neural_network" not in doc["concepts"]
    assert to_document(Paper(title="An organ atlas"), taxonomy)["concepts"] == []


def test_document_says_which_languages_the_paper_is_written_in(taxonomy: Taxonomy) -> None:
    assert to_document(Paper(title="T"), taxonomy)["languages"] == ["en"]
    assert to_document(Paper(abstract_zh="摘要"), taxonomy)["languages"] == ["zh"]
    assert to_document(Paper(title="T", title_zh="标题"), taxonomy)["languages"] == ["en", "zh"]
