"""Conditional GET for what readers poll (the Atom feed, the OpenSearch description): an ETag that is a digest
of the body, Last-Modified when the content has a date, and 304 Not Modified for a matching If-None-Match or a
not-older If-Modified-Since (werkzeug's make_conditional), so a feed reader that polls every few minutes
downloads a feed only when it changed (DECISIONS.md D-111). Cache-Control is webapp/caching.py's,
as for every route."""

from __future__ import annotations

import hashlib
from datetime import datetime

from flask import Response, request


def conditional(response: Response, last_modified: datetime | None = None) -> Response:
    """The response with validators and caching headers, or 304 when the client's copy is current. The body
    is the search's, in its language, with its entries' dates: its digest changes whenever any of those does
    (a paper replaced by `add` keeps its date, so the date alone would miss it)."""
    response.set_etag(hashlib.sha256(response.get_data()).hexdigest()[:32])
    if last_modified is not None:
        response.last_modified = last_modified
    return response.make_conditional(request)
