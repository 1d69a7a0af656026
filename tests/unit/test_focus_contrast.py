"""The focus ring stands out from what it is drawn on (issue 44.10): WCAG 2.2 asks for a contrast of at least 3:1
between the indicator and its surroundings. Computed from the stylesheet itself: before, #ff9f1c was 2.05:1 on
white and 1.93:1 on the page's #f7f8fa."""

from __future__ import annotations

import re
from pathlib import Path

STYLE = (Path(__file__).resolve().parents[2] / "webapp" / "static" / "style.css").read_text(encoding="utf-8")
MINIMUM = 3.0


def colours() -> dict[str, str]:
    root = re.search(r":root\s*\{(.*?)\}", STYLE, re.S)
    assert root, "style.css has no :root block"
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\b", root.group(1)))


def luminance(hex_colour: str) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_formula_gives_wcags_figures() -> None:
    assert round(contrast("#ffffff", "#000000"), 1) == 21.0
    assert round(contrast("#ff9f1c", "#ffffff"), 2) == 2.05 and round(contrast("#ff9f1c", "#f7f8fa"), 2) == 1.93


def test_the_focus_ring_has_3_to_1_on_every_background_it_meets() -> None:
    palette = colours()
    assert re.search(r":focus-visible\s*\{[^}]*outline:[^;}]*var\(--focus\)", STYLE), "the ring uses --focus"
    for background in ("bg", "surface", "accent-soft"):
        ratio = contrast(palette["focus"], palette[background])
        assert ratio >= MINIMUM, f"--focus {palette['focus']} on --{background} {palette[background]}: {ratio:.2f}:1"
