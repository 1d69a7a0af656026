"""Server-rendered pages: search and paper."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request, url_for

from webapp import i18n
from webapp.controllers import search as controller
from webapp.routes import recorder, request_args, search_config, service
from webapp.views import facets
from webapp.views.links import SearchLinks

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
    return render_template("paper.html", config=search_config(), **data), status
