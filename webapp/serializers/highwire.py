"""A paper as Highwire Press `citation_*` meta tags, what Zotero's and Mendeley's connectors and Google Scholar
read on a paper page, with only what the record holds (the template escapes the values)."""

from __future__ import annotations

from papersearch.text import has_cjk
from webapp.domain import Hit
from webapp.serializers.citation import cited_abstract, cited_title

Meta = tuple[str, str, str | None]  # name, content, lang (None: the page's)


def _lang(text: str) -> str | None:
    return "zh" if has_cjk(text) else None


def citation_meta(paper: Hit) -> list[Meta]:
    """The tags in the order Google Scholar documents them; one citation_author per author, in order. The
    venue is cited as a conference, as in the BibTeX and RIS exports. A Chinese title beside an English
    one is the DCMI `alternative` title."""
    title = cited_title(paper)
    tags: list[Meta] = [("citation_title", title, _lang(title))]
    tags += [("citation_author", name, _lang(name)) for name in paper.authors if name.strip()]
    if paper.year:
        tags.append(("citation_publication_date", str(paper.year), None))
    if paper.venue:
        tags.append(("citation_conference_title", paper.venue, _lang(paper.venue)))
    abstract = cited_abstract(paper)
    if abstract:
        tags.append(("citation_abstract", abstract, _lang(abstract)))
    tags += [("citation_language", lang, None) for lang in paper.languages]
    if paper.keywords:
        tags.append(("citation_keywords", "; ".join(paper.keywords), None))
    if paper.pdf_url:
        tags.append(("citation_pdf_url", paper.pdf_url, None))
    if paper.url:
        tags.append(("citation_abstract_html_url", paper.url, None))
    if paper.title and paper.title_zh:
        tags.append(("DCTERMS.alternative", paper.title_zh, "zh"))
    return tags
