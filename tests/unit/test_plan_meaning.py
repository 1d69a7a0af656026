"""How a page's words and meaning's nearest papers are fused (webapp/services/plan/meaning.py, DECISIONS.md D-198,
D-219): the config's fusion, keeping the word matches' order, unless the question reaches the other language through
the dictionary's glosses (then fused fully, with more nearest papers), and the kNN body asks for that many."""

from __future__ import annotations

from webapp.services.bodies.meaning import body
from webapp.services.plan.meaning import Fusion, Nearest
from webapp.services.plan.requests import Page
from webapp.services.plan.words import Text, Word
from webapp.services.search_settings import search_config

CONFIG = search_config()


def page(*glossed: int) -> Page:
    """A page whose words carry glossed[i] glossed dictionary words each."""
    words = tuple(Word(i, f"w{i}", glosses=tuple((f"z{i}{j}", ("gloss",)) for j in range(n)))
                  for i, n in enumerate(glossed))
    return Page("as_typed", Text(words, required=len(words)))


def test_a_search_without_glossed_words_is_fused_as_the_config_says() -> None:
    m = CONFIG.meaning
    assert Fusion.of(page(0, 0), CONFIG) == Fusion(m.weight, m.k, m.keep_word_order)
    assert Fusion.of(Page("as_typed", None), CONFIG) == Fusion(m.weight, m.k, m.keep_word_order)


def test_a_question_glossed_enough_is_fused_fully_with_its_own_weight_and_k() -> None:
    q = CONFIG.meaning.glossed_questions
    below = Fusion.of(page(q.min_glossed_words - 1), CONFIG)
    assert below.keep_word_order == CONFIG.meaning.keep_word_order and below.k == CONFIG.meaning.k
    # the glossed words of all the question's runs count together
    spread = page(*([1] * q.min_glossed_words))
    assert Fusion.of(spread, CONFIG) == Fusion.of(page(q.min_glossed_words), CONFIG) \
        == Fusion(q.weight, q.k, keep_word_order=False, kept_language="zh")


def test_the_knn_asks_for_the_fusions_k() -> None:
    for p in (page(0), page(CONFIG.meaning.glossed_questions.min_glossed_words)):
        fusion = Fusion.of(p, CONFIG)
        sent = body(Nearest(p, (0.1,) * 4, "text", fusion), CONFIG)
        assert sent["size"] == sent["query"]["bool"]["must"][0]["knn"]["k"] == fusion.k
        assert sent["query"]["bool"]["must"][0]["knn"]["num_candidates"] >= fusion.k
