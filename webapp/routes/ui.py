"""Server-rendered pages: search, paper, author and topic."""

from __future__ import annotations

from flask import Blueprint, abort, g, make_response, redirect, render_template, request, url_for

from papersearch.taxonomy import TOPIC_SEPARATOR
from webapp import caching, i18n
from webapp.controllers import profiles as profile_controller
from webapp.controllers import search as controller
from webapp.domain import AuthorPeople, SearchParams
from webapp.routes import asked, profiles, recorder, search_settings, service
from webapp.serializers.bibtex import to_bibtex
from webapp.site import absolute, external_url
from webapp.views import facets
from webapp.views.links import SearchLinks, page_description, results_url, topic_slugs, topic_url

blueprint = Blueprint("ui", __name__)
blueprint.add_app_template_global(facets.chart, "facet_chart")  # a facet's bars with their links (_chart.html)
blueprint.add_app_template_global(topic_url)
# "Area · Subarea" wherever a topic is named in full (the taxonomy's own form, papersearch/taxonomy.py).
blueprint.add_app_template_global(TOPIC_SEPARATOR, "topic_separator")


@blueprint.app_template_global()
def topic_label(area: str, subarea: str | None = None) -> str | None:
    """A topic's Chinese label (None when the taxonomy has none)."""
    return service().labels.label_zh(area, subarea)


@blueprint.get("/")
def search():
    config = search_settings()
    result, status = controller.search(service(), asked(), recorder(), "page", i18n.current())
    unknown = facets.unknown_filters(result, config)
    setattr(g, i18n.IGNORED_ARGS, unknown)  # the language links leave them out too
    links = SearchLinks(url_for("ui.search"), result.params, config, i18n.requested_lang(), unknown)
    return render_template("search.html", result=result, links=links, config=config,
                           child_params=facets.child_params(config),
                           selected_filters=facets.selected_filters(result, config, i18n.current()),
                           emptied_by=facets.emptying_filters(result, config, i18n.current())), status


@blueprint.get("/paper/<path:paper_id>")
def paper(paper_id: str):
    data, status = controller.paper(service(), paper_id)
    if data["paper"] is None:
        abort(404)
    hit = data["paper"]
    back_url = results_url(request.referrer, request.host, url_for("ui.search"))
    response = make_response(render_template(
        "paper.html", config=search_settings(), bibtex=to_bibtex(hit), description=page_description(hit),
        # one address for every ?lang= variant (the language follows the reader, not the URL)
        canonical_url=external_url("ui.paper", paper_id=hit.id), back_url=back_url, **data), status)
    if back_url:
        # The page links back to this visitor's search (from the Referer): never kept by a shared cache, which
        # keys on the URL alone and would show one visitor's query to the next (issue 45.7).
        response.headers["Cache-Control"] = caching.PER_VISITOR
    return response


@blueprint.get("/author/<path:name>")
def author(name: str):
    """Every paper of the name (and its other spellings), newest first or by relevance to ?q=, with its facets."""
    config = search_settings()
    found, status = profile_controller.author(profiles(), name, asked())
    if isinstance(found, AuthorPeople):
        # A surname many people carry (or a name no paper has, whose surname some do): the people, not a bare 404.
        return render_template("author_people.html", name=name, people=found.people, surname=found.surname), status
    if found is None:
        abort(404)
    shown = found.result.params.model_copy(update={"sort": config.default_sort})  # the order is the page's own
    unknown = facets.unknown_filters(found.result, config)
    setattr(g, i18n.IGNORED_ARGS, unknown)
    links = SearchLinks(url_for("ui.author", name=name), shown, config, i18n.requested_lang(), unknown)
    # The page's feed and export are the search author:"name" (the same person: author_names.py) with its words.
    named = f'author:"{name.replace(chr(34), " ")}" {shown.q}'.strip()
    list_links = SearchLinks(url_for("ui.search"), shown.model_copy(update={"q": named}), config,
                             i18n.requested_lang(), unknown)
    return render_template("author.html", profile=found, result=found.result, links=links, config=config,
                           list_links=list_links,
                           child_params=facets.child_params(config),
                           selected_filters=facets.selected_filters(found.result, config, i18n.current()),
                           canonical_url=external_url("ui.author", name=found.name)), status


@blueprint.get("/topic/<area>", strict_slashes=False)
@blueprint.get("/topic/<area>/<subarea>", strict_slashes=False)
def topic(area: str, subarea: str | None = None):
    """A topic's page; any other spelling of it (a slug's other forms, its Chinese label, a trailing slash)
    redirects to its address (the slugs)."""
    found = profile_controller.topic_of(profiles(), area, subarea)
    if found is None:
        return no_topic_page("topic.unknown", f"{area}{TOPIC_SEPARATOR}{subarea}" if subarea else area)
    slugs = topic_slugs(found.area, found.subarea)
    if (area, subarea) != (slugs["area"], slugs.get("subarea")) or request.path.endswith("/"):
        return redirect(absolute(url_for("ui.topic", **slugs, lang=i18n.requested_lang())), 308)
    page, status = profile_controller.topic(profiles(), found)
    if page is None:
        zh = i18n.current() == "zh" and topic_label(found.area, found.subarea)
        return no_topic_page("topic.no_papers", zh or found.subarea or found.area)
    config = search_settings()
    browse = SearchParams(areas=[] if found.subarea else [found.area], subareas=[found.path] if found.subarea else [])
    links = SearchLinks(url_for("ui.search"), browse, config, i18n.requested_lang())
    return render_template("topic.html", topic=page, links=links, config=config,
                           canonical_url=external_url("ui.topic", **slugs)), status


def no_topic_page(key: str, name: str):
    """404 for a topic the taxonomy does not know, or one without papers: said, with the topics that have a page."""
    topics, _ = profile_controller.topics(profiles())
    return render_template("error.html", status=404, title=i18n.t("error.title.404"), message=i18n.t(key, name=name),
                           topics=[t for t, _ in topics if not t.subarea]), 404
