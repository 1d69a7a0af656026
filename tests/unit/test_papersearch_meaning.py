"""Search by meaning without a node: the fusion of two ranked lists, the vector cache, what a paper is embedded from,
and an encoder that fails (DECISIONS.md D-196..D-198)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from papersearch import meaning
from webapp.services.results.fusion import fuse


def test_fusion_keeps_the_words_first_at_half_weight_and_fills_from_meaning() -> None:
    words = ["w1", "w2", "w3"]
    near = ["m1", "w3", "m2"]
    order = fuse([(words, 1.0), (near, 0.5)], 60)
    assert order[:3] == ["w3", "w1", "w2"]  # in both lists: ahead of the words' first
    assert order[3:] == ["m1", "m2"]
    assert fuse([([], 1.0), (near, 0.5)], 60) == near  # nothing by words: meaning's order


class CountingEncoder:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str]) -> Any:
        self.seen += texts
        return np.ones((len(texts), meaning.DIMS), dtype=np.float32) / np.sqrt(meaning.DIMS)


def test_a_text_embedded_once_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = CountingEncoder()
    monkeypatch.setattr(meaning, "_encoder", lambda: encoder)
    embedder = meaning.Embedder(meaning.VectorCache(tmp_path / "v.sqlite"))
    first = embedder.vectors(["a paper", "", "another paper"])
    assert first[1] is None and first[0].shape == (meaning.DIMS,)
    again = meaning.Embedder(meaning.VectorCache(tmp_path / "v.sqlite")).vectors(["another paper", "a third"])
    assert encoder.seen == ["a paper", "another paper", "a third"]  # sorted by length, each text once
    assert np.array_equal(again[0], first[2])
    assert (embedder.embedded, embedder.reused) == (2, 0)


def test_a_paper_is_embedded_from_its_titles_and_abstracts_cut_to_the_bound() -> None:
    text = meaning.paper_text("Title", "标题", "x" * 5000, None)
    assert text.startswith("Title\n标题\nxxx") and len(text) == meaning.search_config().meaning.text_chars


def test_an_encoder_that_fails_is_unavailable_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def encode(self, texts: list[str]) -> Any:
            raise ValueError("broken weights")

    monkeypatch.setattr(meaning, "_encoder", lambda: Broken())
    meaning._query_vector.cache_clear()
    with pytest.raises(meaning.EncoderUnavailable, match="broken weights"):
        meaning.query_vector("anything at all")


def test_interleaving_keeps_the_word_matches_in_their_order() -> None:
    from webapp.services.results.fusion import interleave

    words, near = ["w1", "w2", "w3"], ["w3", "m1", "m2"]
    assert interleave(words, near, 0.5, 60) == ["w1", "w2", "w3", "m1", "m2"]  # w3's meaning lifts no word match
    assert interleave(words, ["m1"], 2.0, 60) == ["m1", "w1", "w2", "w3"]  # a strong meaning hit goes first
    assert interleave([], near, 0.5, 60) == near
