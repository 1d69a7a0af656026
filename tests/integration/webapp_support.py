"""Helpers of the webapp tests (test_webapp_pages.py, test_webapp_api_errors_security.py): the papers their
alias holds besides the sample (the alias itself: tests/integration/conftest.py), and reading result pages and
API answers."""

from __future__ import annotations

import re

from lxml import html as lxml_html
from support import ROOT

from webapp.services.query.parser import parse_query

EXTRA = [
    {"id": "zh-llm-retrieval", "title_zh": "基于大语言模型的中文学术论文检索",
     "abstract_zh": "本文研究大语言模型在中文学术论文检索中的应用，提出一种结合词语切分与双字索引的方法。",
     "authors": ["张伟", "李娜"], "authors_et_al": True,
     "topic_area": "Deep Learning", "topic_subarea": "Large Language Models",
     "year": 2024, "venue": "中文信息学报", "url": "https://example.org/zh-llm"},
    {"id": "xss-abstract", "title": "Cross-site scripting in paper abstracts",
     "abstract": "We show that <script>alert('xss')</script> inside an abstract must be escaped by every "
                 "search engine that displays it.",
     "authors": ["Mallory Example"], "topic_area": "Social Aspects", "topic_subarea": "Security",
     "year": 2023, "venue": "WebSec", "pdf_url": "https://example.org/xss.pdf"},
    {"id": "gnn-molecules", "title": "Graph neural networks for molecule generation",
     "abstract": "Graph neural networks generate molecules with diffusion over bonds and atoms.",
     "authors": ["Ada Lovelace", "Alan Turing"], "authors_et_al": True,
     "topic_area": "Deep Learning", "topic_subarea": "Graph Neural Networks", "year": 2022},
]
TOTAL = 43  # 40 sample papers + EXTRA


def result_ids(html: str) -> list[str]:
    hits = html.split('<ol class="hits"', 1)[1].split("</ol>", 1)[0]
    return re.findall(r'<h2 class="hit-title"[^>]*><a href="/paper/([^"?]+)', hits)


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def api(client, path: str, **kw):
    response = client.get(path, **kw)
    return response, response.get_json()


def costly_query(clauses: int = 32) -> str:
    """The probe's query (issue 45.2): Chinese concept names of the glossary, one after another, up to `clauses`
    words."""
    rows = [line.split("\t") for line in (ROOT / "config" / "concepts.tsv").read_text("utf-8").splitlines()
            if line and not line.startswith("#")]
    names: list[str] = []
    for name in (row[3].split("|")[0] for row in rows if len(row) > 3 and row[3]):
        parsed = parse_query(" ".join([*names, name]))
        if parsed.cut or len(parsed.clauses) > clauses:  # a longer query is searched cut (DECISIONS.md D-168)
            break
        names.append(name)
    return " ".join(names)


def page(client, path: str):
    """A page that answers 200, parsed."""
    r = client.get(path)
    assert r.status_code == 200, (path, r.status_code)
    return lxml_html.fromstring(r.get_data(as_text=True))
