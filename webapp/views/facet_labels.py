"""The labels of facet values in both languages, put in on the way out for the pages, the API and the feed alike
(DECISIONS.md D-195, D-215): the topics' Chinese names from the taxonomy (areas and their subareas), and the values
of a facet with config "labels" (record types, languages) from the translations. The facet kinds read values only
and name each by itself; the service looks up no label of a facet value."""

from __future__ import annotations

from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import Facet, FacetValue, SearchResult, TopicProfile
from webapp.i18n import translate
from webapp.services.results.topic_labels import Labels
from webapp.services.search_settings import WebSearchConfig


def value_labels(labels: str, value: str) -> tuple[str, str]:
    """A value's English and Chinese labels: the translations `<labels>.<value>`, or the value itself when it has
    none."""
    key = f"{labels}.{value}"
    en, zh = translate("en", key), translate("zh", key)
    return (value, value) if en == key else (en, zh)


def topic_labelled(facet: Facet, topics: Labels) -> Facet:
    """The topic facet, each area and subarea with its Chinese name (the name as indexed when it has none)."""
    def subarea(v: FacetValue) -> FacetValue:
        area, _, name = v.value.partition(PATH_SEPARATOR)
        return v.model_copy(update={"label_zh": topics.label_zh(area, name) or v.label})

    def area(v: FacetValue) -> FacetValue:
        return v.model_copy(update={"label_zh": topics.label_zh(v.value) or v.label,
                                    "children": [subarea(c) for c in v.children]})

    return facet.model_copy(update={"values": [area(v) for v in facet.values]})


def labelled(facets: list[Facet], config: WebSearchConfig, topics: Labels) -> list[Facet]:
    """The facets, the topics' values and each value of a labelled facet named in both languages."""
    labels = {f.name: f.labels for f in config.terms_facets if f.labels}

    def value(v: FacetValue, of: str) -> FacetValue:
        en, zh = value_labels(of, v.value)
        return v.model_copy(update={"label": en, "label_zh": zh})

    def one(f: Facet) -> Facet:
        if f.name == config.topic.name:
            return topic_labelled(f, topics)
        if f.name in labels:
            return f.model_copy(update={"values": [value(v, labels[f.name]) for v in f.values]})
        return f

    return [one(f) for f in facets]


def labelled_result(result: SearchResult, config: WebSearchConfig, topics: Labels) -> SearchResult:
    return result.model_copy(update={"facets": labelled(result.facets, config, topics)})


def labelled_topic(page: TopicProfile, config: WebSearchConfig, topics: Labels) -> TopicProfile:
    return page.model_copy(update={"facets": labelled(page.facets, config, topics)})
