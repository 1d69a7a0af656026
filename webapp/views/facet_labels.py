"""The labels of facet values that are UI strings (record types, languages: a facet with config "labels"), in
both languages from the translations. The service reads values and knows no UI string; the controllers put the
labels in on the way out, for the pages, the API and the feed alike (DECISIONS.md D-195)."""

from __future__ import annotations

from webapp.domain import Facet, FacetValue, SearchResult
from webapp.i18n import translate
from webapp.services.search_settings import WebSearchConfig


def value_labels(labels: str, value: str) -> tuple[str, str]:
    """A value's English and Chinese labels: the translations `<labels>.<value>`, or the value itself when it has
    none."""
    key = f"{labels}.{value}"
    en, zh = translate("en", key), translate("zh", key)
    return (value, value) if en == key else (en, zh)


def labelled(facets: list[Facet], config: WebSearchConfig) -> list[Facet]:
    """The facets, each value of a labelled facet named in both languages."""
    labels = {f.name: f.labels for f in config.terms_facets if f.labels}

    def value(v: FacetValue, of: str) -> FacetValue:
        en, zh = value_labels(of, v.value)
        return v.model_copy(update={"label": en, "label_zh": zh})

    return [f.model_copy(update={"values": [value(v, labels[f.name]) for v in f.values]}) if f.name in labels else f
            for f in facets]


def labelled_result(result: SearchResult, config: WebSearchConfig) -> SearchResult:
    return result.model_copy(update={"facets": labelled(result.facets, config)})
