"""A result as a COinS span's title (ContextObjects in Spans, OpenURL 1.0 key/value): reference-manager
connectors find one per hit on a results page and offer the papers as a list. A paper with a venue is a
conference paper, as in the citation exports; one without is a preprint."""

from __future__ import annotations

from urllib.parse import urlencode

from webapp.domain import Hit
from webapp.serializers.citation import cited_title


def to_coins(paper: Hit, page_url: str) -> str:
    pairs: list[tuple[str, str]] = [("ctx_ver", "Z39.88-2004"), ("rft_val_fmt", "info:ofi/fmt:kev:mtx:journal"),
                                    ("rft.genre", "proceeding" if paper.venue else "preprint"),
                                    ("rft.atitle", cited_title(paper))]
    if paper.venue:
        pairs.append(("rft.jtitle", paper.venue))
    pairs += [("rft.au", name) for name in paper.authors if name.strip()]
    if paper.year:
        pairs.append(("rft.date", str(paper.year)))
    pairs.append(("rft_id", paper.url or page_url))
    return urlencode(pairs)
