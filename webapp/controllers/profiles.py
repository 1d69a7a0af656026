"""Author and topic page controllers. Each returns (data, HTTP status): 404 when no paper has the name, or the
topic is none of the taxonomy's or has no papers. Topics come by their slugs (papersearch/taxonomy.py
topic_slug); any other spelling the taxonomy knows gives the canonical topic, whose address the route
redirects to."""

from __future__ import annotations

from http import HTTPStatus

from papersearch.author_keys import author_key, is_surname
from papersearch.taxonomy import Topic
from papersearch.text import MAX_AUTHOR
from webapp.controllers.asked import Asked
from webapp.domain import AuthorPeople, AuthorProfile, TopicProfile
from webapp.services.pages.profiles import ProfileService
from webapp.views.facet_labels import labelled_result, labelled_topic


def author(profiles: ProfileService, name: str, asked: Asked) -> tuple[AuthorProfile | AuthorPeople | None, int]:
    """The person's page; or the people who carry the name's surname (a name that names no one person): 200 for
    a surname, 404 for a full name no paper has. `asked`: the page's words, filters and page, validated (a bad
    parameter is a 400 before a name is looked up) and parsed once (controllers/asked.py)."""
    if not name.strip() or len(name) > MAX_AUTHOR:
        return None, HTTPStatus.NOT_FOUND
    found = profiles.author(name, asked.params, asked.prepared)
    if isinstance(found, AuthorProfile):  # topics, record types and languages named in both languages
        found = found.model_copy(update={"result": labelled_result(found.result, profiles.config, profiles.labels)})
    if isinstance(found, AuthorPeople):
        return found, HTTPStatus.OK if is_surname(author_key(name)) else HTTPStatus.NOT_FOUND
    return found, HTTPStatus.OK if found else HTTPStatus.NOT_FOUND


def topic_of(profiles: ProfileService, area: str, subarea: str | None) -> Topic | None:
    """The taxonomy's topic an address names (a slug or any spelling of it)."""
    named = area.strip() and (subarea is None or subarea.strip())
    return profiles.taxonomy.canonical(area, subarea) if named else None


def topic(profiles: ProfileService, found: Topic) -> tuple[TopicProfile | None, int]:
    page = profiles.topic(found)
    if page:  # its subareas named in both languages
        page = labelled_topic(page, profiles.config, profiles.labels)
    return page, HTTPStatus.OK if page else HTTPStatus.NOT_FOUND


def topics(profiles: ProfileService) -> tuple[list[tuple[Topic, str | None]], int]:
    return profiles.topics_with_papers(), HTTPStatus.OK
