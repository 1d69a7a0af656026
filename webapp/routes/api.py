"""JSON API: the same parameters and meaning as the search page."""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from webapp import openapi
from webapp.controllers import search as controller
from webapp.routes import search_config, service
from webapp.routes.ui import _suggestion_json

blueprint = Blueprint("api", __name__, url_prefix="/api")


@blueprint.get("/search")
def search():
    result, status = controller.search(service(), request.args, search_config())
    return jsonify(result.model_dump(mode="json")), status


@blueprint.get("/papers/<path:paper_id>")
def paper(paper_id: str):
    data, status = controller.paper(service(), paper_id)
    if data["paper"] is None:
        return jsonify(error={"status": 404, "code": "not_found", "message": f"no paper with id {paper_id!r}"}), 404
    return jsonify(paper=data["paper"].model_dump(mode="json"),
                   similar=[h.model_dump(mode="json") for h in data["similar"]]), status


@blueprint.get("/suggest")
def suggest():
    suggestions, status = controller.suggest(service(), request.args, search_config())
    return jsonify(suggestions=[_suggestion_json(s) for s in suggestions]), status


@blueprint.get("/openapi.json")
def openapi_document():
    return jsonify(openapi.document(search_config()))
