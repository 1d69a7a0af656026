"""Citation export (BibTeX, RIS, CSL-JSON) as pure functions of a paper."""

from __future__ import annotations

import re

import pytest
from consumers import csl_items

from webapp.domain import Hit
from webapp.serializers import bibtex, ris
from webapp.serializers.citation_fields import citation_key, family_first


def paper(**fields) -> Hit:
    base = {"id": "ml-1", "heading": fields.get("title") or fields.get("title_zh") or "Heading", "heading_html": ""}
    return Hit(**(base | fields))


ICLR = paper(
    title="Differentiation of Blackbox Combinatorial Solvers",
    authors=["Marin Vlastelica Pogančić", "Vít Musil", "Søren Hauberg"],
    abstract="We present a method.\nIt works.", year=2020, venue="ICLR", url="https://openreview.net/forum?id=x",
    record_type="conference-paper",
)
CHINESE = paper(
    id="csl-dev-0", title_zh="一种基于平方和优化的飞行器大角度机动镇定控制器设计方法",
    abstract_zh="采用修正的Rodrigues参数(MRP),建立了飞行器姿态控制系统的数学模型。", subjects=["兵器科学与技术"],
    keywords=["平方和优化", "Lyapunov函数"], record_type="journal-article",  # as indexed: the discipline a subject
)


def test_key_is_surname_year_and_first_significant_title_word():
    assert citation_key(ICLR) == "pogancic2020differentiation"
    assert citation_key(paper(title="On the Theory of GANs", authors=["Ze'ev Zukerman"], year=2021)) == \
        "zukerman2021theory"
    assert citation_key(paper(title="A Study", authors=["张三"], year=2022)) == "zhang2022study"
    assert citation_key(paper(title="Q&A over tables", authors=["E. Dijkstra"], year=2023)) == "dijkstra2023qa"


def test_key_of_a_chinese_paper_is_ascii():
    assert citation_key(CHINESE) == "pingfang"  # 一种基于平方和…: the first significant word's pinyin
    assert re.fullmatch(r"[a-z0-9]+", citation_key(paper(title_zh="大语言模型", authors=["李四"], year=2023)))


@pytest.mark.parametrize(("title_zh", "word"), [
    ("基于深度学习的图像分割方法", "shendu"),  # not "jiyu" (基于, based on), the key of every tenth CSL paper
    ("一种新型锂电池隔膜的制备", "xinxing"), ("关于我国水运工程管理的思考", "woguo"),
    ("基于BP神经网络的负荷预测", "bp"),  # a Latin word first: that word, not its run with the Chinese
    ("基于", "jiyu"),  # nothing but the opening word: kept
])
def test_a_chinese_titles_key_word_skips_its_opening_words(title_zh, word):
    assert citation_key(paper(title_zh=title_zh)) == word
    assert citation_key(paper(title_zh=title_zh, authors=["王小明"], year=2021)) == f"wang2021{word}"


def test_key_falls_back_to_the_paper_id():
    assert citation_key(paper(id="ab/c d", title="", title_zh="", heading="", authors=[])) == "ab-c-d"


def test_bibtex_entry():
    entry = bibtex.to_bibtex(ICLR)
    assert entry.startswith("@inproceedings{pogancic2020differentiation,\n")
    assert "  author = {Marin Vlastelica Pogančić and Vít Musil and Søren Hauberg},\n" in entry
    assert "  title = {Differentiation of Blackbox Combinatorial Solvers},\n" in entry
    assert "  booktitle = {ICLR},\n  year = {2020},\n" in entry
    assert "  abstract = {We present a method. It works.}\n}\n" in entry  # one line, whitespace collapsed
    assert entry.endswith("}\n")


