"""Analysis: what the "plugin" and "core" profiles of config/index.json do to Chinese, English and author names.

Indices are created with index_definition.index_body(profile) and probed with `_analyze`; a few searches check that
the analysis serves its purpose. The last test restarts the local node (once) and checks the plugin survives it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from support import SAMPLE

from papersearch import index_definition

ZH = "大语言模型的推理加速"
MIXED = "LLM推理加速"
PROFILES = ("plugin", "core")


# --- fixtures and helpers -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def indices(cluster, admin: Elasticsearch) -> Iterator[dict[str, str]]:
    """One index per profile, created by the indexer identity from the project's index definition."""
    indexer = cluster.client("indexer")
    base = f"paperstest_analysis_{uuid.uuid4().hex[:8]}"
    names = {profile: f"{base}_{profile}" for profile in PROFILES}
    for profile, name in names.items():
        indexer.indices.create(index=name, **index_definition.index_body(profile))
    yield names
    admin.indices.delete(index=",".join(names.values()), ignore_unavailable=True)


def tokens(es: Elasticsearch, index: str, analyzer: str, text: str) -> list[str]:
    return [t["token"] for t in es.indices.analyze(index=index, analyzer=analyzer, text=text)["tokens"]]


def analysis(es: Elasticsearch, index: str, analyzer: str, text: str) -> list[dict]:
    return es.indices.analyze(index=index, analyzer=analyzer, text=text)["tokens"]


def bigrams(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(len(text) - 1)]


# --- the indices --------------------------------------------------------------------------------------------------


def test_index_created_under_both_profiles(admin: Elasticsearch, indices: dict[str, str]) -> None:
    definition = index_definition.load()
    expected_fields = set(definition["mappings"]["properties"])
    for profile, name in indices.items():
        mapping = admin.indices.get_mapping(index=name)[name]["mappings"]
        assert mapping["_meta"]["analysis_profile"] == profile
        assert set(mapping["properties"]) == expected_fields
        analyzers = admin.indices.get_settings(index=name)[name]["settings"]["index"]["analysis"]["analyzer"]
        assert set(analyzers) == set(definition["analysis_profiles"][profile]["analysis"]["analyzer"])
        # Every analyzer the mapping names is defined by the profile and works.
        for analyzer in sorted(analyzers):
            assert tokens(admin, name, analyzer, "Attention 注意力"), (profile, analyzer)


def test_choose_profile(cluster, admin: Elasticsearch) -> None:
    needed = index_definition.load()["analysis_profiles"]["plugin"]["requires_plugin"]
    nodes = admin.nodes.info(metric="plugins")["nodes"].values()
    everywhere = all(any(p["name"] == needed for p in node["plugins"]) for node in nodes)
    assert index_definition.choose_profile(admin) == ("plugin" if everywhere else "core")
    if cluster.kind == "local node":
        assert everywhere, f"the local node should have {needed}"
        assert index_definition.choose_profile(admin) == "plugin"
    assert index_definition.choose_profile(admin, "core") == "core"
    assert index_definition.choose_profile(admin, "plugin") == "plugin"
    assert index_definition.choose_profile(cluster.client("indexer"), "auto") == ("plugin" if everywhere else "core")


# --- Chinese ------------------------------------------------------------------------------------------------------


def test_plugin_segments_chinese_into_words(admin: Elasticsearch, indices: dict[str, str]) -> None:
    found = analysis(admin, indices["plugin"], "ps_zh", ZH)
    words = [t["token"] for t in found]
    assert words == ["大", "语言", "模型", "的", "推理", "加速"]
    # Nothing lost and nothing overlapping: the words tile the text, offsets point at the original characters.
    assert "".join(words) == ZH
    assert [ZH[t["start_offset"] : t["end_offset"]] for t in found] == words
    assert [t["position"] for t in found] == list(range(len(words)))
    assert any(len(w) > 1 for w in words)  # words, not characters


def test_core_profile_makes_overlapping_bigrams(admin: Elasticsearch, indices: dict[str, str]) -> None:
    core = indices["core"]
    assert tokens(admin, core, "ps_zh_bigram", ZH) == bigrams(ZH)
    assert tokens(admin, core, "ps_zh", ZH) == list(ZH)  # the word field falls back to single characters
    # The plugin profile's bigram subfield gives the same overlapping bigrams.
    assert tokens(admin, indices["plugin"], "ps_zh_bigram", ZH) == bigrams(ZH)


