"""What every part of config/index.json's search settings is (papersearch/search_config.py and the sections kept
apart from it: gloss_config.py, meaning_config.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Section(BaseModel):
    """A part of the settings: no key it does not know, read-only once loaded; "_comment" is a note for the
    reader of the file."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    comment: str | None = Field(None, alias="_comment", exclude=True)
