"""The site's public address and names: every absolute URL is built from PAPERSEARCH_PUBLIC_URL, never from the
request's Host header, and a request whose Host is not one of the site's names is refused (400).

A Host header is the client's to choose: before, `Host: evil.example` put `http://evil.example/…` into the
OpenSearch description, robots.txt, the sitemaps, the feeds and redirects, which a shared cache in front then
served to everyone (DECISIONS.md D-115). The names: the public URL's host
and PAPERSEARCH_ALLOWED_HOSTS, compared without the port and the case. Not Flask's TRUSTED_HOSTS: werkzeug
cuts each trusted name at its first ":" (so "[::1]" never matched) and compares case-sensitively, so
`Host: [::1]` and `Host: LOCALHOST` were refused although allowed (issue 45.11).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from flask import Flask, Response, abort, current_app, request, url_for

CONFIG_KEY = "PUBLIC_URL"
REDIRECTS = (301, 302, 303, 307, 308)
# A Host header: a name or IPv4 address, or an IPv6 address in brackets; then an optional port.
HOST = re.compile(r"([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(?::[1-9][0-9]{0,4})?", re.IGNORECASE)


def names(public_url: str, allowed_hosts: str) -> list[str]:
    """The host names a request may carry: the public URL's and the allowed ones."""
    host = urlsplit(public_url).hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 address, as werkzeug reads it from a Host header
    return list(dict.fromkeys([host, *(h.strip().lower() for h in allowed_hosts.split(",") if h.strip())]))


def host_allowed(host: str | None, allowed: list[str]) -> bool:
    """Whether a Host header names the site (one of `allowed`, as names() gives them: lower case)."""
    found = HOST.fullmatch(host or "")
    return found is not None and found.group(1).lower() in allowed


def public_url() -> str:
    """The site's address without a trailing slash, e.g. "https://papers.example.org"."""
    return current_app.config[CONFIG_KEY]


def absolute(path: str) -> str:
    """An absolute URL of one of the app's own paths (as url_for gives them)."""
    return public_url() + path


def external_url(endpoint: str, **values: object) -> str:
    """url_for(..., _external=True), on the public address."""
    return absolute(url_for(endpoint, **values))


def origin_allowed(origin: str) -> bool:
    """An Origin header names this site: its public address, or the host this request was sent to (a name
    of the site, already checked)."""
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return parts.netloc.lower() in (urlsplit(public_url()).netloc.lower(), request.host.lower())


def init_app(app: Flask, public: str, allowed_hosts: str) -> None:
    app.config[CONFIG_KEY] = public.rstrip("/")
    allowed = names(public, allowed_hosts)

    def _own_host() -> None:
        if not host_allowed(request.headers.get("Host"), allowed):
            abort(400)

    # First of all: a foreign Host is refused before the limiter counts it or anything reads request.host.
    app.before_request_funcs.setdefault(None, []).insert(0, _own_host)

    @app.after_request
    def _public_redirects(response: Response) -> Response:
        """A redirect of werkzeug's routing (/api//search → /api/search) names the request's host: ours instead."""
        location = response.headers.get("Location")
        if response.status_code in REDIRECTS and location:
            parts = urlsplit(location)
            if parts.netloc == request.host:
                base = urlsplit(public_url())
                public = urlunsplit((base.scheme, base.netloc, parts.path, parts.query, parts.fragment))
                response.headers["Location"] = public
                response.set_data(f"Redirecting to {public}".encode())  # werkzeug's page names the old URL
                response.mimetype = "text/plain"
        return response
