"""The topic taxonomy: areas, their subareas, Chinese labels and the arXiv category mapping.

Subarea names repeat across areas ("Theory" under Deep Learning, "Deep Learning" under Theory), so a
subarea is always identified by the pair (area, subarea). Names are matched case-insensitively and
returned in their canonical spelling. Unknown topics are not an error: callers keep them and
`Taxonomy.unknown` counts them for the end-of-run report.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from papersearch.paths import config_dir
from papersearch.text import normalize_text

TAXONOMY_FILE = "taxonomy.json"
TOPIC_SEPARATOR = " · "  # as shown on the listing pages: "Deep Learning · Large Language Models"
PATH_SEPARATOR = " > "  # in the document's topic_path, for the hierarchical facet


class TaxonomyError(ValueError):
    """The taxonomy file is missing or malformed."""


@dataclass(frozen=True)
class Topic:
    area: str
    subarea: str | None = None

    @property
    def path(self) -> str:
        return f"{self.area}{PATH_SEPARATOR}{self.subarea}" if self.subarea else self.area


@dataclass
class Taxonomy:
    # canonical area name -> Chinese label; (area, subarea) -> Chinese label
    areas: dict[str, str]
    subareas: dict[tuple[str, str], str]
    arxiv: dict[str, Topic] = field(default_factory=dict)
    unknown: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._area_key = {a.casefold(): a for a in self.areas}
        self._sub_key = {(a.casefold(), s.casefold()): (a, s) for a, s in self.subareas}

    # --- loading -----------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path | None = None) -> Taxonomy:
        path = Path(path) if path else config_dir() / TAXONOMY_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TaxonomyError(f"{path}: cannot read taxonomy: {exc}") from exc
        try:
            return cls.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise TaxonomyError(f"{path}: malformed taxonomy: {exc!r}") from exc

    @classmethod
    def from_dict(cls, data: dict) -> Taxonomy:
        areas: dict[str, str] = {}
        subareas: dict[tuple[str, str], str] = {}
        for area in data["areas"]:
            name = normalize_text(area["name"])
            areas[name] = normalize_text(area["zh"])
            for sub in area.get("subareas", []):
                subareas[(name, normalize_text(sub["name"]))] = normalize_text(sub["zh"])
        tax = cls(areas, subareas)
        for category, target in data.get("arxiv", {}).items():
            topic = tax.canonical(target["area"], target.get("subarea"))
            if topic is None:
                raise ValueError(f"arxiv mapping {category!r} points to an unknown topic {target!r}")
            tax.arxiv[category] = topic
        return tax

    # --- lookups -----------------------------------------------------------------------------------

    def canonical(self, area: str | None, subarea: str | None = None) -> Topic | None:
        """The topic in canonical spelling, or None when it is not in the taxonomy."""
        if not area:
            return None
        area_name = self._area_key.get(normalize_text(area).casefold())
        if area_name is None:
            return None
        if not subarea:
            return Topic(area_name)
        pair = self._sub_key.get((area_name.casefold(), normalize_text(subarea).casefold()))
        return Topic(*pair) if pair else None

    def is_area(self, name: str) -> bool:
        return normalize_text(name).casefold() in self._area_key

    def check(self, area: str | None, subarea: str | None = None) -> bool:
        """True if known; an unknown (non-empty) topic is counted in `unknown` and reported later."""
        if not area:
            return False
        if self.canonical(area, subarea):
            return True
        self.unknown[f"{area}{TOPIC_SEPARATOR}{subarea}" if subarea else area] += 1
        return False

    def label_zh(self, area: str | None, subarea: str | None = None) -> str | None:
        """The Chinese label of the area, or of the subarea when one is given; None when it is unknown."""
        topic = self.canonical(area, subarea)
        if topic is None:
            return None
        return self.subareas[(topic.area, topic.subarea)] if topic.subarea else self.areas[topic.area]

    def labels_zh(self, area: str | None, subarea: str | None = None) -> list[str]:
        """Chinese labels of the area and (if known) the subarea; empty for an unknown area."""
        area_zh = self.label_zh(area)
        if area_zh is None:
            return []
        sub_zh = self.label_zh(area, subarea) if subarea else None
        return [area_zh, sub_zh] if sub_zh else [area_zh]

    def parse_topic_line(self, line: str) -> Topic | None:
        """Recognise "Area · Subarea" or "Area" as shown on listing pages (area must be known).

        The subarea is kept even when unknown, in its original spelling, so nothing is lost.
        """
        text = normalize_text(line)
        area, sep, subarea = text.partition(TOPIC_SEPARATOR.strip())
        area, subarea = area.strip(), subarea.strip()
        if not self.is_area(area) or (sep and not subarea):
            return None
        known = self.canonical(area, subarea or None)
        if known:
            return known
        return Topic(self._area_key[area.casefold()], subarea)

    def arxiv_topic(self, categories: str | list[str]) -> Topic | None:
        """The topic of the first category that maps (exact category first, then its archive)."""
        cats = categories.split() if isinstance(categories, str) else categories
        for cat in cats:
            topic = self.arxiv.get(cat) or self.arxiv.get(cat.split(".", 1)[0])
            if topic:
                return topic
        return None

