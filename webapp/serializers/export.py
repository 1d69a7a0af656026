"""A result list in one of the export formats, as text pieces to stream: BibTeX and RIS entries and CSL-JSON
items from the same serializers as the single-paper citation (with keys made distinct within the list), or CSV
rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType

from webapp.domain import Hit
from webapp.serializers import bibtex, csl_json, ris
from webapp.serializers import csv as csv_rows
from webapp.serializers.citation_fields import distinct_key

FORMATS = ("bibtex", "ris", "csl-json", "csv")


@dataclass(frozen=True)
class Format:
    media_type: str
    extension: str


def format_of(fmt: str) -> Format:
    module: ModuleType = {"bibtex": bibtex, "ris": ris, "csl-json": csl_json, "csv": csv_rows}[fmt]
    return Format(module.MEDIA_TYPE, module.EXTENSION)


def render(papers: Iterable[Hit], fmt: str, page_url: Callable[[str], str]) -> Iterator[str]:
    """Each paper once, in the order given (a paper met again is skipped)."""
    seen: set[str] = set()
    taken: set[str] = set()
    if fmt == "csv":
        yield csv_rows.header()
    elif fmt == "csl-json":
        yield "["  # one array, its items streamed (csl_json.to_csl_json's document, many items)
    for paper in papers:
        if paper.id in seen:
            continue
        seen.add(paper.id)
        if fmt == "csv":
            yield csv_rows.row(paper, page_url)
        elif fmt == "bibtex":
            yield ("\n" if len(seen) > 1 else "") + bibtex.to_bibtex(paper, distinct_key(paper, taken))
        elif fmt == "csl-json":
            item = csl_json.item(paper, distinct_key(paper, taken))
            yield ("," if len(seen) > 1 else "") + "\n" + csl_json.dumps(item)
        else:
            yield ris.to_ris(paper, distinct_key(paper, taken)) + ris.EOL
    if fmt == "csl-json":
        yield "\n]\n"
