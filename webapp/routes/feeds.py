"""What other tools read: a search as an Atom feed, the OpenSearch description and its suggestions, and
the template helpers that put citation metadata into pages (COinS on results, citation_* and JSON-LD on
a paper's page)."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, Response, request
from flask.blueprints import BlueprintSetupState

from webapp import i18n
from webapp.controllers import feeds_exports as controller
from webapp.controllers.list_params import EXPORT_MAX, FEED_SORT, ListArgs
from webapp.domain import Hit
from webapp.routes import asked, request_args, search_settings, service
from webapp.routes.conditional import conditional
from webapp.serializers import atom, highwire, jsonld, opensearch
from webapp.serializers import export as export_formats
from webapp.serializers import json as to_json
from webapp.serializers.citation_fields import FORMATS as CITATION_FORMATS
from webapp.serializers.citation_fields import arxiv_url, doi_url
from webapp.serializers.coins import to_coins
from webapp.serializers.highwire import Meta
from webapp.site import absolute, external_url
from webapp.views import facets
from webapp.views.links import SearchLinks, suggestion_url

blueprint = Blueprint("feeds", __name__)


@blueprint.record_once
def _setup(state: BlueprintSetupState) -> None:
    state.app.extensions["list_args"] = ListArgs(state.app.extensions["request_args"])


def paper_url(paper_id: str) -> str:
    return external_url("ui.paper", paper_id=paper_id)


@blueprint.app_context_processor
def _export_choices() -> dict:
    return {"export_max": EXPORT_MAX, "export_formats": export_formats.FORMATS, "citation_formats": CITATION_FORMATS,
            "doi_url": doi_url, "arxiv_url": arxiv_url}


@blueprint.app_template_global()
def coins(hit: Hit) -> str:
    return to_coins(hit, paper_url(hit.id))


@blueprint.app_template_global()
def citation_meta(paper: Hit) -> list[Meta]:
    return highwire.citation_meta(paper)


@blueprint.app_template_global()
def scholarly_article(paper: Hit) -> dict:
    return jsonld.scholarly_article(paper, paper_url(paper.id))


@blueprint.get("/feed")
def feed():
    """The search's newest papers (newest added first unless a sort is given) as Atom."""
    result, status = controller.feed(service(), asked())
    config, lang = search_settings(), i18n.current()
    links = SearchLinks("", result.params, config, i18n.requested_lang())
    named = [result.params.q] if result.params.q else []
    named += [label for _, _, label in facets.selected_filters(result, config, lang)]
    info = atom.FeedInfo(
        url=links.elsewhere(external_url("feeds.feed"), default_sort=FEED_SORT),
        page_url=links.elsewhere(external_url("ui.search")),
        title=i18n.t("feed.title", search=" · ".join(named)) if named else i18n.t("feed.title_all"),
        subtitle=i18n.t("feed.subtitle"), lang="zh-CN" if lang == "zh" else "en", site=i18n.t("site.name"),
        untitled=i18n.t("paper.untitled", start="{start}"))
    response = Response(atom.to_atom(info, result.hits, paper_url), status, content_type=atom.MEDIA_TYPE)
    return conditional(response, max((p.added for p in result.hits if p.added), default=None))


@blueprint.get("/opensearch.xml")
def opensearch_description():
    """The browser's "add this search engine": search, suggestions and feed URLs, in the page's language."""
    lang = i18n.current()
    with_lang = f"&{urlencode({'lang': i18n.requested_lang()})}" if i18n.requested_lang() else ""
    terms = f"q={opensearch.TERMS}"
    document = opensearch.Description(
        short_name=i18n.t("site.name"), description=i18n.t("site.tagline"),
        language="zh-CN" if lang == "zh" else "en",
        search=f"{external_url('ui.search')}?{terms}{with_lang}",
        suggestions=f"{external_url('feeds.opensearch_suggestions')}?{terms}",
        feed=f"{external_url('feeds.feed')}?{terms}{with_lang}",
        self_url=external_url("feeds.opensearch_description", lang=lang),
        icon=external_url("static", filename="favicon.svg"))
    return conditional(Response(opensearch.description(document), content_type=opensearch.DESCRIPTION_TYPE))


@blueprint.get("/api/opensearch/suggest")
def opensearch_suggestions():
    """The completions of /api/suggest in the OpenSearch suggestions format, for the browser's search bar."""
    (prefix, found), status = controller.suggestions(service(), request.args, request_args())
    completions = [(s.text, i18n.t(f"suggest.kind.{s.kind}"), absolute(suggestion_url(s))) for s in found]
    return Response(to_json.encode(opensearch.suggestions(prefix, completions)), status,
                    content_type=opensearch.SUGGESTIONS_TYPE)
