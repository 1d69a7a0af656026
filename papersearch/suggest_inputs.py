"""The completion suggester's inputs for an author name, shared by the indexer (which indexes them) and the
webapp (which maps a completed input back to the name): the name, each of its later parts to its end
(so "Bengio" and "Jean-Baptiste" complete too, not only the first name), and the same without diacritics
(so "Muller" finds Müller on every analysis profile, the core one included, which does not fold)."""

from __future__ import annotations

import re

from anyascii import anyascii

from papersearch.text import has_cjk, normalize_text

_PART_START = re.compile(r"(?<=[\s\-‐])(?=\w)")  # after a space or hyphen, where a name part begins
CJK_GIVEN_FROM = 1  # a Chinese name's given name starts after its one-character family name (most names)


def author_inputs(name: str) -> list[str]:
    """"Yoshua Bengio" → ["Yoshua Bengio", "Bengio"]; "Thomas Müller" → [… "Müller", "Thomas Muller", "Muller"];
    "张伟" → ["张伟", "伟"]. Each once, the name first."""
    name = normalize_text(name)
    if not name:
        return []
    if has_cjk(name):
        tails = [name[m.start():] for m in _PART_START.finditer(name)] or [name[CJK_GIVEN_FROM:]]
        return list(dict.fromkeys(t for t in (name, *tails) if t))
    tails = [name[m.start():] for m in _PART_START.finditer(name)]
    forms = [name, *tails]
    folded = [anyascii(f) for f in forms]
    return list(dict.fromkeys(f for f in (*forms, *folded) if f.strip()))
