"""Log lines for the webapp (and gunicorn) and papersearch-admin: plain text or one JSON object per line.

PAPERSEARCH_LOG_FORMAT=json gives each record as {"time", "level", "logger", "message", …extras}
(python-json-logger), for log shippers that parse JSON; `text` (the default) keeps readable lines.
"""

from __future__ import annotations

import logging
from typing import Literal

LogFormat = Literal["text", "json"]

JSON_FORMATTER = "pythonjsonlogger.json.JsonFormatter"
JSON_FIELDS = "%(levelname)s %(name)s %(message)s"
JSON_RENAME = {"levelname": "level", "name": "logger"}
JSON_OPTIONS = {"rename_fields": JSON_RENAME, "timestamp": "time", "json_ensure_ascii": False}  # time: ISO 8601, UTC
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def formatter_config(fmt: LogFormat, text_format: str = TEXT_FORMAT) -> dict:
    """A logging.config formatter entry (gunicorn's logconfig_dict uses it too)."""
    if fmt == "json":
        return {"()": JSON_FORMATTER, "format": JSON_FIELDS, **JSON_OPTIONS}
    return {"format": text_format}


def make_formatter(fmt: LogFormat, text_format: str = TEXT_FORMAT) -> logging.Formatter:
    if fmt == "json":
        from pythonjsonlogger.json import JsonFormatter

        return JsonFormatter(JSON_FIELDS, **JSON_OPTIONS)
    return logging.Formatter(text_format)


def configure(fmt: LogFormat, level: int = logging.INFO, text_format: str = TEXT_FORMAT) -> None:
    """Route the root logger to stderr in the chosen format (replacing earlier handlers)."""
    handler = logging.StreamHandler()
    handler.setFormatter(make_formatter(fmt, text_format))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.getLogger("elastic_transport").setLevel(logging.WARNING)  # one line per request is noise
