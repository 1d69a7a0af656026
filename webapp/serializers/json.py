"""Domain objects → the JSON bodies of the API, and the one JSON encoder of the app. The bodies are pydantic
models, so the OpenAPI document (webapp/openapi.py) is generated from exactly what is sent; they are
encoded with orjson (Flask's JSON provider, set by create_app; see DECISIONS.md D-055)."""

from __future__ import annotations

from typing import Any, Literal

import orjson
from flask import Flask, Response
from flask.json.provider import JSONProvider
from pydantic import BaseModel

from webapp.domain import AuthorPeople, AuthorProfile, Hit, SearchResult, Suggestion
from webapp.views.links import suggestion_url

JSON = dict[str, Any]


class SuggestionLink(Suggestion):
    url: str  # where choosing the suggestion leads


class Suggestions(BaseModel):
    suggestions: list[SuggestionLink]


class Paper(BaseModel):
    paper: Hit
    similar: list[Hit]


class ErrorDetail(BaseModel):
    status: int
    code: str
    message: str  # always English, stable for clients (see DECISIONS.md D-021)


class Error(BaseModel):
    error: ErrorDetail


class Status(BaseModel):
    status: Literal["ok", "ready", "unavailable"]


BODIES: tuple[type[BaseModel], ...] = (SearchResult, Paper, Suggestions, AuthorProfile, AuthorPeople, Error,
                                       Status)


def result(r: SearchResult) -> JSON:
    return r.model_dump(mode="json")


def paper(p: Hit, similar: list[Hit]) -> JSON:
    return Paper(paper=p, similar=similar).model_dump(mode="json")


def author(a: AuthorProfile | AuthorPeople) -> JSON:
    return a.model_dump(mode="json")


def suggestions(items: list[Suggestion]) -> JSON:
    links = [SuggestionLink(**s.model_dump(), url=suggestion_url(s)) for s in items]
    return Suggestions(suggestions=links).model_dump(mode="json")


def error(status: int, code: str, message: str) -> JSON:
    return Error(error=ErrorDetail(status=status, code=code, message=message)).model_dump(mode="json")


def status(value: Literal["ok", "ready", "unavailable"]) -> JSON:
    return Status(status=value).model_dump(mode="json")


# --- encoding ---------------------------------------------------------------------------------------


def encode(body: Any, *, indent: bool = False) -> bytes:
    """JSON as UTF-8 (non-ASCII as is), keys in the order given, compact unless `indent`."""
    return orjson.dumps(body, option=orjson.OPT_INDENT_2 if indent else None)


class OrjsonProvider(JSONProvider):
    """Flask's jsonify, request.get_json and the templates' tojson through orjson."""

    mimetype = "application/json"

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return encode(obj, indent=bool(kwargs.get("indent"))).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        body = encode(self._prepare_response_obj(args, kwargs), indent=self._app.debug)
        return self._app.response_class(body, mimetype=self.mimetype)


def init_app(app: Flask) -> None:
    app.json = OrjsonProvider(app)
