"""For crawlers: robots.txt and the sitemap of paper and topic pages, from the index
(webapp/services/pages/long_lists.py, profiles.py), each sitemap built once per index version and kept
(webapp/controllers/versioned_cache.py).

/sitemap.xml is one file while every paper and topic fits into one (MAX_URLS, the protocol's 50,000), else an
index of /sitemap-papers.xml files, each starting after the paper id the index gives it, and
/sitemap-topics.xml.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, request, url_for

from papersearch.taxonomy import Topic
from webapp.controllers import feeds_exports as controller
from webapp.controllers import profiles as controller_profiles
from webapp.controllers.versioned_cache import VersionedCache
from webapp.routes import list_args, profiles, service
from webapp.routes.feeds import paper_url
from webapp.serializers import robots, sitemap
from webapp.site import external_url
from webapp.views.links import topic_slugs

blueprint = Blueprint("crawlers", __name__)
LIMIT_KEY = "SITEMAP_MAX_URLS"  # app.config: URLs per sitemap file (tests lower it)
CACHE_KEY = "crawler_cache"  # app.extensions: the sitemaps of the current index version


@blueprint.record_once
def _setup(state) -> None:
    state.app.config.setdefault(LIMIT_KEY, sitemap.MAX_URLS)
    state.app.extensions[CACHE_KEY] = VersionedCache()


def _per_file() -> int:
    return int(current_app.config[LIMIT_KEY])


@blueprint.get("/robots.txt")
def robots_txt():
    """Paper pages may be crawled; results pages beyond the first, the API and feeds not."""
    papers = url_for("ui.paper", paper_id="-")[:-1]
    search = url_for("ui.search")
    text = robots.robots_txt(allow=[papers], disallow=[f"{search}?*page=", "/api/", url_for("feeds.feed")],
                             sitemap=external_url("crawlers.sitemap_xml"))
    return Response(text, content_type=robots.MEDIA_TYPE)


def _xml(key: tuple, build: Callable[[], Iterable[str]]) -> Response:
    """The sitemap `key` of this index version: built whole (a failure is a clean 503), kept per version."""
    cache: VersionedCache = current_app.extensions[CACHE_KEY]
    body = cache.get(controller.index_version(service()), (*key, _per_file()),
                     lambda: "".join(build()).encode())
    return Response(body, content_type=sitemap.MEDIA_TYPE)


def _topic_urls(topics: list[tuple[Topic, str | None]]) -> Iterator[tuple[str, str | None]]:
    return ((external_url("ui.topic", **topic_slugs(t.area, t.subarea)), day) for t, day in topics)


@blueprint.get("/sitemap.xml")
def sitemap_xml():
    def build() -> Iterable[str]:
        found, _ = controller.sitemap(service(), profiles(), _per_file())
        if found.ids is not None:
            return sitemap.urlset(chain(((paper_url(p.id), p.added) for p in found.ids), _topic_urls(found.topics)))
        files = external_url("crawlers.sitemap_file")
        return sitemap.index(chain((files if after is None else f"{files}?{urlencode({'after': after})}"
                                    for after in found.starts), [external_url("crawlers.sitemap_topics")]))
    return _xml(("sitemap",), build)


@blueprint.get("/sitemap-topics.xml")
def sitemap_topics():
    """The topic pages (listed in /sitemap.xml itself while everything fits into one file)."""
    def build() -> Iterable[str]:
        topics, _ = controller_profiles.topics(profiles())
        return sitemap.urlset(_topic_urls(topics))
    return _xml(("topics",), build)


@blueprint.get("/sitemap-papers.xml")
def sitemap_file():
    after = list_args().sitemap_after(request.args)

    def build() -> Iterable[str]:
        ids, _ = controller.sitemap_file(service(), request.args, list_args(), _per_file())
        return sitemap.urlset((paper_url(p.id), p.added) for p in ids)
    return _xml(("file", after), build)
