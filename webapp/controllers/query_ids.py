"""Query ids the site issues, signed, so that the query log takes clicks only for searches it served.

A search the query log records gets a random id (papersearch/querylog.py, what the log stores). The page
and the API hand it out as a token that also names where the search came from and the positions of the
results it showed, signed with itsdangerous (Flask's own signing library: HMAC-SHA256 under the server's secret,
PAPERSEARCH_SECRET_KEY, or the key generated once into .local/; papersearch/credentials.py):

    <id>.<page|api>.<first>.<last>.<signature>     e.g. 3f…9c.page.11.20.Qm9…

A click is accepted only with a token whose signature holds and a position from first to last; anything
else is refused (DECISIONS.md "Clicks only for searches the site served").
"""

from __future__ import annotations

import hashlib
import re
import typing
from dataclasses import dataclass

from itsdangerous import BadSignature, Signer

from papersearch import querylog

SALT = "papersearch.query-id"  # keys this signer's use of the secret apart from any other
_ID, _SOURCES = querylog.QUERY_ID_PATTERN.strip("^$"), "|".join(typing.get_args(querylog.Source))
TOKEN_PATTERN = rf"^{_ID}\.({_SOURCES})\.[0-9]{{1,9}}\.[0-9]{{1,9}}\.[A-Za-z0-9_-]{{43}}$"
_TOKEN = re.compile(TOKEN_PATTERN)


@dataclass(frozen=True)
class Issued:
    """What a valid token says: the logged search and the positions of the results it showed (1-based,
    over all pages; none when first > last)."""

    query_id: str
    source: querylog.Source
    first: int
    last: int

    def shows(self, position: int) -> bool:
        return self.first <= position <= self.last


class QueryIds:
    def __init__(self, key: bytes) -> None:
        self._signer = Signer(key, salt=SALT, sep=".", digest_method=hashlib.sha256)

    def issue(self, query_id: str, source: querylog.Source, offset: int, shown: int) -> str:
        """The token of a search whose results are positions offset+1 … offset+shown."""
        return self._signer.sign(f"{query_id}.{source}.{offset + 1}.{offset + shown}").decode()

    def verify(self, token: str) -> Issued | None:
        """What the token says, or None when the site did not issue it."""
        if not _TOKEN.fullmatch(token):
            return None
        try:
            text = self._signer.unsign(token).decode()
        except BadSignature:
            return None
        query_id, source, first, last = text.split(".")
        return Issued(query_id, typing.cast(querylog.Source, source), int(first), int(last))
