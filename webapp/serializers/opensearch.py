"""OpenSearch 1.1: the description document that lets a browser add the site as a search engine, and the
suggestions format its search bar asks for (application/x-suggestions+json)."""

from __future__ import annotations

from dataclasses import dataclass
from xml.etree import ElementTree as ET

DESCRIPTION_TYPE = "application/opensearchdescription+xml; charset=utf-8"
SUGGESTIONS_TYPE = "application/x-suggestions+json; charset=utf-8"
NS = "http://a9.com/-/spec/opensearch/1.1/"
SHORT_NAME_MAX = 16  # the specification's limits
DESCRIPTION_MAX = 1024
TERMS = "{searchTerms}"


@dataclass(frozen=True)
class Description:
    short_name: str
    description: str
    language: str  # e.g. zh-CN
    search: str  # URL templates with {searchTerms}
    suggestions: str
    feed: str
    self_url: str
    icon: str


def description(d: Description) -> bytes:
    root = ET.Element("OpenSearchDescription", {"xmlns": NS})  # plain tags under xmlns, as in atom.py

    def el(tag: str, text: str | None = None, **attrs: str) -> None:
        ET.SubElement(root, tag, attrs).text = text

    el("ShortName", d.short_name[:SHORT_NAME_MAX])
    el("Description", d.description[:DESCRIPTION_MAX])
    el("InputEncoding", "UTF-8")
    el("OutputEncoding", "UTF-8")
    el("Language", d.language)
    el("Image", d.icon, width="16", height="16", type="image/svg+xml")
    el("Url", type="text/html", method="get", template=d.search)
    el("Url", type=SUGGESTIONS_TYPE.split(";")[0], method="get", template=d.suggestions)
    el("Url", type="application/atom+xml", method="get", template=d.feed)
    el("Url", type=DESCRIPTION_TYPE.split(";")[0], rel="self", template=d.self_url)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def suggestions(prefix: str, completions: list[tuple[str, str, str]]) -> list:
    """[prefix, [completion…], [description…], [URL…]] from (text, description, URL) triples."""
    return [prefix, [c[0] for c in completions], [c[1] for c in completions], [c[2] for c in completions]]
