"""Styled letters of MathML as the Unicode characters that are those letters: `<mi mathvariant="double-struck">R`
→ `<mi>ℝ</mi>`. MathML Core (what Chromium renders) ignores every mathvariant but "normal" on text, so `\\mathbb R`,
`\\mathscr{N}` or `\\boldsymbol\\theta` showed as a plain italic letter (issue 57.10); the mathematical alphanumeric
characters render everywhere. Names come from unicodedata; the letters Unicode had already (ℝ, ℒ, ℭ, ℎ) are its
holes in the mathematical block and found under their older names.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# mathvariant → the words of the mathematical characters' names
_STYLES = {
    "bold": "BOLD", "italic": "ITALIC", "bold-italic": "BOLD ITALIC", "double-struck": "DOUBLE-STRUCK",
    "script": "SCRIPT", "bold-script": "BOLD SCRIPT", "fraktur": "FRAKTUR", "bold-fraktur": "BOLD FRAKTUR",
    "sans-serif": "SANS-SERIF", "bold-sans-serif": "SANS-SERIF BOLD", "sans-serif-italic": "SANS-SERIF ITALIC",
    "sans-serif-bold-italic": "SANS-SERIF BOLD ITALIC", "monospace": "MONOSPACE",
}
# the holes of the block: (style, letter name) → the older character's name
_OLDER = {("ITALIC", "SMALL H"): "PLANCK CONSTANT", ("FRAKTUR", "CAPITAL C"): "BLACK-LETTER CAPITAL C",
          ("FRAKTUR", "CAPITAL H"): "BLACK-LETTER CAPITAL H", ("FRAKTUR", "CAPITAL I"): "BLACK-LETTER CAPITAL I",
          ("FRAKTUR", "CAPITAL R"): "BLACK-LETTER CAPITAL R", ("FRAKTUR", "CAPITAL Z"): "BLACK-LETTER CAPITAL Z"}


@lru_cache(maxsize=1024)
def _styled(char: str, style: str) -> str | None:
    name = unicodedata.name(char, "")
    for script in ("LATIN ", "GREEK "):
        name = name.removeprefix(script)
    letter = name.replace(" LETTER ", " ")
    if not name or (letter == name and not name.startswith("DIGIT ")):
        return None  # not a letter or digit: stays as it is
    for candidate in (f"MATHEMATICAL {style} {letter}", _OLDER.get((style, letter), f"{style} {letter}")):
        try:
            return unicodedata.lookup(candidate)
        except KeyError:
            continue
    return None


def styled(text: str, variant: str) -> str | None:
    """The text in the variant's characters; None when the variant is not one, or a character has no such form
    (the element then keeps its attribute)."""
    style = _STYLES.get(variant)
    if style is None or not text:
        return None
    out = [_styled(c, style) for c in text]
    return None if any(c is None for c in out) else "".join(c for c in out if c)