def test_mixed_latin_and_chinese(admin: Elasticsearch, indices: dict[str, str]) -> None:
    latin = "".join(c for c in MIXED if c.isascii()).lower()
    han = "".join(c for c in MIXED if not c.isascii())
    plugin, core = indices["plugin"], indices["core"]

    # plugin: the Latin acronym as one lowercased token, then words.
    assert tokens(admin, plugin, "ps_zh", MIXED) == [latin, "推理", "加速"]
    assert tokens(admin, plugin, "ps_zh_bigram", MIXED) == [latin, *bigrams(han)]
    # core: the acronym as one token plus characters in the word field, bigrams over the Chinese in the subfield.
    assert tokens(admin, core, "ps_zh", MIXED) == [latin, *han]
    core_bigrams = tokens(admin, core, "ps_zh_bigram", MIXED)
    assert core_bigrams[1:] == bigrams(han)
    assert core_bigrams[0].startswith(latin)


@pytest.mark.parametrize("profile", PROFILES)
def test_mixed_title_is_found_by_its_parts(cluster, indices: dict[str, str], profile: str) -> None:
    index = indices[profile]
    indexer, web = cluster.client("indexer"), cluster.client("web")
    docs = {
        "mixed": {"id": "mixed", "title_zh": MIXED + "的新方法"},
        "other": {"id": "other", "title_zh": "图像分割与目标检测"},
    }
    for doc_id, doc in docs.items():
        indexer.index(index=index, id=doc_id, document=doc)
    indexer.indices.refresh(index=index)

    def ids(query: str) -> set[str]:
        body = {"multi_match": {"query": query, "fields": ["title_zh", "title_zh.bigram"]}}
        return {h["_id"] for h in web.search(index=index, query=body)["hits"]["hits"]}

    assert ids("llm") == {"mixed"}
    assert ids("LLM") == {"mixed"}
    assert ids("推理加速") == {"mixed"}
    assert ids(MIXED) == {"mixed"}
    assert ids("目标检测") == {"other"}


# --- English and author names -------------------------------------------------------------------------------------


def test_plugin_english_stems(admin: Elasticsearch, indices: dict[str, str]) -> None:
    plugin = indices["plugin"]
    for word, stem in (("models", "model"), ("learning", "learn"), ("networks'", "network"), ("Networks", "network")):
        assert tokens(admin, plugin, "ps_en", word) == [stem], word
    assert tokens(admin, plugin, "ps_en", "models learning networks'") == ["model", "learn", "network"]
    assert tokens(admin, plugin, "ps_en", "the models") == ["model"]  # English stop words go
    # The exact subfield keeps the words as written (lowercased).
    assert tokens(admin, plugin, "ps_en_exact", "Models Learning") == ["models", "learning"]
    # Singular and plural meet in the index.
    assert tokens(admin, plugin, "ps_en", "network") == tokens(admin, plugin, "ps_en", "networks")


def test_core_english_is_not_stemmed(admin: Elasticsearch, indices: dict[str, str]) -> None:
    text = "The models learning networks"
    expected = [w.lower() for w in text.split() if w.lower() != "the"]
    assert tokens(admin, indices["core"], "ps_en", text) == expected


def test_plugin_author_folds_diacritics(admin: Elasticsearch, indices: dict[str, str]) -> None:
    plugin = indices["plugin"]
    folded = tokens(admin, plugin, "ps_author", "Soren Hauberg")
    assert folded == ["soren", "hauberg"]
    for spelling in ("Søren Hauberg", "SØREN HAUBERG", "søren hauberg"):
        assert tokens(admin, plugin, "ps_author", spelling) == folded, spelling
    assert tokens(admin, plugin, "ps_author", "Müller") == tokens(admin, plugin, "ps_author", "Muller")


def _sample_records() -> list[dict]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_author_search_without_diacritics(cluster, sample_alias: str) -> None:
    expected = sorted(r["id"] for r in _sample_records() if "Søren Hauberg" in r["authors"])
    assert expected, "the sample should hold a paper by Søren Hauberg"
    web = cluster.client("web")
    for query in ("Soren Hauberg", "Søren Hauberg", "soren hauberg"):
        hits = web.search(index=sample_alias, query={"match": {"authors": {"query": query, "operator": "and"}}},
                          size=50)["hits"]["hits"]
        assert sorted(h["_id"] for h in hits) == expected, query
        assert all("Søren Hauberg" in h["_source"]["authors"] for h in hits)
    none = web.search(index=sample_alias, query={"match": {"authors": {"query": "Soren Nobody-" + uuid.uuid4().hex,
                                                                        "operator": "and"}}})
    assert none["hits"]["total"]["value"] == 0