@pytest.mark.parametrize(("text", "escaped"), [
    ("Q&A at 50% cost", r"Q\&A at 50\% cost"),
    ("$O(n)$ #1 a_b", r"$O(n)$ \#1 a\_b"),  # a formula stays math
    ("costs $5 or $10", r"costs \$5 or \$10"),
    ("{x} ~ y^2 \\alpha",  # braces as text commands: a lone one cannot unbalance a BibTeX field (D-185)
     r"\textbraceleft{}x\textbraceright{} \textasciitilde{} y\textasciicircum{}2 \textbackslash{}alpha"),
    ("Søren’s 大语言模型", "Søren’s 大语言模型"),  # UTF-8 kept as is
])
def test_bibtex_escapes_latex_specials_only(text, escaped):
    assert bibtex.escape(text) == escaped


def test_bibtex_of_a_chinese_paper_keeps_the_text():
    entry = bibtex.to_bibtex(paper(title_zh="大语言模型的对齐", authors=["张三", "李四"], authors_et_al=True,
                                   abstract_zh="我们研究对齐。", year=2024))
    assert entry.startswith("@misc{zhang2024dayu,\n")  # no venue: misc
    assert "  author = {{张三} and {李四} and others},\n" in entry
    assert "  title = {大语言模型的对齐},\n" in entry and "  abstract = {我们研究对齐。}\n" in entry
    assert bibtex.to_bibtex(CHINESE).count("{") == bibtex.to_bibtex(CHINESE).count("}")
    assert "  keywords = {平方和优化, Lyapunov函数, 兵器科学与技术},\n" in bibtex.to_bibtex(CHINESE)
    # a journal article without its journal: @misc, whose fields it fills (issue 57.11; @article needs a journal)
    assert bibtex.to_bibtex(CHINESE).startswith("@misc{pingfang,\n") and "journal" not in bibtex.to_bibtex(CHINESE)


def test_bibtex_braces_names_bibtex_would_split():
    names = paper(authors=["Smith, Jr., John", "Anderson Bell"])
    assert bibtex.authors(names) == "{Smith, Jr., John} and Anderson Bell"
    assert bibtex.authors(paper(authors=["Tom And Jerry"])) == "{Tom And Jerry}"


def test_ris_record():
    record = ris.to_ris(ICLR)
    lines = record.split("\r\n")
    assert lines[:3] == ["TY  - CPAPER", "ID  - pogancic2020differentiation",
                         "TI  - Differentiation of Blackbox Combinatorial Solvers"]
    assert [line for line in lines if line.startswith("AU")] == [
        "AU  - Pogančić, Marin Vlastelica", "AU  - Musil, Vít", "AU  - Hauberg, Søren"]
    assert "T2  - ICLR" in lines and "PY  - 2020" in lines and "UR  - https://openreview.net/forum?id=x" in lines
    assert "AB  - We present a method. It works." in lines
    assert lines[-2:] == ["ER  - ", ""]
    assert all(re.fullmatch(r"[A-Z][A-Z0-9]  - .*", line) for line in lines[:-1])


def test_ris_of_a_chinese_paper():
    record = ris.to_ris(CHINESE)
    assert "TY  - JOUR\r\nID  - pingfang\r\nTI  - 一种基于平方和优化的飞行器大角度机动镇定控制器设计方法\r\n" in record
    assert "T2  -" not in record and "AB  - 采用修正的Rodrigues参数(MRP)," in record  # a discipline is no venue
    assert "KW  - 平方和优化\r\nKW  - Lyapunov函数\r\nKW  - 兵器科学与技术\r\n" in record
    assert "PY" not in record and "AU" not in record  # nothing invented
    both = ris.to_ris(paper(title="Alignment", title_zh="对齐", authors=["王五"]))
    assert "TI  - Alignment\r\nTT  - 对齐\r\nAU  - 王五\r\n" in both


def test_family_first():
    assert family_first("Søren Hauberg") == "Hauberg, Søren"
    assert family_first("张三") == "张三" and family_first("Plato") == "Plato"
    assert family_first("Hauberg, Søren") == "Hauberg, Søren"


