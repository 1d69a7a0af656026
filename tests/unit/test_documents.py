import pytest

from indexer.loading.documents import DocumentBuilder
from indexer.loading.models import Paper
from papersearch.taxonomy import Taxonomy


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return Taxonomy.load()


def to_document(paper: Paper, taxonomy: Taxonomy) -> dict:
    return DocumentBuilder(taxonomy).build(paper)


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
        "math",
        "author_keys",
        "author_key_words",
        "introduces",
        "added",
    }
    assert set(doc) == expected
    assert list(doc)[-1] == "added"  # last, so the loader can replace it in place (indexer/loading/added_dates.py)


def test_builder_caches_known_topics_and_counts_every_unknown_one() -> None:
    taxonomy = Taxonomy.load()
    builder = DocumentBuilder(taxonomy)
    calls = []
    canonical = taxonomy.canonical
    taxonomy.canonical = lambda *a: calls.append(a) or canonical(*a)  # type: ignore[method-assign]
    papers = [Paper(title=f"T{i}", topic_area="deep learning", topic_subarea="Theory") for i in range(5)]
    docs = [builder.build(p) for p in papers]
    assert {d["topic_path"] for d in docs} == {"Deep Learning > Theory"}
    looked_up = len(calls)
    assert looked_up > 0
    builder.build(Paper(title="again", topic_area="deep learning", topic_subarea="Theory"))
    assert len(calls) == looked_up  # served from the cache
    for _ in range(3):
        builder.build(Paper(title="T", topic_area="Deep Learning", topic_subarea="Knitting"))
    assert taxonomy.unknown == {"Deep Learning · Knitting": 3}
    docs[0]["topic_labels_zh"].append("mutated")  # a document's list is its own, not the cache's
    assert builder.build(papers[1])["topic_labels_zh"] == ["深度学习", "理论"]


def test_document_carries_the_paper_as_validated(taxonomy: Taxonomy) -> None:
    paper = Paper(title="T", authors="A, B 等", keywords="x; y", year=2020, url="https://a.org/x",
                  topic_area="Theory", topic_subarea="Game Theory", source="f.jsonl")
    doc = DocumentBuilder(taxonomy).build(paper)
    assert {k: doc[k] for k in Paper.model_fields} == paper.model_dump()


def test_document_carries_the_concepts_the_paper_names_in_either_language(taxonomy: Taxonomy) -> None:
    paper = Paper(title="Contrastive learning for graph neural networks", abstract_zh="我们研究联邦学习。",
                  keywords=["knowledge distillation"])
    doc = to_document(paper, taxonomy)
    assert set(doc["concepts"]) >= {"contrastive_learning", "graph_neural_network", "federated_learning",
                                    "knowledge_distillation"}
    assert "neural_network" in doc["concepts"]  # nested in graph neural networks: tagged too (D-218)
    assert to_document(Paper(title="An organ atlas"), taxonomy)["concepts"] == []


def test_document_says_which_languages_the_paper_is_written_in(taxonomy: Taxonomy) -> None:
    assert to_document(Paper(title="T"), taxonomy)["languages"] == ["en"]
    assert to_document(Paper(abstract_zh="摘要"), taxonomy)["languages"] == ["zh"]
    assert to_document(Paper(title="T", title_zh="标题"), taxonomy)["languages"] == ["en", "zh"]


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


@pytest.mark.parametrize(("record", "record_type", "venue", "subjects"), [
    ({"venue": "ICLR"}, "conference-paper", "ICLR", []),
    ({"venue": "NeurIPS 2023"}, "conference-paper", "NeurIPS 2023", []),
    ({"venue": "中文信息学报"}, "journal-article", "中文信息学报", []),
    ({"venue": "中医学/中药学"}, "journal-article", "", ["中医学/中药学"]),  # a discipline is no venue
    ({"venue": "中医学/中药学", "record_type": "preprint", "subjects": ["草药"]}, "preprint", "",
     ["草药", "中医学/中药学"]),
    ({"venue": "arXiv"}, "preprint", "arXiv", []),
    ({"venue": "ICLR", "record_type": "journal-article"}, "journal-article", "ICLR", []),  # the record's own wins
    ({"venue": "WebSec"}, None, "WebSec", []),
    ({}, None, "", []),
])
def test_record_type_from_the_record_or_the_rules(taxonomy: Taxonomy, record: dict, record_type: str | None,
                                                 venue: str, subjects: list[str]) -> None:
    doc = to_document(Paper(title="T", **record), taxonomy)
    assert (doc["record_type"], doc["venue"], doc["subjects"]) == (record_type, venue, subjects)


def test_formulas_are_indexed_as_readable_text(taxonomy: Taxonomy) -> None:
    doc = to_document(Paper(title=r"$\alpha$TC-VAE", abstract=r"Images of 1024$\times$512 at \(\mathcal{O}(n)\)."),
                      taxonomy)
    assert doc["math"] == "α × 𝒪(n)"
    assert doc["title"] == r"$\alpha$TC-VAE"  # the text itself as written
    assert to_document(Paper(title="Costs $5 and $10"), taxonomy)["math"] == ""


def test_authors_complete_by_any_part_of_the_name_and_without_diacritics(taxonomy: Taxonomy) -> None:
    doc = to_document(Paper(title="T", authors=["Yoshua Bengio", "Klaus-Robert Müller", "张伟"]), taxonomy)
    assert doc["suggest"] == ["T", "Yoshua Bengio", "Bengio Yoshua", "Klaus-Robert Müller", "Robert Müller Klaus",
                              "Müller Klaus-Robert", "Klaus-Robert Muller", "Robert Muller Klaus",
                              "Muller Klaus-Robert", "张伟", "伟 张"]


@pytest.mark.parametrize(("change", "message"), [
    ({"types": ["conference-paper"]}, "types must be"),
    ({"venues": {"book": ["X"]}}, "unknown record type 'book'"),
    ({"venue_patterns": {"preprint": ["(unclosed"]}}, "missing"),
])
def test_record_type_rules_refuse_a_broken_file(change: dict, message: str) -> None:
    import json

    from papersearch.paths import config_dir
    from papersearch.record_types import RULES_FILE, RecordTypeRules

    data = json.loads((config_dir() / RULES_FILE).read_text(encoding="utf-8")) | change
    with pytest.raises(Exception, match=message):
        RecordTypeRules(data)
