"""What author and topic pages cost Elasticsearch, beside a search's (issue 34): `bench.query_cost --pages`.

On the corpora of bench/query_cost.py, every request the webapp sends is recorded from its own services (as
bench/search_mix.py records a search's) and replayed with the request cache off, `--repeats` times:
Elasticsearch's `took` (median) and the node's CPU per page.
  search       each query of the search mix (bench/search_mix.py QUERY_MIX): the unit the pages are priced in
  author       the pages of three of the most prolific names and three with a paper or two, newest first
  author+q     the same names' pages with words ("learning", ranked as the search ranks them)
  topic        the three areas and three subareas with the most papers
"""

from __future__ import annotations

import statistics
from typing import Any

from bench.common import WEB_USER, es_url, log
from bench.common import session as es_session
from bench.query_cost import Replayer
from bench.search_mix import QUERY_MIX, Request, _recording_service, parsed_params, service_requests

NAMES_SAMPLED = 200  # names looked at to pick prolific ones (the first) and rare ones (the last)
WORDS = "learning"


def _buckets(alias: str, aggs: dict) -> dict[str, list[dict]]:
    r = es_session(WEB_USER).post(f"{es_url()}/{alias}/_search", json={"size": 0, "aggs": aggs}, timeout=60)
    r.raise_for_status()
    return {k: v["buckets"] for k, v in r.json()["aggregations"].items()}


def pages(alias: str) -> dict[str, list[tuple[str, Any]]]:
    """The pages priced: kind → [(what, the requests its service sends)]."""
    from papersearch.taxonomy import PATH_SEPARATOR, Topic
    from webapp.services.pages.profiles import ProfileService

    service, sent = _recording_service(alias, es_url())
    profiles = ProfileService(service)
    found = _buckets(alias, {"names": {"terms": {"field": "authors.as_written", "size": NAMES_SAMPLED}},
                             "areas": {"terms": {"field": "topic_area", "size": 3}},
                             "paths": {"terms": {"field": "topic_path", "size": 50}}})
    names = [b["key"] for b in found["names"]]
    names = names[:3] + names[-3:]
    topics = [Topic(b["key"]) for b in found["areas"]]
    topics += [Topic(*b["key"].split(PATH_SEPARATOR, 1)) for b in found["paths"] if PATH_SEPARATOR in b["key"]][:3]

    def recorded(call) -> list[Request]:
        call()  # the first time also looks up the live index (once a minute per process): not priced
        sent.clear()
        call()
        out = list(sent)
        sent.clear()
        return out

    out: dict[str, list[tuple[str, Any]]] = {"author": [], "author+q": [], "topic": []}
    for name in names:
        out["author"].append((name, recorded(lambda n=name: profiles.author(n, parsed_params({})))))
        out["author+q"].append((name, recorded(lambda n=name: profiles.author(n, parsed_params({"q": WORDS})))))
    for topic in topics:
        out["topic"].append((topic.path, recorded(lambda t=topic: profiles.topic(t))))
    return out


def rows(alias: str, repeats: int) -> list[dict]:
    replay = Replayer()
    kinds: list[tuple[str, str, list[Request]]] = [
        ("search", str(p.get("q", "")) or "(browse)", service_requests(alias, p)) for _, p in QUERY_MIX]
    kinds += [(kind, what, requests) for kind, items in pages(alias).items() for what, requests in items]
    out = []
    for kind, what, requests in kinds:
        replay.took(requests)  # warm
        measured = replay.measure({"page": requests}, repeats)["page"]
        out.append({"kind": kind, "page": what, "requests": len(requests), **measured})
        log(f"  {kind:9} {what[:40]:42} {len(requests)} req {measured['took_ms']:7.1f} ms  cpu {measured['cpu_ms']}")
    return out


def summary(found: list[dict]) -> dict[str, dict[str, Any]]:
    """Per kind: the median page's took and CPU, and each against a search's (the mix's median)."""
    out: dict[str, dict[str, Any]] = {}
    for kind in dict.fromkeys(r["kind"] for r in found):
        mine = [r for r in found if r["kind"] == kind]
        cpus = [r["cpu_ms"] for r in mine if r["cpu_ms"] is not None]
        out[kind] = {"pages": len(mine), "took_ms": statistics.median(r["took_ms"] for r in mine),
                     "cpu_ms": round(statistics.median(cpus), 2) if cpus else None,
                     "requests": statistics.median(r["requests"] for r in mine)}
    search = out["search"]
    for k in out.values():
        k["took_vs_search"] = round(k["took_ms"] / search["took_ms"], 2) if search["took_ms"] else None
        k["cpu_vs_search"] = round(k["cpu_ms"] / search["cpu_ms"], 2) if k["cpu_ms"] and search["cpu_ms"] else None
    return out


def priced(alias: str, repeats: int, label: str, papers: int) -> dict[str, Any]:
    """The pages' rows and the median page per kind against a search's, printed as a table."""
    found = rows(alias, repeats)
    totals = summary(found)
    print(f"\n{label} ({papers:,} papers): median page, took ms and node CPU ms, and × a search's")
    for kind, k in totals.items():
        print(f"  {kind:9} {k['pages']:>3} pages  {k['requests']:>4} req  took {k['took_ms']:>7.1f} "
              f"(x{k['took_vs_search']})  cpu {k['cpu_ms']} (x{k['cpu_vs_search']})", flush=True)
    return {"rows": found, "kinds": totals}
