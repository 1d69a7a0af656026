import re
import unicodedata

from nodeless import drawn

from indexer.loading.authors import parse_author_line, split_et_al
from papersearch.text import (
    ELLIPSIS,
    derive_heading,
    first_sentence,
    fold_key,
    has_cjk,
    language_of,
    normalize_text,
    shorten,
)


def test_normalize_nfc_controls_whitespace() -> None:
    assert normalize_text("Cafe\u0301") == "Café"  # decomposed → composed
    assert normalize_text("\ufeff a\tb\r\nc\x00d\x7f e  ") == "a b c d e"
    assert normalize_text("zero\u200bwidth") == "zerowidth"
    assert normalize_text("全角\u3000空格") == "全角 空格"  # ideographic space is whitespace
    assert normalize_text(None) == ""
    assert normalize_text("") == ""


def test_fold_key_ignores_case_and_spacing() -> None:
    assert fold_key("Deep  Learning", "X") == fold_key("deep learning ", " x")
    assert fold_key("a", "b") != fold_key("a b")


def test_author_line_et_al_variants() -> None:
    assert parse_author_line("Haocheng Xi, Shuo Yang, Dacheng Li 等") == (
        ["Haocheng Xi", "Shuo Yang", "Dacheng Li"],
        True,
    )
    assert parse_author_line("张三，李四、王五等") == (["张三", "李四", "王五"], True)
    assert parse_author_line("A. Smith, B. Jones et al.") == (["A. Smith", "B. Jones"], True)
    assert parse_author_line("A. Smith; B. Jones") == (["A. Smith", "B. Jones"], False)
    assert parse_author_line("  ") == ([], False)
    assert split_et_al("Jiaqi Leng, Bin Shi") == ("Jiaqi Leng, Bin Shi", False)
    assert split_et_al("等") == ("", True) and split_et_al("et al.")[1] and not split_et_al("Albert")[1]


def test_has_cjk_covers_han_kana_hangul_only() -> None:
    assert has_cjk("Transformer模型") and has_cjk("㐀") and has_cjk("カタカナ") and has_cjk("한국어")
    assert not has_cjk("Søren Hauberg, 2024 — α-divergence")


def test_language_of_a_text_for_its_lang_attribute() -> None:
    assert language_of("基于大语言模型的论文检索") == "zh" and language_of("Transformer <mark>模型</mark>") == "zh"
    assert language_of("Graph <mark>neural</mark> networks") == "en" and language_of("") == "en"


def test_first_sentence() -> None:
    assert first_sentence("We study X. Then Y.") == "We study X."
    assert first_sentence("In (e.g., vLLM) engines we win. More.") == "In (e.g., vLLM) engines we win."
    assert first_sentence("我们研究稀疏注意力。结果很好。") == "我们研究稀疏注意力。"
    assert first_sentence("No full stop at all") == "No full stop at all"


def test_shorten_cuts_at_word_boundary() -> None:
    text = "word " * 60
    out = shorten(text, 120)
    assert len(out) <= 120 and out.endswith(ELLIPSIS)
    assert out[:-1].split() == ["word"] * len(out[:-1].split())  # no half words
    assert shorten("short", 120) == "short"


def test_shorten_cjk_without_spaces() -> None:
    out = shorten("中" * 300, 120)
    assert len(out) == 120 and out.endswith(ELLIPSIS)


def test_derive_heading() -> None:
    assert derive_heading("A short first sentence. And more text here.") == "A short first sentence."
    long = "This first sentence goes on " + "and on " * 40 + "until it ends. Second."
    heading = derive_heading(long)
    assert len(heading) <= 120 and heading.endswith(ELLIPSIS) and heading.startswith("This first sentence")


def _reference_normalize(value: str | None) -> str:
    """normalize_text without its fast path: the rule as first written."""
    if not value:
        return ""
    text = unicodedata.normalize("NFC", value)
    text = re.sub(r"[\ufeff\u200b\u200c\u200d\u2060]", "", text)
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", text)
    return " ".join(text.split())


def test_normalize_fast_path_agrees_with_the_rule() -> None:
    # Clean and dirty values alike: ASCII, accents (composed and not), CJK, every kind of space,
    # controls, invisible characters, at the ends and doubled.
    pool = ["a", "Z", " ", "  ", "\t", "\n", "\x00", "\x1c", "\x7f", "\x85", "\xa0", "\u3000", "\u2009",
            "\u200b", "\ufeff", "\u2060", "é", "e\u0301", "\u0301", "中", "文", "Ω", "ﬁ", ".", "-"]
    rnd = drawn(7)
    values = ["", "plain ascii text", "Søren Müller", "全角 空格", *pool]
    values += ["".join(rnd.choices(pool, k=rnd.randint(1, 12))) for _ in range(5000)]
    for value in values:
        assert normalize_text(value) == _reference_normalize(value), repr(value)


def test_math_spellings_meet_what_the_index_holds():
    # `$\ell_1$` is indexed as ell_1, `$\alpha$-divergence` as alpha, divergence (issue 44.4).
    from papersearch.text import math_spellings, plain_spelling

    assert math_spellings("ℓ1") == ("ell_1", "l1")
    assert math_spellings("L1") == ("ell_1", "ℓ1") == math_spellings("l1")
    assert math_spellings("α-divergence") == ("alpha-divergence",)
    assert math_spellings("alpha-divergence") == ("α-divergence",)
    assert math_spellings("αTC-VAE") == ("alpha-TC-VAE",)
    assert math_spellings("learning") == math_spellings("alphabet") == math_spellings("深度") == ()
    assert plain_spelling("ℓ1") == "l1" and plain_spelling("gan") == "gan"
