"""JSON API: the same parameters and meaning as the search page; autocomplete for the page's script."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, url_for

from webapp import i18n, openapi
from webapp.controllers import profiles as profile_controller
from webapp.controllers import search as controller
from webapp.controllers.events import MAX_BEACON_BYTES
from webapp.routes import asked, profiles, recorder, request_args, search_settings, service
from webapp.routes.errors import error_response
from webapp.serializers import json as to_json
from webapp.site import origin_allowed
from webapp.views.links import SearchLinks

blueprint = Blueprint("api", __name__, url_prefix="/api")


@blueprint.get("/search")
def search():
    result, status = controller.search(service(), asked(), recorder(), "api", i18n.current())
    response = jsonify(to_json.result(result))
    if result.past_last_page:  # where the results end (RFC 8288)
        last = SearchLinks(url_for("api.search"), result.params, search_settings(), i18n.requested_lang())
        response.headers["Link"] = f'<{last.page(result.page_count)}>; rel="last"'
    return response, status


@blueprint.post("/events")
def events():
    """The search page's beacons (a keepalive fetch): a result click or a retyped query, as JSON."""
    body = request.stream.read(MAX_BEACON_BYTES + 1)  # never more than a beacon can be
    origin = request.headers.get("Origin")
    recorder().beacon(body, request.mimetype, request.headers.get("Sec-Fetch-Site", "same-origin"),
                      own_origin=origin is None or origin_allowed(origin))
    return "", 204


@blueprint.get("/papers/<path:paper_id>")
def paper(paper_id: str):
    data, status = controller.paper(service(), paper_id)
    if data["paper"] is None:
        return error_response(404, "error.no_paper", id=paper_id[:200])
    return jsonify(to_json.paper(data["paper"], data["similar"])), status


@blueprint.get("/papers/<path:paper_id>/citation")
def citation(paper_id: str):
    """BibTeX or RIS (?format=), as a download named after the citation key."""
    found, status = controller.citation(service(), paper_id, request.args, request_args())
    if found is None:
        return error_response(404, "error.no_paper", id=paper_id[:200])
    response = Response(found.text, status=status, content_type=found.media_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{found.filename}"'
    return response


@blueprint.get("/authors/<path:name>")
def author(name: str):
    """An author page as JSON: the name's papers (as the page's parameters ask), facets, spellings, co-authors."""
    found, status = profile_controller.author(profiles(), name, asked())
    if found is None or status == 404:  # a full name no paper has: its surname's people are the site's pages
        return error_response(404, "error.no_author", name=name[:200])
    return jsonify(to_json.author(found)), status


@blueprint.get("/suggest")
def suggest():
    suggestions, status = controller.suggest(service(), request.args, request_args())
    return jsonify(to_json.suggestions(suggestions)), status


@blueprint.get("/openapi.json")
def openapi_document():
    return jsonify(openapi.document(request_args()))
