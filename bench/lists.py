"""Lists longer than a page, on a generated corpus above 50,000 papers (in-process test client, the webapp's
read-only identity):

- the sitemap at the protocol's limit: /sitemap.xml becomes an index of files; each validates against the
  sitemaps.org XSDs (tests/fixtures/schemas), every paper is in exactly one file; each request timed;
- an export of 500 papers and a feed, each against the searches it is made of, alternating, medians.

    .venv/bin/python -m bench.lists --size 60000 [--repeats 5] [--cleanup]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from lxml import etree

from bench.common import ROOT, WEB_USER, delete_indices, ensure_node, es_url, identity, log
from bench.corpus import DEFAULT_SEED, ensure_corpus
from bench.indexing import run_ours

ALIAS = "papersbench_lists"
# Each list, and the searches it is made of (webapp/services/listing.py).
LISTS = {
    "export 500 (BibTeX)": ("/api/export?q=learning&limit=500", [f"/api/search?q=learning&size=100&page={p}"
                                                                  for p in range(1, 6)]),
    "feed (50 newest)": ("/feed?q=learning", ["/api/search?q=learning&size=50&sort=added"]),
}


def lists_against_searches(client, repeats: int) -> dict[str, dict[str, float]]:
    """Median ms of each list and of its searches, run alternately (first answers warm the caches)."""
    def timed(path: str) -> float:
        started = time.perf_counter()
        r = client.get(path)
        r.get_data()
        assert r.status_code == 200, path
        return (time.perf_counter() - started) * 1000

    out = {}
    for name, (path, searches) in LISTS.items():
        timed(path)
        lists, parts = [], []
        for _ in range(repeats):
            lists.append(timed(path))
            parts.append(sum(timed(p) for p in searches))
        out[name] = {"list": round(statistics.median(lists), 1), "its_searches": round(statistics.median(parts), 1)}
    return out
SCHEMAS = ROOT / "tests" / "fixtures" / "schemas"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=60000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep the alias a previous run built")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="the service's Elasticsearch timeout (the site's is 2 s; a loaded machine needs more)")
    parser.add_argument("--cleanup", action="store_true")
    args = parser.parse_args(argv)
    ensure_node()
    from papersearch.es import make_client
    from papersearch.settings import Settings
    from webapp import create_app
    from webapp.serializers.sitemap import MAX_URLS
    from webapp.services.search import SearchService

    user, password = identity(WEB_USER)
    settings = Settings(ES_URL=es_url(), ES_WEB_USERNAME=user, ES_WEB_PASSWORD=password, PAPERSEARCH_ALIAS=ALIAS,
                        PAPERSEARCH_QUERY_LOG="off")
    service = SearchService(make_client("web", settings, request_timeout=args.timeout), ALIAS)
    if args.reuse:
        docs = int(service.client.count(index=ALIAS)["count"])
    else:
        built = run_ours(ensure_corpus(args.size, args.seed, log=log), ALIAS)
        docs = docs
        log(f"indexed {docs} papers in {built.seconds:.1f}s")
    client = create_app(settings, service=service, rate_limit="off").test_client()
    schemas = {name: etree.XMLSchema(etree.parse(str(SCHEMAS / f"{name}.xsd"))) for name in ("siteindex", "sitemap")}

    def fetch(path: str, schema: str) -> tuple[list[str], float, int]:
        started = time.perf_counter()
        r = client.get(path)
        seconds = time.perf_counter() - started
        doc = etree.fromstring(r.data)
        if r.status_code != 200 or not schemas[schema].validate(doc):
            raise SystemExit(f"{path}: {r.status_code} {schemas[schema].error_log}")
        return [loc.text for loc in doc.iter("{*}loc")], seconds, len(r.data)

    files, index_seconds, _ = fetch("/sitemap.xml", "siteindex")
    parts = []
    ids: list[str] = []
    for url in files:
        locs, seconds, size = fetch(url.removeprefix("http://localhost"), "sitemap")
        parts.append({"urls": len(locs), "seconds": round(seconds, 2), "mb": round(size / 1e6, 2)})
        ids += locs
    result = {"papers": docs, "max_urls": MAX_URLS, "index_seconds": round(index_seconds, 2),
              "files": parts, "every_paper_once": len(ids) == len(set(ids)) == docs,
              "lists_ms": lists_against_searches(client, args.repeats),
              "command": f"python -m bench.lists --size {args.size} --repeats {args.repeats}"}
    print(json.dumps(result, indent=2))
    if args.cleanup:
        delete_indices(f"{ALIAS}*")
    return 0 if result["every_paper_once"] and len(files) == -(-docs // MAX_URLS) else 1


if __name__ == "__main__":
    sys.exit(main())
