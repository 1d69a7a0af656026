"""Query ids the site issues, signed, so that the query log takes clicks only for searches it served.

A search the query log records gets a random id (papersearch/querylog_schema.py, what the log stores). The page
and the API hand it out as a token that also names where the search came from, the positions of the results
it showed, a mark of each result's paper id, and when it was issued, signed with itsdangerous (Flask's own
signing library: HMAC-SHA256 under the server's secret, PAPERSEARCH_SECRET_KEY, or the key generated once
into .local/; papersearch/credentials.py):

    <id>.<page|api>.<first>.<last>.<marks>.<time>.<signature>     e.g. 3f…9c.page.11.20.kM2….ZkX…Qm9…

The signature and the marks are keyed by the site too (`site`: the alias it serves and the query log it writes):
sites sharing one secret (several local sites on a checkout share .local/secret-key) each refuse the others' tokens
(issue 45.8). A click is accepted only with a token whose signature holds, issued less than MAX_AGE ago, at a
position from first to last, for the paper the search showed there (its mark: a keyed hash of query id, position
and paper id, MARK_CHARS characters each); anything else is refused (DECISIONS.md D-080,
D-120).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import typing
from dataclasses import dataclass
from datetime import datetime

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner

from papersearch import querylog_schema
from webapp.services.search_settings import search_config

SALT = "papersearch.query-id"  # keys this signer's use of the secret apart from any other
MARK_SALT = b"papersearch.result-mark"
MARK_BYTES = 6  # a forged paper id must hit 48 bits of a keyed hash, online
MARK_CHARS = 8  # MARK_BYTES in unpadded base64url
MAX_AGE = 24 * 3600  # seconds a search's results can be clicked for the log
_ID, _SOURCES = querylog_schema.QUERY_ID_PATTERN.strip("^$"), "|".join(typing.get_args(querylog_schema.Source))
_B64 = "[A-Za-z0-9_-]"


def max_shown() -> int:
    """The largest page the API serves (the search settings' page sizes)."""
    return max(int(s) for s in search_config().page_sizes)


@functools.cache
def token_pattern() -> str:
    """What a token looks like; its marks are bounded by the largest page, so it is made from the search settings
    when first asked for, not when this module is imported (DECISIONS.md D-216)."""
    return (rf"^{_ID}\.({_SOURCES})\.[0-9]{{1,9}}\.[0-9]{{1,9}}\.{_B64}{{0,{max_shown() * MARK_CHARS}}}"
            rf"\.{_B64}{{1,12}}\.{_B64}{{43}}$")


@functools.cache
def _token() -> re.Pattern[str]:
    return re.compile(token_pattern())


def __getattr__(name: str) -> object:
    """MAX_SHOWN and TOKEN_PATTERN, read from the search settings when first asked for (PEP 562)."""
    if name == "MAX_SHOWN":
        return max_shown()
    if name == "TOKEN_PATTERN":
        return token_pattern()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Expired(Exception):
    """A token the site issued, too long ago."""


@dataclass(frozen=True)
class Issued:
    """What a valid token says: the logged search, the positions of the results it showed (1-based, over all
    pages; none when first > last), their marks, and when it was issued."""

    query_id: str
    source: querylog_schema.Source
    first: int
    last: int
    marks: str
    issued_at: datetime

    def shows(self, position: int) -> bool:
        return self.first <= position <= self.last

    def mark_at(self, position: int) -> str:
        start = (position - self.first) * MARK_CHARS
        return self.marks[start:start + MARK_CHARS]


class QueryIds:
    def __init__(self, key: bytes, site: str = "") -> None:
        # The site is in what is signed: itsdangerous derives the signing key from secret and salt, so a token
        # names the site it came from without carrying it (the token's format stays the same).
        self._signer = TimestampSigner(key, salt=f"{SALT}|{site}", sep=".", digest_method=hashlib.sha256)
        self._mark_key = hashlib.sha256(MARK_SALT + site.encode() + b"\0" + key).digest()

    def mark(self, query_id: str, position: int, paper_id: str) -> str:
        digest = hashlib.blake2b(f"{query_id}\n{position}\n{paper_id}".encode(), key=self._mark_key,
                                 digest_size=MARK_BYTES).digest()
        return base64.urlsafe_b64encode(digest).decode()

    def issue(self, query_id: str, source: querylog_schema.Source, offset: int, paper_ids: list[str]) -> str:
        """The token of a search whose results, positions offset+1 … offset+len(paper_ids), are these papers."""
        marks = "".join(self.mark(query_id, offset + 1 + i, pid) for i, pid in enumerate(paper_ids))
        return self._signer.sign(f"{query_id}.{source}.{offset + 1}.{offset + len(paper_ids)}.{marks}").decode()

    def verify(self, token: str) -> Issued | None:
        """What the token says, None when the site did not issue it; Expired when it did, over MAX_AGE ago."""
        if not _token().fullmatch(token):
            return None
        try:
            value, issued_at = self._signer.unsign(token, max_age=MAX_AGE, return_timestamp=True)
        except SignatureExpired:
            raise Expired(token) from None
        except BadSignature:
            return None
        query_id, source, first, last, marks = value.decode().split(".")
        if len(marks) != max(0, int(last) - int(first) + 1) * MARK_CHARS:
            return None
        return Issued(query_id, typing.cast(querylog_schema.Source, source), int(first), int(last), marks, issued_at)

    def shown_at(self, issued: Issued, position: int, paper_id: str) -> bool:
        """The search showed this paper at this position."""
        return issued.shows(position) and hmac.compare_digest(issued.mark_at(position),
                                                             self.mark(issued.query_id, position, paper_id))
