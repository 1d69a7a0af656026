"""robots.txt (RFC 9309): what crawlers may fetch, and where the sitemap is. `*` in a path matches anything."""

from __future__ import annotations

MEDIA_TYPE = "text/plain; charset=utf-8"


def robots_txt(allow: list[str], disallow: list[str], sitemap: str) -> str:
    lines = ["User-agent: *", *(f"Allow: {p}" for p in allow), *(f"Disallow: {p}" for p in disallow),
             "", f"Sitemap: {sitemap}", ""]
    return "\n".join(lines)
