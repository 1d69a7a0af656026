"""Probes: /healthz (the process answers; never touches Elasticsearch) and /readyz (the alias is searchable)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from webapp.controllers import search as controller
from webapp.routes import service

blueprint = Blueprint("health", __name__)


@blueprint.get("/healthz")
def healthz():
    return jsonify(status="ok")


@blueprint.get("/readyz")
def readyz():
    data, status = controller.readiness(service())
    return jsonify(data), status
