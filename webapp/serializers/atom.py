"""A search as an Atom feed (RFC 4287): one entry per paper with its title, authors, abstract as the summary,
a link to its page on this site, its publication date as `published` (where the source has one, else the date it
was added) and the date it was added to the index as `updated`; entries come newest added first, papers added
together newest published first (config/index.json sorts, DECISIONS.md D-207). Texts
are plain (`type="text"`), TeX formulas as readable Unicode; an untitled paper's entry title (Atom requires
one) says that it is untitled before the abstract's start, so no reader takes it for the paper's title.

Written with the standard library's ElementTree, which escapes every value (DECISIONS.md D-074).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, time
from xml.etree import ElementTree as ET

from papersearch import added
from papersearch.text import has_cjk
from webapp.domain import Hit
from webapp.serializers.citation_fields import readable

MEDIA_TYPE = "application/atom+xml; charset=utf-8"
NS = "http://www.w3.org/2005/Atom"
XML_LANG = "xml:lang"
UNKNOWN_DATE = datetime(1970, 1, 1, tzinfo=UTC)  # a paper indexed before added dates existed


@dataclass(frozen=True)
class FeedInfo:
    url: str  # the feed's own address: also its permanent id
    page_url: str  # the same search as a results page
    title: str
    subtitle: str
    lang: str  # xml:lang of the feed's own texts
    site: str  # the feed's author (entries without authors of their own)
    untitled: str  # an untitled paper's entry title, with {start}: the abstract's start


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


def _text(parent: ET.Element, tag: str, text: str) -> None:
    element = _el(parent, tag, text, type="text")
    if has_cjk(text):
        element.set(XML_LANG, "zh")


def _entry(feed: ET.Element, paper: Hit, paper_url: str, untitled: str) -> None:
    entry = _el(feed, "entry")
    _el(entry, "id", paper_url)
    heading = readable(paper.heading)
    _text(entry, "title", untitled.format(start=heading) if paper.untitled else heading)
    date = added.stamp(paper.added or UNKNOWN_DATE)
    # published: when the paper first appeared, where the source says (issue 57.13); else when it was added here
    first = datetime.combine(paper.published, time(), UTC) if paper.published else None
    _el(entry, "published", added.stamp(first) if first else date)
    _el(entry, "updated", date)
    for name in paper.authors:
        _el(_el(entry, "author"), "name", name)
    _el(entry, "link", rel="alternate", type="text/html", href=paper_url)
    if paper.pdf_url:
        _el(entry, "link", rel="related", type="application/pdf", href=paper.pdf_url)
    if paper.topic_path:
        _el(entry, "category", term=paper.topic_path)
    summary = readable(paper.abstract or paper.abstract_zh)
    if summary:
        _text(entry, "summary", summary)


def to_atom(info: FeedInfo, papers: list[Hit], paper_url: Callable[[str], str]) -> bytes:
    """The feed; its `updated` is the newest entry's date (the epoch for an empty feed, which never changed)."""
    # Plain tags under an xmlns attribute: ElementTree would otherwise prefix every tag (or refuse the
    # unqualified attributes that Atom uses).
    feed = ET.Element("feed", {"xmlns": NS, XML_LANG: info.lang})
    _el(feed, "id", info.url)
    _text(feed, "title", info.title)
    _text(feed, "subtitle", info.subtitle)
    newest = max((p.added for p in papers if p.added), default=UNKNOWN_DATE)
    _el(feed, "updated", added.stamp(newest))
    _el(_el(feed, "author"), "name", info.site)
    _el(feed, "link", rel="self", type="application/atom+xml", href=info.url)
    _el(feed, "link", rel="alternate", type="text/html", href=info.page_url)
    for paper in papers:
        _entry(feed, paper, paper_url(paper.id), info.untitled)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)
