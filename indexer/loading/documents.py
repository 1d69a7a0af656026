"""The Elasticsearch document of a validated Paper.

`DocumentBuilder.build` is the one per-paper step between validation and serialisation: it adds what
search needs (topic path and Chinese labels, heading, completion inputs, author keys, glossary concepts,
languages, the record type and the readable text of TeX formulas).
A further per-paper step belongs in `build` too; it runs in the loader's producer, beside parsing,
and its fields must exist in config/index.json.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from indexer.loading.models import Paper
from papersearch import added as added_date
from papersearch import concepts, record_types, tex
from papersearch import text as t
from papersearch.author_keys import WORDS_FIELD, author_keys, key_words
from papersearch.index_definition import concepts_config, search_config
from papersearch.introduces import FIELD as INTRODUCES
from papersearch.introduces import introduced
from papersearch.suggest_inputs import author_inputs
from papersearch.taxonomy import Taxonomy

_CACHE_LIMIT = 10_000  # distinct spellings of known topics kept; the taxonomy itself is far smaller


@dataclass(frozen=True)
class TopicFields:
    area: str | None
    subarea: str | None
    path: str | None
    labels_zh: tuple[str, ...]
    known: bool


def heading_of(paper: Paper) -> str:
    if paper.title:
        return paper.title
    if paper.title_zh:
        return paper.title_zh
    return t.derive_heading(paper.abstract or paper.abstract_zh)


class DocumentBuilder:
    """Documents for one load. Topic look-ups are cached per spelling (a few dozen topics serve
    millions of papers); unknown topics are looked up every time, so `taxonomy.unknown` counts each."""

    def __init__(self, taxonomy: Taxonomy, added: str | None = None) -> None:
        self.taxonomy = taxonomy
        self.added = added or added_date.stamp()  # this load's date; the loader keeps older ones (loader.py)
        self._known: dict[tuple[str | None, str | None], TopicFields] = {}
        config = concepts_config()
        self._tag = concepts.matcher().tag
        self._concepts_field, self._tagged = config["field"], config["tagged_fields"]
        self._language_field, self._languages = config["language_field"], config["languages"]
        self._record_types = record_types.rules()
        self._vector_field = search_config().meaning.field

    def topic(self, area: str | None, subarea: str | None) -> TopicFields:
        """A known topic in its canonical spelling; an unknown one as `Taxonomy.resolve` files it (counted)."""
        key = (area, subarea)
        cached = self._known.get(key)
        if cached is not None:
            return cached
        topic, known = self.taxonomy.resolve(area, subarea)
        area, subarea = (topic.area, topic.subarea) if topic else (None, None)
        fields = TopicFields(area, subarea, topic.path if topic else None,
                             tuple(self.taxonomy.labels_zh(area, subarea)), known)
        if known and len(self._known) < _CACHE_LIMIT:
            self._known[key] = fields
        return fields

    def build(self, paper: Paper, vector: Any = None) -> dict[str, Any]:
        """The document to index (every key always present; absent text is "", absent scalars None).

        Adds: topic_path ("Area > Subarea" / "Area"), topic_labels_zh, topic_known, heading, suggest
        (completion inputs: title(s) or heading, then each author by any part of the name, also without
        diacritics: suggest_inputs.py), author_keys (each author's folded name, which author pages look up:
        papersearch/author_keys.py; author_key_words files them under each of their words for look-ups by
        surname), record_type (the record's, else by config/record_types.json, which also moves a venue that is
        a discipline to subjects), math (the formulas of title and abstract as Unicode: papersearch/tex.py),
        introduces (the names its title and abstract introduce, "LoRA": papersearch/introduces.py), concepts (ids
        of the glossary concepts the paper names, config/concepts.tsv), languages ("en", "zh": which it is written
        in), its vector of meaning when given (papersearch/meaning.py: absent, not null, when meaning is off) and,
        last, so that the loader can replace it in place, added (the load's date).
        """
        doc = paper.__dict__.copy()  # the fields as validated: plain values, a third of model_dump()'s cost
        topic = self.topic(paper.topic_area, paper.topic_subarea)
        heading = heading_of(paper)
        titles = [x for x in (paper.title, paper.title_zh) if x] or [heading]
        names = (form for name in paper.authors for form in author_inputs(name))
        keys = author_keys(paper.authors)
        kind = self._record_types.classify(paper.record_type, paper.venue, tuple(paper.subjects))
        doc.update(
            topic_area=topic.area,
            topic_subarea=topic.subarea,
            topic_path=topic.path,
            topic_labels_zh=list(topic.labels_zh),
            topic_known=topic.known,
            heading=heading,
            suggest=list(dict.fromkeys(v for v in (*titles, *names) if v)),
            author_keys=keys,
            **{WORDS_FIELD: key_words(keys)},
            record_type=kind.record_type,
            venue=kind.venue,
            subjects=list(kind.subjects),
            math=tex.formulas_text(paper.title, paper.abstract),
            **{INTRODUCES: introduced(paper.title, paper.abstract)},
        )
        doc[self._concepts_field] = self._tag(self.tagged_texts(doc))
        doc[self._language_field] = [lang for lang, fields in self._languages.items() if any(doc[f] for f in fields)]
        if vector is not None:
            doc[self._vector_field] = vector  # a float32 array: serialised by orjson's numpy option (prepare.py)
        doc[added_date.FIELD] = self.added
        return doc

    def tagged_texts(self, doc: dict[str, Any]) -> list[str]:
        """The texts concepts are tagged in (config/index.json concepts.tagged_fields), as `build` passes them."""
        texts: list[str] = []
        for name in self._tagged:
            value = doc.get(name)
            if isinstance(value, list):
                texts += value
            elif value:
                texts.append(value)
        return texts

