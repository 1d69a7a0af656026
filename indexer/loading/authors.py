"""Author lines: "A, B, C 等" → names and an et-al flag (listing pages, JSON Lines, arXiv)."""

from __future__ import annotations

import re

from papersearch.text import normalize_text

# Author-line separators: ASCII and full-width comma, ideographic enumeration comma, semicolons.
_AUTHOR_SPLIT = re.compile(r"\s*[,，、;；]\s*")
# "等" (Chinese "and others") or "et al." at the end of an author line.
_ET_AL_TAIL = re.compile(r"(?:\s*[,，、]?\s*(?:等人?|et\s+al\.?))\s*$", re.IGNORECASE)


def split_et_al(text: str) -> tuple[str, bool]:
    """Remove a trailing "等" / "et al." from an author line; report whether it was there."""
    tail = text.rstrip()[-3:].casefold()
    if not tail.endswith(("等", "人", "al", "al.")):  # what the pattern can end in: skip the regex
        return text, False
    stripped = _ET_AL_TAIL.sub("", text)
    return stripped, stripped != text


def split_author_names(line: str) -> list[str]:
    """The parts of an author line between its separators, as they are (not normalised)."""
    return _AUTHOR_SPLIT.split(line)


def parse_author_line(line: str) -> tuple[list[str], bool]:
    """Split "A, B, C 等" into (["A", "B", "C"], True)."""
    rest, et_al = split_et_al(normalize_text(line))
    names = [n for n in (normalize_text(p) for p in split_author_names(rest)) if n]
    return names, et_al
