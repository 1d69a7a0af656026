"""Checks by consumers we did not write, shared by the integration and browser tests: the Atom feed through
feedparser and the RFC 4287 RELAX NG schema, sitemaps through the sitemaps.org XSDs (tests/fixtures/schemas),
CSL-JSON through jsonschema and the rules of the citation-style-language schema."""

from __future__ import annotations

import json
from functools import cache

import feedparser
import jsonschema
import rnc2rng
from lxml import etree
from nodeless import FIXTURES

SCHEMAS = FIXTURES / "schemas"
ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"


@cache
def atom_schema() -> etree.RelaxNG:
    # rnc2rng declares the RNC's `local` prefix as xmlns:local="", which XML 1.0 forbids; the grammar itself
    # names that namespace as <nsName ns=""/>, so the declaration can go.
    rng = rnc2rng.dumps(rnc2rng.load(str(SCHEMAS / "atom.rnc"))).replace('xmlns:local=""', "")
    return etree.RelaxNG(etree.fromstring(rng.encode()))


@cache
def xsd(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def valid_atom(body: bytes) -> feedparser.FeedParserDict:
    """The feed parses without a bozo error and validates against the Atom schema (with its two Schematron
    rules, which RELAX NG cannot express, checked as XPath)."""
    parsed = feedparser.parse(body)
    assert not parsed.bozo, parsed.get("bozo_exception")
    doc = etree.fromstring(body)
    schema = atom_schema()
    assert schema.validate(doc), schema.error_log
    ns = {"atom": ATOM[1:-1]}
    assert doc.xpath("boolean(atom:author) or not(atom:entry[not(atom:author)])", namespaces=ns)
    assert all(e.xpath("boolean(atom:link[@rel='alternate'] or atom:content)", namespaces=ns)
               for e in doc.iterfind(f"{ATOM}entry"))
    return parsed


def opensearch_urls(body: bytes) -> dict[str, str]:
    """The URL templates of an OpenSearch 1.1 description by type, after checking what the specification
    requires: its root element and namespace, a ShortName of at most 16 characters, a Description, and a
    text/html search URL with {searchTerms}."""
    doc = etree.fromstring(body)
    ns = {"os": OPENSEARCH}
    assert doc.tag == f"{{{OPENSEARCH}}}OpenSearchDescription"
    assert 0 < len(doc.findtext("os:ShortName", namespaces=ns) or "") <= 16
    assert doc.findtext("os:Description", namespaces=ns)
    urls = {u.get("type"): u.get("template") for u in doc.iterfind("os:Url", ns)}
    assert "{searchTerms}" in urls["text/html"]
    return urls


# The csl-data.json schema's rules for what these items use (citation-style-language/schema): an array of
# objects with `type` and `id`, no keys but its variables, names as family/given or literal, dates as date-parts.
_NAME = {"type": "object", "additionalProperties": False,
         "properties": {"family": {"type": "string"}, "given": {"type": "string"}, "literal": {"type": "string"}}}
CSL_DATA = {
    "type": "array",
    "items": {
        "type": "object", "required": ["type", "id"], "additionalProperties": False,
        "properties": {
            "type": {"enum": ["article", "article-journal", "paper-conference", "document"]},
            "id": {"type": ["string", "number"]}, "author": {"type": "array", "items": _NAME},
            "issued": {"type": "object", "additionalProperties": False, "properties": {"date-parts": {
                "type": "array", "minItems": 1, "maxItems": 2,
                "items": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": ["string", "number"]}}}}},
            **{k: {"type": "string"} for k in ("title", "translated-title", "container-title", "abstract", "keyword",
                                               "language", "DOI", "URL")},
            "number": {"type": ["string", "number"]},
            "custom": {"type": "object"},  # what has no variable of its own (schema 1.0.2)
        },
    },
}


def csl_items(text: str) -> list[dict]:
    """CSL-JSON parsed and checked against CSL_DATA (raises jsonschema.ValidationError, naming the offence)."""
    items = json.loads(text)
    jsonschema.validate(items, CSL_DATA)
    return items
