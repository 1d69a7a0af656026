"""The topic taxonomy: areas, their subareas, Chinese labels and the arXiv category mapping.

Subarea names repeat across areas ("Theory" under Deep Learning, "Deep Learning" under Theory), so a
subarea is always identified by the pair (area, subarea). Names are matched by their folded form
(`fold_topic`: case, punctuation, Oxford comma, "&" for "and"), by an alias listed in the taxonomy or by
their Chinese label, and returned in their canonical spelling. "Area · Subarea" may come as one string with any of the
separators sources use (`·`, `->`, `>`, `/`). Unknown topics are not an error: callers keep them and
`Taxonomy.unknown` counts them for the end-of-run report.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from papersearch.paths import config_dir
from papersearch.text import has_cjk, normalize_text

TAXONOMY_FILE = "taxonomy.json"
TOPIC_SEPARATOR = " · "  # as shown on the listing pages: "Deep Learning · Large Language Models"
PATH_SEPARATOR = " > "  # in the document's topic_path, for the hierarchical facet
# Between area and subarea in one string, as sources write it: "Area · Sub", "Area -> Sub", "Area > Sub",
# "Area/Sub" (a slash may also be part of a name: "Batch/Offline", "Health / Medicine").
_AREA_SEPARATORS = re.compile(r"\s*(?:·|->|→|>|/)\s*")
_WORD = re.compile(r"\w+")


def fold_topic(name: str | None) -> str:
    """The key two spellings of one topic name share: case, punctuation (so the Oxford comma, hyphens and
    slashes, underscores), "&" versus "and" and spacing do not matter. "Accountability, Transparency and
    Interpretability" and "accountability, transparency, & interpretability" fold alike, "deep_learning" and
    "Deep Learning" too."""
    text = normalize_text(name).casefold().replace("&", " and ").replace("_", " ")
    return " ".join(_WORD.findall(text))


def topic_slug(name: str) -> str:
    """A topic name in a URL (/topic/deep-learning/large-language-models): its folded words joined by hyphens, so
    "Batch/Offline" (a slash inside a name) is "batch-offline". `Taxonomy.canonical` takes a slug back, as it
    takes any spelling: hyphens fold like spaces."""
    return "-".join(fold_topic(name).split())


class TaxonomyError(ValueError):
    """The taxonomy file is missing or malformed."""


def _label_zh(entry: dict, where: str) -> str:
    """A topic's Chinese label: required, so a Chinese page never shows an English topic of the taxonomy."""
    label = normalize_text(entry.get("zh"))
    if not has_cjk(label):
        raise ValueError(f"{where} has no Chinese label (\"zh\")")
    return label


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

    # other names of a topic (folded or not), e.g. another conference's name for the same area
    area_aliases: dict[str, list[str]] = field(default_factory=dict)
    subarea_aliases: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Every name of a topic (its own, its aliases, its Chinese label) -> the topic: the one name lookup.
        self._area_key: dict[str, str] = {}
        for area, area_zh in self.areas.items():
            for name in (area, area_zh, *self.area_aliases.get(area, [])):
                self._area_key[fold_topic(name)] = area
        self._sub_key: dict[tuple[str, str], tuple[str, str]] = {}
        for (area, sub), sub_zh in self.subareas.items():
            for name in (sub, sub_zh, *self.subarea_aliases.get((area, sub), [])):
                self._sub_key[(area, fold_topic(name))] = (area, sub)

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
        except ValueError as exc:  # our own checks: the message names the topic
            raise TaxonomyError(f"{path}: malformed taxonomy: {exc}") from exc
        except (KeyError, TypeError) as exc:
            raise TaxonomyError(f"{path}: malformed taxonomy: {exc!r}") from exc

    @classmethod
    def from_dict(cls, data: dict) -> Taxonomy:
        areas: dict[str, str] = {}
        subareas: dict[tuple[str, str], str] = {}
        area_aliases: dict[str, list[str]] = {}
        subarea_aliases: dict[tuple[str, str], list[str]] = {}
        for area in data["areas"]:
            name = normalize_text(area["name"])
            areas[name] = _label_zh(area, f"area {name!r}")
            area_aliases[name] = [normalize_text(a) for a in area.get("aliases", [])]
            for sub in area.get("subareas", []):
                key = (name, normalize_text(sub["name"]))
                subareas[key] = _label_zh(sub, f"subarea {key[0]!r} · {key[1]!r}")
                subarea_aliases[key] = [normalize_text(a) for a in sub.get("aliases", [])]
        tax = cls(areas, subareas, area_aliases=area_aliases, subarea_aliases=subarea_aliases)
        for category, target in data.get("arxiv", {}).items():
            topic = tax.canonical(target["area"], target.get("subarea"))
            if topic is None:
                raise ValueError(f"arxiv mapping {category!r} points to an unknown topic {target!r}")
            tax.arxiv[category] = topic
        return tax

    # --- lookups -----------------------------------------------------------------------------------

    def canonical(self, area: str | None, subarea: str | None = None) -> Topic | None:
        """The topic in canonical spelling, or None when it is not in the taxonomy.

        Without a subarea, `area` may hold both parts ("Deep Learning -> Large Language Models")."""
        if not area:
            return None
        area_name = self._area_key.get(fold_topic(area))
        if area_name is None:
            if subarea:
                return None
            split = self.split_topic(area)
            return self.canonical(*split) if split and split[1] else None
        if not subarea:
            return Topic(area_name)
        pair = self._sub_key.get((area_name, fold_topic(subarea)))
        return Topic(*pair) if pair else None

    def area_of(self, name: str) -> str | None:
        """The canonical area a name (or alias) stands for."""
        return self._area_key.get(fold_topic(name))

    def is_area(self, name: str) -> bool:
        return self.area_of(name) is not None

    def split_topic(self, text: str) -> tuple[str, str | None] | None:
        """("Area", "Subarea") from one string with any area separator, ("Area", None) for a known area
        alone, None when no known area starts the string or nothing follows its separator. The first
        separator after which the part before is a known area wins, so a slash inside a subarea name
        stays ("RL/Batch/Offline")."""
        text = normalize_text(text)
        for sep in _AREA_SEPARATORS.finditer(text):
            head, tail = text[: sep.start()], text[sep.end():]
            if self.is_area(head):
                return (head, tail) if tail else None  # "Theory ·" is not a topic line
        return (text, None) if self.is_area(text) else None

    def check(self, area: str | None, subarea: str | None = None) -> bool:
        """True if known; an unknown (non-empty) topic is counted in `unknown` and reported later."""
        if not area:
            return False
        if self.canonical(area, subarea):
            return True
        self.unknown[f"{area}{TOPIC_SEPARATOR}{subarea}" if subarea else area] += 1
        return False

    def resolve(self, area: str | None, subarea: str | None = None) -> tuple[Topic | None, bool]:
        """(topic, known) for a paper's topic fields, counting unknown ones like `check`.

        Known: the canonical topic. Unknown under a known area: that area in canonical spelling with the
        subarea as given (so the facet files it under its area). Otherwise the names as given."""
        known = self.check(area, subarea)
        if not area:
            return None, False
        if known:
            return self.canonical(area, subarea), True
        split = (area, subarea) if subarea else self.split_topic(area) or (area, None)
        area_name = self.area_of(split[0])
        if area_name:
            return Topic(area_name, split[1]), False
        return Topic(normalize_text(area), normalize_text(subarea) or None), False

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
        """Recognise "Area · Subarea" or "Area" as shown on listing pages (area must be known; the other
        separators of `split_topic` work too).

        The subarea is kept even when unknown, in its original spelling, so nothing is lost.
        """
        split = self.split_topic(line)
        if split is None:
            return None
        area, subarea = split
        known = self.canonical(area, subarea)
        if known:
            return known
        # An unknown subarea only after the listing's own "·": prose such as "Theory/practice gaps …" is
        # no topic line.
        area_name = self.area_of(area)
        own_separator = normalize_text(line)[len(area):].lstrip().startswith(TOPIC_SEPARATOR.strip())
        return Topic(area_name, subarea) if area_name and subarea and own_separator else None

    def arxiv_topic(self, categories: str | list[str]) -> Topic | None:
        """The topic of the first category that maps (exact category first, then its archive)."""
        cats = categories.split() if isinstance(categories, str) else categories
        for cat in cats:
            topic = self.arxiv.get(cat) or self.arxiv.get(cat.split(".", 1)[0])
            if topic:
                return topic
        return None

