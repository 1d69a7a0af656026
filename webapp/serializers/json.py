"""Domain objects → the JSON bodies of the API. The bodies are pydantic models, so the OpenAPI document
(webapp/openapi.py) is generated from exactly what is sent."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from webapp.domain import Hit, SearchResult, Suggestion
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
    message: str  # always English, stable for clients (see DECISIONS.md "API errors in English")


class Error(BaseModel):
    error: ErrorDetail


class Status(BaseModel):
    status: Literal["ok", "ready", "unavailable"]


BODIES: tuple[type[BaseModel], ...] = (SearchResult, Paper, Suggestions, Error, Status)


def result(r: SearchResult) -> JSON:
    return r.model_dump(mode="json")


def paper(p: Hit, similar: list[Hit]) -> JSON:
    return Paper(paper=p, similar=similar).model_dump(mode="json")


def suggestions(items: list[Suggestion]) -> JSON:
    links = [SuggestionLink(**s.model_dump(), url=suggestion_url(s)) for s in items]
    return Suggestions(suggestions=links).model_dump(mode="json")


def error(status: int, code: str, message: str) -> JSON:
    return Error(error=ErrorDetail(status=status, code=code, message=message)).model_dump(mode="json")


def status(value: Literal["ok", "ready", "unavailable"]) -> JSON:
    return Status(status=value).model_dump(mode="json")
