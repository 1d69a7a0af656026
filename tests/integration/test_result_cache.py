"""The shard request cache for results pages, against the real node (config result_cache, DECISIONS.md D-228): the
same first page again is answered from the cache, a page deeper than `within` never asks for it, and papers added
after a page was cached are in that page the next time it is asked for (the node drops a shard's entries when a
refresh changes it)."""

from __future__ import annotations

from elasticsearch import Elasticsearch
from support import build_alias, write_jsonl

from indexer import operations
from indexer.loading.rejects import RejectsWriter
from webapp.domain import SearchParams
from webapp.services.pages.profiles import ProfileService
from webapp.services.search import SearchService
from webapp.services.search_settings import search_config


def paper(i: str, title: str) -> dict:
    return {"id": i, "title": title, "abstract": f"An abstract about {title.lower()}.", "authors": ["Ada Lovelace"]}


def cache_stats(admin: Elasticsearch, alias: str) -> tuple[int, int]:
    """The alias's shard request cache: (hits, misses); a request that does not ask for it counts in neither."""
    stats = admin.indices.stats(index=alias, metric="request_cache")["_all"]["total"]["request_cache"]
    return stats["hit_count"], stats["miss_count"]


def service(cluster, alias: str, within: int) -> SearchService:
    config = search_config()
    config = config.model_copy(update={"result_cache": config.result_cache.model_copy(update={"within": within})})
    return SearchService(cluster.client("web"), alias, config)


def looked_up(admin: Elasticsearch, alias: str, service: SearchService, q: str) -> tuple[list[str], int, int]:
    """A search's papers, and how many of its requests the cache answered and missed (its size-0 counts are
    cached by Elasticsearch's default, whatever `within` says)."""
    hits, misses = cache_stats(admin, alias)
    found = [h.id for h in service.search(SearchParams(q=q)).hits]
    after = cache_stats(admin, alias)
    return found, after[0] - hits, after[1] - misses


def test_a_first_page_asks_for_the_cache_and_is_answered_from_it_until_papers_are_added(cluster, admin, alias,
                                                                                          tmp_path):
    papers = [paper("a", "Sparse kernels"), paper("b", "Dense kernels")]
    build_alias(cluster, alias, [write_jsonl(tmp_path / "first.jsonl", papers)], PAPERSEARCH_MEANING="0")
    deep, first = service(cluster, alias, within=0), service(cluster, alias, within=100)
    for s in (deep, first):
        s.search(SearchParams(q="sparse"))  # a service's first search also looks up the live index
    found, hits, misses = looked_up(admin, alias, deep, "kernels")
    beside_the_page = hits + misses  # the requests that ask for the cache whatever the page is
    assert sorted(found) == ["a", "b"]
    found, hits, misses = looked_up(admin, alias, first, "kernels")
    assert sorted(found) == ["a", "b"] and hits + misses == beside_the_page + 1 and misses >= 1  # the page too
    found, hits, misses = looked_up(admin, alias, first, "kernels")
    assert sorted(found) == ["a", "b"] and (hits, misses) == (beside_the_page + 1, 0)  # all of it from the cache

    with RejectsWriter(None) as rejects:
        operations.add(cluster.client("indexer"), cluster.settings(alias, PAPERSEARCH_MEANING="0"),
                       [write_jsonl(tmp_path / "add.jsonl", [paper("c", "Kernels for graphs")])], rejects,
                       progress=False)
    found, hits, misses = looked_up(admin, alias, first, "kernels")
    assert sorted(found) == ["a", "b", "c"] and misses >= 1  # the refresh dropped the cached page


def test_an_author_page_again_comes_from_the_cache(cluster, admin, alias, tmp_path):
    papers = [paper("a", "Sparse kernels"), paper("b", "Dense kernels")]
    build_alias(cluster, alias, [write_jsonl(tmp_path / "first.jsonl", papers)], PAPERSEARCH_MEANING="0")
    pages = ProfileService(service(cluster, alias, within=100))
    first = pages.author("Ada Lovelace", SearchParams())
    hits, misses = cache_stats(admin, alias)
    again = pages.author("Ada Lovelace", SearchParams())
    assert [h.id for h in again.result.hits] == [h.id for h in first.result.hits] and first.papers == 2
    after = cache_stats(admin, alias)
    assert after[1] == misses and after[0] - hits >= 3  # the look-up, the papers and the profile: all cached
