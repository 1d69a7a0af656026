"""A paper as a schema.org ScholarlyArticle (JSON-LD), with the same facts as its citation_* tags (highwire.py).
The page embeds it through Jinja's `tojson`, which escapes <, > and & so that it cannot end its script element."""

from __future__ import annotations

from typing import Any

from webapp.domain import Hit
from webapp.serializers.citation_fields import (
    arxiv_url,
    cited_abstract,
    cited_title,
    doi_url,
    readable,
    subject_terms,
)

PART_OF = {"journal-article": "Periodical"}  # what a venue is, by record type; else a CreativeWork
STATUS = {"preprint": "Preprint"}  # creativeWorkStatus


def scholarly_article(paper: Hit, page_url: str) -> dict[str, Any]:
    """schema.org ScholarlyArticle: the same facts as highwire.citation_meta (no headline when untitled)."""
    title = readable(cited_title(paper))
    article: dict[str, Any] = {"@context": "https://schema.org", "@type": "ScholarlyArticle", "@id": page_url,
                               "url": page_url}
    if title:
        article |= {"headline": title, "name": title}
    if paper.title and paper.title_zh:
        article["alternativeHeadline"] = paper.title_zh
    if paper.authors:
        article["author"] = [{"@type": "Person", "name": name} for name in paper.authors if name.strip()]
    if paper.year:
        article["datePublished"] = str(paper.year)
    if paper.venue:
        article["isPartOf"] = {"@type": PART_OF.get(paper.record_type or "", "CreativeWork"), "name": paper.venue}
    if paper.record_type in STATUS:
        article["creativeWorkStatus"] = STATUS[paper.record_type]
    abstract = readable(cited_abstract(paper))
    if abstract:
        article["abstract"] = abstract
    if paper.languages:
        article["inLanguage"] = paper.languages if len(paper.languages) > 1 else paper.languages[0]
    if terms := subject_terms(paper):
        article["keywords"] = terms
    identifiers = [("DOI", paper.doi, doi_url), ("arXiv", paper.arxiv_id, arxiv_url)]
    if ids := [{"@type": "PropertyValue", "propertyID": kind, "value": value, "url": address(value)}
               for kind, value, address in identifiers if value]:
        article["identifier"] = ids
    if same := [u for u in (paper.url, *(i["url"] for i in ids)) if u]:
        article["sameAs"] = same[0] if len(same) == 1 else list(dict.fromkeys(same))
    if paper.pdf_url:
        article["encoding"] = {"@type": "MediaObject", "contentUrl": paper.pdf_url,
                               "encodingFormat": "application/pdf"}
    if paper.topic_area:
        article["about"] = paper.topic_subarea or paper.topic_area
    return article
