"""A result as a COinS span's title (ContextObjects in Spans, OpenURL 1.0 key/value): reference-manager
connectors find one per hit on a results page and offer the papers as a list. The genre follows the record
type (a conference paper is a `proceeding`, a journal article an `article`); an untyped record's is `unknown`,
and an untitled one has no `atitle`."""

from __future__ import annotations

from urllib.parse import urlencode

from webapp.domain import Hit
from webapp.serializers.citation_fields import cited_title, readable

GENRES = {"conference-paper": "proceeding", "journal-article": "article", "preprint": "preprint"}


def to_coins(paper: Hit, page_url: str) -> str:
    pairs: list[tuple[str, str]] = [("ctx_ver", "Z39.88-2004"), ("rft_val_fmt", "info:ofi/fmt:kev:mtx:journal"),
                                    ("rft.genre", GENRES.get(paper.record_type or "", "unknown"))]
    if title := readable(cited_title(paper)):
        pairs.append(("rft.atitle", title))
    if paper.venue:
        pairs.append(("rft.jtitle", paper.venue))
    pairs += [("rft.au", name) for name in paper.authors if name.strip()]
    if paper.year:
        pairs.append(("rft.date", str(paper.year)))
    pairs.append(("rft_id", paper.url or page_url))
    if paper.doi:
        pairs.append(("rft_id", f"info:doi/{paper.doi}"))
    return urlencode(pairs)
