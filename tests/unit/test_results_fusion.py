"""The fusion of a glossed question (webapp/services/results/fusion.py `fuse_keeping`, DECISIONS.md D-219): the word
matches written as typed keep their places, every other place is the full fusion of the rest."""

from __future__ import annotations

from webapp.services.results.fusion import fuse, fuse_keeping


def test_kept_papers_stay_where_the_words_put_them_and_meaning_reorders_the_rest() -> None:
    words = ["zh1", "en1", "en2", "zh2", "en3"]
    near = ["en3", "m1", "en1"]
    out = fuse_keeping(words, near, 1.5, 60, {"zh1", "zh2"})
    assert out[0] == "zh1" and out[3] == "zh2"  # the question's own-language matches keep their places
    rest = [d for d in fuse([(words, 1.0), (near, 1.5)], 60) if d not in {"zh1", "zh2"}]
    assert [d for d in out if d not in {"zh1", "zh2"}] == rest  # en3 and en1, in both lists, lead the others
    assert sorted(out) == sorted(set(words) | set(near))  # nothing lost, nothing twice


def test_nothing_kept_is_the_full_fusion_and_nothing_by_words_is_meanings_order() -> None:
    words, near = ["a", "b", "c"], ["c", "d"]
    assert fuse_keeping(words, near, 1.5, 60, set()) == fuse([(words, 1.0), (near, 1.5)], 60)
    assert fuse_keeping([], near, 1.5, 60, set()) == near
    assert fuse_keeping(words, [], 1.5, 60, {"b"}) == words
