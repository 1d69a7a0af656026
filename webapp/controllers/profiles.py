"""Author and topic page controllers. Each returns (data, HTTP status): 404 when no paper has the name, or the
topic is none of the taxonomy's or has no papers. Topics come by their slugs (papersearch/taxonomy.py
topic_slug); any other spelling the taxonomy knows gives the canonical topic, whose address the route
redirects to."""

from __future__ import annotations

from http import HTTPStatus

from werkzeug.datastructures import MultiDict

from papersearch.author_keys import author_key, is_surname
from papersearch.taxonomy import Topic
from papersearch.text import MAX_AUTHOR
from webapp.controllers.params import RequestArgs
from webapp.domain import AuthorProfile, NameCount, TopicProfile
from webapp.services.pages.profiles import ProfileService
from webapp.views.facet_labels import labelled_result


def author(profiles: ProfileService, name: str, args: MultiDict, request_args: RequestArgs,
           api: bool = False) -> tuple[AuthorProfile | None, int]:
    params = request_args.author(args, api=api)  # a bad parameter is a 400 before a name is looked up
    if not name.strip() or len(name) > MAX_AUTHOR:
        return None, HTTPStatus.NOT_FOUND
    found = profiles.author(name, params)
    if found is None:
        return None, HTTPStatus.NOT_FOUND
    return found.model_copy(update={"result": labelled_result(found.result, profiles.config)}), HTTPStatus.OK


def people(profiles: ProfileService, name: str) -> tuple[list[NameCount], int]:
    """The people who carry a name's surname (an author page that names no one person): 200 for a surname, 404
    for a full name no paper has."""
    if not name.strip() or len(name) > MAX_AUTHOR:
        return [], HTTPStatus.NOT_FOUND
    return profiles.people(name), HTTPStatus.OK if is_surname(author_key(name)) else HTTPStatus.NOT_FOUND


def topic_of(profiles: ProfileService, area: str, subarea: str | None) -> Topic | None:
    """The taxonomy's topic an address names (a slug or any spelling of it)."""
    named = area.strip() and (subarea is None or subarea.strip())
    return profiles.taxonomy.canonical(area, subarea) if named else None


def topic(profiles: ProfileService, found: Topic) -> tuple[TopicProfile | None, int]:
    page = profiles.topic(found)
    return page, HTTPStatus.OK if page else HTTPStatus.NOT_FOUND


def topics(profiles: ProfileService) -> tuple[list[tuple[Topic, str | None]], int]:
    return profiles.topics_with_papers(), HTTPStatus.OK
