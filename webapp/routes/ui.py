"""Server-rendered pages: search and paper."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request, url_for

from webapp import i18n
from webapp.controllers import search as controller
from webapp.routes import recorder, request_args, search_config, service
from webapp.serializers.bibtex import to_bibtex
from webapp.site import external_url
from webapp.views import facets
from webapp.views.links import SearchLinks, page_description, results_url

blueprint = Blueprint("ui", __name__)


@blueprint.get("/")
def search():
    config = search_config()
    result, status = controller.search(service(), request.args, request_args(), recorder(), "page", i18n.current())
    links = SearchLinks(url_for("ui.search"), result.params, config, i18n.requested_lang())
    return render_template("search.html", result=result, links=links, config=config,
                           child_params=facets.child_params(config),
                           selected_filters=facets.selected_filters(result, config, i18n.current())), status


@blueprint.get("/paper/<path:paper_id>")
def paper(paper_id: str):
    data, status = controller.paper(service(), paper_id)
    if data["paper"] is None:
        abort(404)
    hit = data["paper"]
    return render_template(
        "paper.html", config=search_config(), bibtex=to_bibtex(hit), description=page_description(hit),
        # one address for every ?lang= variant (the language follows the reader, not the URL)
        canonical_url=external_url("ui.paper", paper_id=hit.id),
        back_url=results_url(request.referrer, request.host, url_for("ui.search")), **data), status
