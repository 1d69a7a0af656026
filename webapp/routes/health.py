"""Probes: /healthz (the process answers; never touches Elasticsearch) and /readyz (the alias is searchable)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.controllers import search as controller
from webapp.routes import service
from webapp.serializers import json as to_json

blueprint = Blueprint("health", __name__)


@blueprint.get("/healthz")
def healthz():
    return jsonify(to_json.status("ok"))


@blueprint.get("/readyz")
def readyz():
    state, status = controller.readiness(service())
    return jsonify(to_json.status(state)), status