def test_keys_are_distinct_within_a_list_and_entries_take_them() -> None:
    from webapp.serializers.citation_fields import distinct_key

    same = [paper(id=f"p{i}", title="Riemannian flows", authors=["Søren Hauberg"], year=2024) for i in range(3)]
    taken: set[str] = set()
    keys = [distinct_key(p, taken) for p in same]
    assert keys == ["hauberg2024riemannian", "hauberg2024riemanniana", "hauberg2024riemannianb"]
    assert bibtex.to_bibtex(same[1], keys[1]).startswith("@misc{hauberg2024riemanniana,")
    assert "ID  - hauberg2024riemannianb" in ris.to_ris(same[2], keys[2])
    many: set[str] = set()
    assert len({distinct_key(same[0], many) for _ in range(30)}) == 30  # past z: aa, ab, …


def test_csv_rows_keep_text_and_disarm_formulas() -> None:
    import csv
    import io

    from webapp.serializers import csv as rows

    hit = paper(id="x", title="=SUM(A1:A9) is not a title", authors=["@handle", "张伟"], keywords=["-x"])
    text = rows.header() + rows.row(hit, lambda i: f"https://example.org/paper/{i}")
    [row] = list(csv.DictReader(io.StringIO(text.removeprefix(rows.BOM))))
    assert row["title"] == "'=SUM(A1:A9) is not a title" and row["authors"] == "'@handle; 张伟"
    assert row["keywords"] == "'-x" and row["page"] == "https://example.org/paper/x" and text.startswith("\ufeff")


# --- exports as an attack surface (issue 45.9) -------------------------------------------------------------------


def test_a_url_cannot_close_its_bibtex_entry_and_open_another() -> None:
    import bibtexparser

    hostile = "https://e.example/}}@misc{injected_url,title={x},note={x"
    entry = bibtex.to_bibtex(paper(id="u", title="A title", url=hostile, authors=["Ada Lovelace"], year=2024))
    library = bibtexparser.parse_string(entry)
    assert len(library.entries) == 1 and not library.failed_blocks
    assert library.entries[0]["url"] == "https://e.example/%7D%7D@misc%7Binjected_url,title=%7Bx%7D,note=%7Bx"


def test_formulas_lose_the_tex_that_reads_writes_or_runs() -> None:
    entry = bibtex.to_bibtex(paper(id="t", title="Leak $\\input{/etc/passwd}$ and $x^^5cinput$",
                                   abstract="Run $\\immediate\\write18{calc}\\catcode`\\{=12 \\alpha$ now."))
    for primitive in ("\\input", "\\write", "\\immediate", "\\catcode", "^^"):
        assert primitive not in entry, primitive
    assert "\\alpha" in entry  # ordinary math stays math


def test_csv_cells_after_a_list_separator_are_disarmed_too() -> None:
    import csv
    import io

    from webapp.serializers import csv as rows

    hit = paper(id="x", title="t", authors=["Alice;=1+1;Bob", "Carol,@SUM(1)"], abstract="from 1, -1 to +2")
    line = rows.row(hit, lambda i: i)
    assert line.startswith('"x","t"')  # every cell quoted: read whole whatever the reader's separator
    [row] = list(csv.reader(io.StringIO(line)))
    assert row[3] == "Alice;'=1+1;Bob; Carol,'@SUM(1)"
    assert all(not part.strip().startswith(("=", "@")) for part in re.split("[;,]", row[3]))
    assert row[11] == "from 1, -1 to +2"  # numbers after a comma are text, untouched


