"""Say in words why Elasticsearch refused a request, for the admin command's error line.

A 403 usually means the alias lies outside the index patterns the indexer's role may write (the local
node's role covers `papers*`). Elasticsearch's own answer often has no body (HEAD requests), so the
identity and its patterns are asked for: any user may read its own privileges.
"""

from __future__ import annotations

import fnmatch

from elasticsearch import ApiError, Elasticsearch

from indexer.loading.loader import FLOOD_STAGE, WritesBlocked
from papersearch import querylog_schema
from papersearch.role_index_names import lock_index, wildcard_of
from papersearch.settings import Settings

_WRITE = {"all", "write", "index", "create", "create_doc", "create_index", "manage"}


def reason_of(exc: ApiError) -> str:
    """Elasticsearch's reason, or at least the HTTP status, never "None"."""
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error")
    if isinstance(error, dict) and error.get("reason"):
        return f"{error.get('type', 'error')}: {error['reason']}"
    if isinstance(error, str) and error:
        return error
    return exc.message if exc.message and exc.message != "None" else f"HTTP {exc.meta.status}"


def identity_of(settings: Settings) -> str:
    """Which identity the indexer used, and where it came from."""
    if settings.es_api_key is not None:
        return "the API key in ES_API_KEY"
    if settings.es_username and settings.es_password is not None:
        return f"user {settings.es_username} (ES_USERNAME)"
    return "the local node's papersearch_indexer user (.local/credentials.json)" if settings.is_local() else \
        "no credentials (set ES_USERNAME/ES_PASSWORD or ES_API_KEY)"


def index_privileges(client: Elasticsearch) -> list[tuple[list[str], list[str]]]:
    """(index patterns, privileges) the current identity holds ([] if it cannot tell)."""
    try:
        privileges = client.security.get_user_privileges()
    except Exception:
        return []
    return [(list(e.get("names", [])), list(e.get("privileges", []))) for e in privileges.get("indices", [])]


def explain_refusal(exc: ApiError, settings: Settings, client: Elasticsearch) -> str:
    """One message for a refused request; for 403 it names the alias, the identity and its patterns."""
    if exc.meta.status == 429 and FLOOD_STAGE in reason_of(exc):  # a step after the load met a full disk
        return str(WritesBlocked(reason_of(exc)))
    if exc.meta.status != 403:
        return f"Elasticsearch refused the request ({exc.meta.status}): {reason_of(exc)}"
    alias = settings.alias
    held = index_privileges(client)
    # The query log's pattern is where the webapp appends its log, never where papers go.
    writable = sorted({wildcard_of(n) for names, privs in held if _WRITE & set(privs) for n in names}
                      - {querylog_schema.INDEX_PATTERN})
    needs = f"alias {alias!r} needs {alias}, {alias}-<timestamp> and {lock_index(alias)}"
    if writable and not any(fnmatch.fnmatchcase(alias, pattern) for pattern in writable):
        why = (f"the indexer's role may write only indices matching {', '.join(writable)}, but {needs}. "
               "Use an alias that matches (PAPERSEARCH_ALIAS / --alias) or grant the role that pattern")
    elif held and not writable:
        readable = ", ".join(f"{'/'.join(privs)} on {', '.join(names)}" for names, privs in held)
        why = f"this identity may not write any index (it holds {readable}); {needs} with 'all'"
    elif writable:
        why = f"alias {alias!r} matches the role's patterns, but the role lacks a privilege this step needs"
    else:
        why = f"{needs}, and the role's index patterns could not be read"
    return f"Elasticsearch refused the request (403 Forbidden): {why}. Identity used: {identity_of(settings)}. " \
           f"({reason_of(exc)})"
