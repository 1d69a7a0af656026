"""Responses compressed for clients that accept it (Accept-Encoding: gzip, br, zstd), with Flask-Compress.

Why a library rather than an after_request of our own (DECISIONS.md D-153): it negotiates
Accept-Encoding with q-values, adds Vary: Accept-Encoding, keeps ETags distinct per encoding and answers
conditional requests on them, and compresses streamed answers (exports) chunk by chunk. A results page repeats
its search state in every link, so a URL full of junk filter values was a 317× amplifier (issue 45.3);
compressed, the repeated state costs little. Registered before every other after_request hook so that it runs
last, on the final body and headers.
"""

from __future__ import annotations

from flask import Flask
from flask_compress import Compress

# Every text format the site answers with (Flask-Compress's own list lacks CSV, BibTeX, RIS and OpenSearch).
MIMETYPES = [
    "text/html", "text/css", "text/plain", "text/xml", "text/csv", "text/javascript", "application/javascript",
    "application/json", "application/problem+json", "application/xml", "application/atom+xml",
    "application/opensearchdescription+xml", "application/x-suggestions+json", "application/x-bibtex",
    "application/x-research-info-systems",
    "image/svg+xml",
]
MIN_SIZE = 500  # bytes: below about this, the gzip header and a round of CPU are not worth it


def init_app(app: Flask) -> None:
    app.config.setdefault("COMPRESS_MIMETYPES", MIMETYPES)
    app.config.setdefault("COMPRESS_MIN_SIZE", MIN_SIZE)
    app.config.setdefault("COMPRESS_LEVEL", 6)
    # gzip for streamed answers (exports) too: the one encoding every client has (the library leaves it out of
    # streaming by default; its chunked gzip is a plain zlib stream, flushed at the end).
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["zstd", "br", "gzip", "deflate"])
    Compress(app)
