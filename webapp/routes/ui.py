"""Server-rendered pages: search, paper, suggestions for the autocomplete script."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, render_template, request, url_for

from webapp import i18n
from webapp.controllers import facets
from webapp.controllers import search as controller
from webapp.controllers.links import SearchLinks
from webapp.routes import search_config, service

blueprint = Blueprint("ui", __name__)


@blueprint.get("/")
def search():
    config = search_config()
    result, status = controller.search(service(), request.args, config)
    links = SearchLinks(url_for("ui.search"), result.params, int(config["default_page_size"]),
                        i18n.requested_lang())
    return render_template("search.html", result=result, links=links, config=config,
                           child_params=facets.child_params(config),
                           selected_filters=facets.selected_filters(result, config, i18n.current())), status


@blueprint.get("/paper/<path:paper_id>")
def paper(paper_id: str):
    data, status = controller.paper(service(), paper_id)
    if data["paper"] is None:
        abort(404)
    return render_template("paper.html", config=search_config(), **data), status


@blueprint.get("/suggest")
def suggest():
    suggestions, status = controller.suggest(service(), request.args, search_config())
    return jsonify(suggestions=[_suggestion_json(s) for s in suggestions]), status


def _suggestion_json(suggestion) -> dict:
    data = suggestion.model_dump(mode="json")
    # Where choosing the suggestion leads: a title opens its paper, an author searches their papers.
    if suggestion.kind == "title" and suggestion.id:
        data["url"] = url_for("ui.paper", paper_id=suggestion.id)
    else:
        data["url"] = url_for("ui.search", q=f'author:"{suggestion.text}"' if suggestion.kind == "author"
                              else suggestion.text)
    return data
