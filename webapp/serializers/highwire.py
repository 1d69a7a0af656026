"""A paper as Highwire Press `citation_*` meta tags, what Zotero's and Mendeley's connectors and Google Scholar
read on a paper page, with only what the record holds (the template escapes the values)."""

from __future__ import annotations

from papersearch.text import has_cjk
from webapp.domain import Hit
from webapp.serializers.citation_fields import cited_abstract, cited_title, readable, subject_terms

Meta = tuple[str, str, str | None]  # name, content, lang (None: the page's)
VENUE_TAGS = {"conference-paper": "citation_conference_title", "journal-article": "citation_journal_title"}


def _lang(text: str) -> str | None:
    return "zh" if has_cjk(text) else None


def citation_meta(paper: Hit) -> list[Meta]:
    """The tags in the order Google Scholar documents them; one citation_author per author, in order. The
    venue is cited by the record type (a conference's or a journal's title; an untyped or preprint venue is
    not named as either); an untitled record has no citation_title; formulas are readable Unicode. A Chinese
    title beside an English one is the DCMI `alternative` title."""
    title = readable(cited_title(paper))
    tags: list[Meta] = [("citation_title", title, _lang(title))] if title else []
    tags += [("citation_author", name, _lang(name)) for name in paper.authors if name.strip()]
    if paper.year:
        tags.append(("citation_publication_date", str(paper.year), None))
    venue_tag = VENUE_TAGS.get(paper.record_type or "")
    if paper.venue and venue_tag:
        tags.append((venue_tag, paper.venue, _lang(paper.venue)))
    abstract = readable(cited_abstract(paper))
    if abstract:
        tags.append(("citation_abstract", abstract, _lang(abstract)))
    tags += [("citation_language", lang, None) for lang in paper.languages]
    if terms := subject_terms(paper):
        tags.append(("citation_keywords", "; ".join(terms), None))
    if paper.doi:
        tags.append(("citation_doi", paper.doi, None))
    if paper.arxiv_id:
        tags.append(("citation_arxiv_id", paper.arxiv_id, None))
    if paper.pdf_url:
        tags.append(("citation_pdf_url", paper.pdf_url, None))
    if paper.url:
        tags.append(("citation_abstract_html_url", paper.url, None))
    if paper.title and paper.title_zh:
        tags.append(("DCTERMS.alternative", paper.title_zh, "zh"))
    return tags
