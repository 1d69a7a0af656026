"""How a role names the papers' indices: a wildcard pattern minus the query log's indices (a Lucene regexp
between slashes), and back. The roles themselves are provisioning's (provisioning/roles.py); the indexer
reads these names back when it explains a refusal (indexer/cli/refusals.py)."""

from __future__ import annotations

import re

from papersearch import querylog_schema

_LUCENE_RESERVED = set('.?+*|{}[]()"\\#@&<>~')


def _wildcard_regex(pattern: str) -> str:
    """An index wildcard pattern (`*`, `?`) as Lucene regexp syntax."""
    return "".join(".*" if c == "*" else "." if c == "?" else ("\\" + c if c in _LUCENE_RESERVED else c)
                   for c in pattern)


def without_query_log(pattern: str) -> str:
    """`pattern` minus the query log's indices, as a role index name (Lucene regexp between slashes).

    The papers pattern `papers*` also covers `papersearch-querylog-*`; roles only ever add up, so the
    query log's narrower privileges mean something only if the papers entry excludes it.
    """
    return f"/{_wildcard_regex(pattern)}&~({_wildcard_regex(querylog_schema.INDEX_PATTERN)})/"


LOCK_SUFFIX = "_locks"


def lock_index(alias: str) -> str:
    """The index holding an alias's build lock (indexer/build_lock.py); the web role may not read it."""
    return alias + LOCK_SUFFIX


def site_indices(alias: str) -> list[str]:
    """A site's own indices: its alias and its versions `<alias>-<timestamp>` (indexer/versions.py). An alias has
    no `-`, so `<alias>-*` holds no other site's versions, as `<alias>*` does (`papers*`: `papersx-…`)."""
    return [alias, f"{alias}-*"]


def searchable(pattern: str) -> str:
    """`without_query_log(pattern)` minus the build-lock indices too: what the web role may read (issue 45.6)."""
    return without_query_log(pattern)[:-1] + f"&~(.*{_wildcard_regex(LOCK_SUFFIX)})/"


def wildcard_of(name: str) -> str:
    """The wildcard pattern a role's index name stands for: `without_query_log`'s output read back; any
    other name as it is. For messages and matching an alias against what a role may write."""
    match = _WITHOUT_LOG.fullmatch(name)
    if not match:
        return name
    return re.sub(r"\\(.)|\.\*|\.", lambda m: m.group(1) or ("*" if m.group(0) == ".*" else "?"), match.group(1))


_WITHOUT_LOG = re.compile(r"/(.*)&~\(" + re.escape(_wildcard_regex(querylog_schema.INDEX_PATTERN)) + r"\)/")