def test_each_value_of_a_multi_value_cell_is_disarmed() -> None:
    """Issue 53.5: a payload that is a keyword of its own, after "; ", is guarded as it would be first in a cell."""
    import csv
    import io

    from webapp.serializers import csv as rows

    dde = ["-2+3+cmd|' /C calc'!A0", "+1+cmd|' /C calc'!A0"]
    hit = paper(id="x", title="t", keywords=["graphs", *dde], subjects=["math", "=1+1"], authors=["A", "@B"],
                abstract="from 1, -1 to +2; but x, -2+3+cmd|' /C calc'!A0")
    [row] = list(csv.reader(io.StringIO(rows.row(hit, lambda i: i))))
    assert row[10] == "graphs; '-2+3+cmd|' /C calc'!A0; '+1+cmd|' /C calc'!A0"
    assert row[9] == "math; '=1+1" and row[3] == "A; '@B"
    assert row[11] == "from 1, -1 to +2; but x, '-2+3+cmd|' /C calc'!A0"  # numbers stay, a payload does not
    for cell in (row[3], row[9], row[10], row[11]):
        assert all(not part.strip().startswith(("=", "+", "-", "@")) or (part.strip()[1:2].isdigit()
                   and "|" not in part) for part in re.split("[;,]", cell)), cell


DOI_PREPRINT = paper(id="arxiv-2101.00001", title="Learning to Compute", authors=["Ada Lovelace", "Alan Turing"],
                     year=2021, venue="arXiv", record_type="preprint", doi="10.1000/xyz_1", arxiv_id="2101.00001")


def test_doi_and_arxiv_id_in_bibtex_and_ris_only_where_the_record_has_them() -> None:
    entry = bibtex.to_bibtex(DOI_PREPRINT)
    assert "  doi = {10.1000/xyz_1},\n  eprint = {2101.00001},\n  archiveprefix = {arXiv}\n}" in entry  # verbatim
    assert "DO  - 10.1000/xyz_1\r\n" in ris.to_ris(DOI_PREPRINT)
    assert "doi" not in bibtex.to_bibtex(ICLR) and "eprint" not in bibtex.to_bibtex(ICLR)
    assert "DO  -" not in ris.to_ris(ICLR)


def test_csl_json_items() -> None:
    from webapp.serializers import csl_json

    [conference] = csl_items(csl_json.to_csl_json(ICLR))
    assert conference == {
        "id": "pogancic2020differentiation", "type": "paper-conference",
        "title": "Differentiation of Blackbox Combinatorial Solvers",
        "author": [{"family": "Pogančić", "given": "Marin Vlastelica"}, {"family": "Musil", "given": "Vít"},
                   {"family": "Hauberg", "given": "Søren"}],
        "issued": {"date-parts": [[2020]]}, "container-title": "ICLR", "abstract": "We present a method. It works.",
        "URL": "https://openreview.net/forum?id=x"}
    [journal] = csl_items(csl_json.to_csl_json(CHINESE))
    assert (journal["type"], journal["id"], journal["keyword"]) == ("article-journal", "pingfang",
                                                                     "平方和优化, Lyapunov函数, 兵器科学与技术")
    assert "author" not in journal and "issued" not in journal and "container-title" not in journal
    [preprint] = csl_items(csl_json.to_csl_json(DOI_PREPRINT))
    assert (preprint["type"], preprint["DOI"], preprint["number"]) == ("article", "10.1000/xyz_1", "arXiv:2101.00001")
    [untyped] = csl_items(csl_json.to_csl_json(paper(title="x", authors=["张三", "Plato", "Hauberg, Søren"])))
    assert untyped["type"] == "document"
    assert untyped["author"] == [{"family": "张", "given": "三"}, {"literal": "Plato"},
                                 {"family": "Hauberg", "given": "Søren"}]


def test_a_csl_json_export_is_one_array_with_distinct_ids() -> None:
    from webapp.serializers import export

    same = [paper(id=f"p{i}", title="Riemannian flows", authors=["Søren Hauberg"], year=2024) for i in range(3)]
    text = "".join(export.render([*same, same[0]], "csl-json", lambda i: i))
    assert [i["id"] for i in csl_items(text)] == ["hauberg2024riemannian", "hauberg2024riemanniana",
                                                  "hauberg2024riemannianb"]
    assert csl_items("".join(export.render([], "csl-json", lambda i: i))) == []
