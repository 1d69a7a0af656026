"""A paper in one of the citation formats, with what a download needs (media type, file name)."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.domain import Hit
from webapp.serializers import bibtex, csl_json, ris
from webapp.serializers.citation_fields import citation_key

_MODULES = {"bibtex": (bibtex, bibtex.to_bibtex), "ris": (ris, ris.to_ris),
            "csl-json": (csl_json, csl_json.to_csl_json)}


@dataclass(frozen=True)
class Citation:
    text: str
    media_type: str
    filename: str


def cite(paper: Hit, fmt: str) -> Citation:
    module, render = _MODULES[fmt]
    return Citation(render(paper), module.MEDIA_TYPE, f"{citation_key(paper)}.{module.EXTENSION}")
