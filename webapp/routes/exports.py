"""A search's results (up to EXPORT_MAX papers) as one BibTeX, RIS or CSV download, streamed as the result
pages come in (webapp/services/pages/long_lists.py)."""

from __future__ import annotations

from flask import Blueprint, Response, stream_with_context

from webapp.controllers import feeds_exports as controller
from webapp.routes import asked, service
from webapp.routes.feeds import paper_url
from webapp.serializers import export as formats

blueprint = Blueprint("exports", __name__)
FILENAME = "papers"


@blueprint.get("/api/export")
def export():
    found, status = controller.export(service(), asked())
    fmt = formats.format_of(found.fmt)
    pieces = controller.until_failure(formats.render(found.hits, found.fmt, paper_url), "export")
    response = Response(stream_with_context(pieces), status, content_type=fmt.media_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{FILENAME}.{fmt.extension}"'
    return response
