"""Each concept written once (issue 54.4, DECISIONS.md D-195): the area/subarea separators are the taxonomy's,
the search box's prefixes the query parser's, and UI strings are looked up by the view layer only."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from papersearch.taxonomy import Taxonomy
from webapp.domain import Facet, FacetValue
from webapp.services.search_settings import search_config
from webapp.views.facet_labels import labelled

ROOT = Path(__file__).resolve().parents[2]
WEBAPP = sorted((ROOT / "webapp").rglob("*.py"))
# How an area and its subarea are written: stored and in URLs (" > "), as shown (" · "), and the "›" once used
# between them in filter chips.
SEPARATORS = {" > ", " · ", " › "}


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_separators_are_the_taxonomys() -> None:
    # papersearch/taxonomy.py defines PATH_SEPARATOR and TOPIC_SEPARATOR; the webapp imports them.
    defined = [relative(path) for path in WEBAPP for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
               and node.value.value in SEPARATORS]
    assert defined == []
    # A template names a topic in full with topic_separator (webapp/routes/ui.py), not a literal of its own.
    literal = re.compile(r"~\s*'\s*[·›>]\s*'\s*~|~\s*\"\s*[·›>]\s*\"\s*~")
    assert [p.name for p in (ROOT / "webapp" / "templates").glob("*.html") if literal.search(p.read_text())] == []


def test_the_search_box_prefixes_are_the_parsers() -> None:
    owners = [relative(path) for path in WEBAPP for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.Assign)
              and any(getattr(t, "id", None) in {"FIELD_NAMES", "FACET_PREFIXES_ZH"} for t in node.targets)]
    assert owners == ["webapp/services/query/parser.py", "webapp/services/query/parser.py"]


def test_services_look_up_no_ui_string() -> None:
    importers = [relative(path) for path in (ROOT / "webapp" / "services").rglob("*.py")
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.ImportFrom) and node.module in {"webapp.i18n", "webapp"}
                 and (node.module == "webapp.i18n" or any(a.name == "i18n" for a in node.names))]
    assert importers == []


def test_labelled_facets_are_named_in_both_languages_by_the_view_layer() -> None:
    def facet(name: str, *values: str) -> Facet:
        return Facet(name=name, param=name, values=[
            FacetValue(value=v, label=v, label_zh=v, count=1, selected=False, children=[]) for v in values])

    kinds, venues = labelled([facet("type", "journal-article", "unheard-of"), facet("venue", "ICLR")], search_config(),
                             Taxonomy.load())
    assert [(v.label, v.label_zh) for v in kinds.values] == [("Journal article", "期刊论文"),
                                                              ("unheard-of", "unheard-of")]
    assert [(v.label, v.label_zh) for v in venues.values] == [("ICLR", "ICLR")]
