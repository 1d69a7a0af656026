"""The completion suggester's inputs for an author name, shared by the indexer (which indexes them) and the
webapp (which maps a completed input back to the name): the name, the name rotated to start at each of its
later parts (so "Bengio" and "Robert" complete too, not only the first name), and the same without
diacritics (so "Muller" finds Müller on every analysis profile, the core one included, which does not fold).
A rotation keeps the rest of the name ("Bengio Yoshua"): the suggester drops options with the same text, so
a bare "Bengio" would let one Bengio hide every other."""

from __future__ import annotations

import re

from anyascii import anyascii

from papersearch.text import has_cjk, normalize_text

_PART_START = re.compile(r"(?<=[\s\-‐])(?=\w)")  # after a space or hyphen, where a name part begins
CJK_GIVEN_FROM = 1  # a Chinese name's given name starts after its one-character family name (most names)


def _rotated(name: str, at: int) -> str:
    return f"{name[at:]} {name[:at].rstrip(' -‐')}"


def author_inputs(name: str) -> list[str]:
    """"Yoshua Bengio" → ["Yoshua Bengio", "Bengio Yoshua"]; "Thomas Müller" → [… "Müller Thomas",
    "Thomas Muller", "Muller Thomas"]; "张伟" → ["张伟", "伟 张"]. Each once, the name first."""
    name = normalize_text(name)
    if not name:
        return []
    starts = [m.start() for m in _PART_START.finditer(name)]
    if has_cjk(name) and not starts and len(name) > CJK_GIVEN_FROM:
        starts = [CJK_GIVEN_FROM]
    forms = [name, *(_rotated(name, at) for at in starts)]
    if not has_cjk(name):
        forms += [anyascii(f) for f in forms]
    return list(dict.fromkeys(f for f in forms if f.strip()))
