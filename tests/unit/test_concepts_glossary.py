"""Loading and validating a concept glossary: every problem named with file:line, field and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from papersearch.concepts import GlossaryError, load
from papersearch.concepts.glossary import parse

FIXTURE = Path(__file__).parents[1] / "fixtures" / "concepts-small.tsv"
GOOD = "contrastive_learning\tmethod\tcontrastive learning\t对比学习|對比學習\t\n"


def problems(text: str) -> list[str]:
    with pytest.raises(GlossaryError) as err:
        parse(text, "g.tsv")
    return err.value.problems


def test_fixture_loads() -> None:
    glossary = load(FIXTURE)
    concepts = glossary.by_id()
    assert len(glossary) > 20
    llm = concepts["large_language_model"]
    assert llm.en == ("large language model", "LLM") and llm.name_zh == "大语言模型"
    assert concepts["segment_anything"].ambiguous


def test_comments_blank_lines_and_a_missing_trailing_tab_are_fine() -> None:
    glossary = parse("# id\tkind\ten\tzh\tflags\n\n" + GOOD.rstrip("\t\n") + "\n", "g.tsv")
    assert glossary.concepts[0].line == 3


@pytest.mark.parametrize(("line", "expected"), [
    ("Contrastive\tmethod\tcontrastive learning\t对比学习", "g.tsv:2: id: 'Contrastive' is not lowercase snake_case"),
    ("x\tmethd\tx ray\t射线", "g.tsv:2: kind: 'methd' is not one of"),
    ("x\tmethod\tx ray\t射线\tvague", "g.tsv:2: flags: 'vague' is not empty or 'ambiguous'"),
    ("x\tmethod\t\t射线", "g.tsv:2: en: no English form"),
    ("x\tmethod\tx ray\t", "g.tsv:2: zh: no Chinese form"),
    ("x\tmethod\tx ray||xr\t射线", "g.tsv:2: en: form '': empty form"),
    ("x\tmethod\tx ray\t射线| X射线", "g.tsv:2: zh: form ' X射线': leading or trailing space"),
    ("x\tmethod\tx ray\tx ray", "g.tsv:2: zh: form 'x ray': a Chinese form needs Chinese characters"),
    ("x\tmethod\tX射线\t射线", "g.tsv:2: en: form 'X射线': an English form must not contain Chinese"),
    ("x\tmethod\tmodel\t射线", "g.tsv:2: en: form 'model': too generic"),
    ("x\tmethod\tx ray\t模型", "g.tsv:2: zh: form '模型': too generic"),
    ("x\tmethod\tx ray|X rays\t射线", "g.tsv:2: en: form 'X rays': repeats another form of the same concept"),
    ("x\tmethod\tx ray", "g.tsv:2: line: expected 5 tab-separated columns"),
])
def test_a_broken_line_is_named_with_file_line_field_and_reason(line: str, expected: str) -> None:
    found = problems(GOOD + line + "\n")
    assert len(found) == 1
    assert found[0].startswith(expected)


def test_the_same_form_in_two_concepts_needs_the_ambiguous_flag_on_both() -> None:
    text = GOOD + "contrastive_repr\tmethod\tcontrastive learnings|CRL\t对比表示学习\t\n"
    (found,) = problems(text)
    assert found.startswith("g.tsv:2: en: form 'contrastive learnings' also belongs to 'contrastive_learning' (line 1)")
    flagged = ("sam_a\tmodel\tsegment anything model|SAM\t分割一切模型\tambiguous\n"
               "sam_b\tmethod\tsharpness-aware minimization|SAM\t锐度感知最小化\tambiguous\n")
    assert len(parse(flagged, "g.tsv")) == 2
    one_flag = flagged.replace("\tambiguous\n", "\t\n", 1)
    assert problems(one_flag)[0].startswith("g.tsv:2: en: form 'SAM' also belongs to 'sam_a'")


def test_duplicate_ids_and_chinese_forms_across_concepts() -> None:
    text = (GOOD + "contrastive_learning\tmethod\tcontrastive loss\t对比损失\n"
            + "other\tmethod\tother thing\t對比學習\n")
    found = problems(text)
    assert any(p.startswith("g.tsv:2: id: 'contrastive_learning' already defined on line 1") for p in found)
    assert any(p.startswith("g.tsv:3: zh: form '對比學習' also belongs to 'contrastive_learning'") for p in found)


def test_every_problem_is_reported_and_good_lines_around_them_are_still_read() -> None:
    text = GOOD + "bad id\tmethod\tx\t射线\n" + "y\tmethod\ty ray\t\n" + "z\ttask\tz ray\tZ射线\n"
    with pytest.raises(GlossaryError) as err:
        parse(text, "g.tsv")
    assert [p.split(": ")[0] for p in err.value.problems] == ["g.tsv:2", "g.tsv:3"]
    assert "2 problem(s)" in str(err.value)


def test_an_unreadable_or_empty_file_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(GlossaryError, match=r"missing\.tsv:0: file: cannot read"):
        load(tmp_path / "missing.tsv")
    empty = tmp_path / "empty.tsv"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    with pytest.raises(GlossaryError, match="the glossary has no concepts"):
        load(empty)


def test_the_check_command_names_each_problem_and_fails(tmp_path: Path, capsys) -> None:
    from papersearch.concepts.__main__ import main

    broken = tmp_path / "concepts.tsv"
    broken.write_text(GOOD + "x\tmethod\tx ray||xr\t射线\n", encoding="utf-8")
    assert main(["check", str(broken)]) == 1
    assert f"{broken}:2: en: form '': empty form" in capsys.readouterr().err
    assert main(["check", str(FIXTURE)]) == 1  # valid, but a fixture does not cover the taxonomy
    assert "taxonomy topic without a concept" in capsys.readouterr().err
    assert main(["check"]) == 0  # the real glossary
    assert "concepts (" in capsys.readouterr().out
