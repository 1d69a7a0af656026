"""Log lines for the webapp (and gunicorn) and papersearch-admin: plain text or one JSON object per line.

PAPERSEARCH_LOG_FORMAT=json gives each record as {"level", "logger", "message", …extras, "time"}
(python-json-logger), for log shippers that parse JSON; `text` (the default) keeps readable lines.
config/gunicorn.conf.py uses the same formatter for gunicorn's error and access logs.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from pythonjsonlogger.json import JsonFormatter

LogFormat = Literal["text", "json"]

JSON_FORMATTER = "papersearch.logs.JsonLineFormatter"
JSON_FIELDS = "%(levelname)s %(name)s %(message)s"
JSON_RENAME = {"levelname": "level", "name": "logger"}
JSON_OPTIONS = {"rename_fields": JSON_RENAME, "timestamp": "time", "json_ensure_ascii": False}  # time: ISO 8601, UTC
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


# Fields of gunicorn's access lines in JSON ← gunicorn's atoms (the access record's args).
ACCESS_FIELDS = {"method": "m", "path": "U", "status": "s", "duration_ms": "M", "bytes": "B"}


class JsonLineFormatter(JsonFormatter):
    """python-json-logger's formatter; gunicorn's access lines also carry their parts as fields."""

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        super().add_fields(log_data, record, message_dict)
        if record.name == "gunicorn.access" and isinstance(record.args, dict):
            log_data.update({field: record.args.get(atom) for field, atom in ACCESS_FIELDS.items()})


def formatter_config(fmt: LogFormat, text_format: str = TEXT_FORMAT) -> dict:
    """A logging.config formatter entry (gunicorn's logconfig_dict uses it too)."""
    if fmt == "json":
        return {"()": JSON_FORMATTER, "format": JSON_FIELDS, **JSON_OPTIONS}
    return {"format": text_format}


def make_formatter(fmt: LogFormat, text_format: str = TEXT_FORMAT) -> logging.Formatter:
    if fmt == "json":
        return JsonLineFormatter(JSON_FIELDS, **JSON_OPTIONS)
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
