"""Sitemaps (sitemaps.org protocol 0.9): a urlset of page addresses, each with its `lastmod` (the day the paper
was added: its page changes only with the paper), or a sitemap index of urlsets when there are more than one
file may hold; written piece by piece, so a long one streams."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from xml.sax.saxutils import escape

MEDIA_TYPE = "application/xml; charset=utf-8"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_URLS = 50_000  # the protocol's limit per file; beyond it the sitemap is an index of files
_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def urlset(urls: Iterable[tuple[str, str | None]]) -> Iterator[str]:
    """(address, lastmod as W3C Datetime or None) pairs."""
    yield f'{_HEAD}<urlset xmlns="{NS}">\n'
    for url, lastmod in urls:
        modified = f"<lastmod>{escape(lastmod)}</lastmod>" if lastmod else ""
        yield f"<url><loc>{escape(url)}</loc>{modified}</url>\n"
    yield "</urlset>\n"


def index(sitemaps: Iterable[str]) -> Iterator[str]:
    yield f'{_HEAD}<sitemapindex xmlns="{NS}">\n'
    for url in sitemaps:
        yield f"<sitemap><loc>{escape(url)}</loc></sitemap>\n"
    yield "</sitemapindex>\n"
