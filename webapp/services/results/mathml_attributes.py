"""Which MathML attributes a formula's MathML may keep, and with what values: one allow-list, each attribute with
the kind of value it takes (issue 53.4, DECISIONS.md D-186).

latex2mathml writes what the TeX asks for (`\\above 9999em` is `linethickness="9999em"`, `\\kern9999em` a 9999em
space), so every value is read by its kind: a length (or a list of lengths) is clamped to MAX_LENGTH of its unit,
a keyword must be one of its kind's words, a script level a small step. An attribute not listed, or whose value is
not of its kind, is dropped; nothing the TeX says can make an element larger than the clamp allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# The largest length kept, per unit (a larger one is clamped to it): about ten em in each.
MAX_LENGTH = {"em": 10.0, "ex": 20.0, "px": 160.0, "pt": 120.0, "pc": 10.0, "mm": 42.0, "cm": 4.2, "in": 1.6,
              "mu": 180.0, "%": 300.0, "": 10.0}
MAX_LIST = 8  # values in a list-valued attribute (columnspacing="0em 2em", columnalign="left right")
MAX_SCRIPT_STEP = 3  # |scriptlevel|
_LENGTH = re.compile(r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(em|ex|px|pt|pc|mm|cm|in|mu|%)?")
_NAMED_SPACE = re.compile(r"(?:negative)?(?:very){0,2}(?:thin|thick)mathspace|(?:negative)?mediummathspace")

Rule = Callable[[str], "str | None"]


def length(value: str) -> str | None:
    """A length as written, clamped to MAX_LENGTH of its unit; a MathML named space ("thinmathspace") as it is;
    None for anything else."""
    value = value.strip()
    if _NAMED_SPACE.fullmatch(value):
        return value
    found = _LENGTH.fullmatch(value)
    if not found:
        return None
    sign, number, unit = found[1], float(found[2]), found[3] or ""
    if number <= MAX_LENGTH[unit]:
        return value
    bound = MAX_LENGTH[unit]
    return f"{sign}{int(bound) if bound.is_integer() else bound}{unit}"


def _words(*allowed: str, many: bool = False) -> Rule:
    """One of the words (or, `many`, up to MAX_LIST of them separated by spaces)."""
    words = frozenset(allowed)

    def rule(value: str) -> str | None:
        parts = value.split()
        if not parts or len(parts) > (MAX_LIST if many else 1) or not all(p in words for p in parts):
            return None
        return " ".join(parts)
    return rule


def _lengths(value: str) -> str | None:
    parts = value.split()
    kept = [length(p) for p in parts]
    if not parts or len(parts) > MAX_LIST or None in kept:
        return None
    return " ".join(k for k in kept if k)


def _line_thickness(value: str) -> str | None:
    return value.strip() if value.strip() in ("thin", "medium", "thick") else length(value)


def _script_level(value: str) -> str | None:
    found = re.fullmatch(r"([+-]?)(\d{1,2})", value.strip())
    if not found:
        return None
    return f"{found[1]}{min(int(found[2]), MAX_SCRIPT_STEP)}"


def _encoding(value: str) -> str | None:
    """A media type (annotation encoding="application/x-tex")."""
    return value if re.fullmatch(r"[a-z]{1,20}/[\w.+-]{1,60}", value) else None


_BOOLEAN = _words("true", "false")
_LINES = _words("none", "solid", "dashed", many=True)
RULES: dict[str, Rule] = {
    "display": _words("block", "inline"),
    "mathvariant": _words("normal", "bold", "italic", "bold-italic", "double-struck", "bold-fraktur", "script",
                          "bold-script", "fraktur", "sans-serif", "bold-sans-serif", "sans-serif-italic",
                          "sans-serif-bold-italic", "monospace", "initial", "tailed", "looped", "stretched"),
    "stretchy": _BOOLEAN, "fence": _BOOLEAN, "separator": _BOOLEAN, "accent": _BOOLEAN, "accentunder": _BOOLEAN,
    "displaystyle": _BOOLEAN, "movablelimits": _BOOLEAN, "symmetric": _BOOLEAN, "largeop": _BOOLEAN,
    "form": _words("prefix", "infix", "postfix"),
    "lspace": length, "rspace": length, "width": length, "height": length, "depth": length, "voffset": length,
    "minsize": length, "maxsize": length, "linethickness": _line_thickness,
    "columnspacing": _lengths, "rowspacing": _lengths, "framespacing": _lengths,
    "columnalign": _words("left", "center", "right", many=True),
    "rowalign": _words("top", "bottom", "center", "baseline", "axis", many=True),
    "columnlines": _LINES, "rowlines": _LINES, "frame": _words("none", "solid", "dashed"),
    "notation": _words("longdiv", "actuarial", "radical", "box", "roundedbox", "circle", "left", "right", "top",
                       "bottom", "updiagonalstrike", "downdiagonalstrike", "verticalstrike", "horizontalstrike",
                       "madruwb", "updiagonalarrow", "phasorangle", many=True),
    "scriptlevel": _script_level,
    "encoding": _encoding,
}


def kept(attributes: dict[str, str]) -> dict[str, str]:
    """The attributes an element keeps: those of RULES whose value is of their kind, lengths clamped."""
    out = {}
    for name, value in attributes.items():
        rule = RULES.get(name)
        value_kept = rule(value) if rule else None
        if value_kept is not None:
            out[name] = value_kept
    return out
