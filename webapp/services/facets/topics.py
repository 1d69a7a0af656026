"""The two-level facet: areas, and under each area its subareas (topic_path values "Area > Subarea"), from a
"hierarchy" facet of config/index.json. The domain has one, the topics (SearchParams.areas, subareas), whose
levels author and topic pages and the sitemap read too."""

from __future__ import annotations

from typing import Any

from papersearch.search_config import HierarchyFacetConfig, Level
from papersearch.taxonomy import PATH_SEPARATOR
from webapp.domain import Facet, FacetValue, SearchParams
from webapp.services.es_syntax import Query
from webapp.services.facets.kind import FacetKind, Known, Selection, known

UNTAGGED = "untagged"  # the facet's count of papers without a value (issue 57.12)


def untagged(field: str) -> Query:
    """The papers without a value of the field (a filter aggregation: random_sampler samples no `missing`)."""
    return {"filter": {"bool": {"must_not": [{"exists": {"field": field}}]}}}


def _both(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    return None if a is None or b is None else a | b


class TopicFacet(FacetKind):
    """Areas and their subareas; the URL parameters are the first and second level's (area, subarea)."""

    def __init__(self, config: HierarchyFacetConfig) -> None:
        self.config = config
        self.name = config.name
        self.area, self.sub = config.levels
        self.param = self.area.param
        self.child_param = self.sub.param

    @property
    def levels(self) -> tuple[Level, Level]:
        return self.area, self.sub

    def filter(self, params: SearchParams) -> Query | None:
        return self.filter_of(params.areas, params.subareas)

    def filter_of(self, areas: list[str], subareas: list[str]) -> Query | None:
        """Selected areas OR selected subareas; a subarea selected under an area narrows that area."""
        refined = {s.split(PATH_SEPARATOR, 1)[0] for s in subareas}
        whole_areas = [a for a in areas if a not in refined]
        should: list[Query] = []
        if whole_areas:
            should.append({"terms": {self.area.field: whole_areas}})
        if subareas:
            should.append({"terms": {self.sub.field: subareas}})
        if not should:
            return None
        return should[0] if len(should) == 1 else {"bool": {"should": should, "minimum_should_match": 1}}

    def aggregation(self, others: Query) -> Query:
        return {
            "filter": others,
            "aggs": {"values": {
                "terms": {"field": self.area.field, "size": self.area.size},
                "aggs": {"children": {"terms": {"field": self.sub.field, "size": self.sub.size}}},
            }, UNTAGGED: untagged(self.area.field)},
        }

    def known_values(self, params: SearchParams) -> Known:
        return [(self.area.param, self.area.field, params.areas, False),
                (self.sub.param, self.sub.field, params.subareas, False)]

    def read(self, aggs: dict[str, Any], params: SearchParams) -> Facet:
        agg = aggs.get(self.name, {})
        facet = self.values(agg.get("values", {}).get("buckets", []), params,
                            _both(known(aggs, self.param), known(aggs, self.child_param)))
        update: dict[str, Any] = {"papers": agg.get("doc_count")}
        if UNTAGGED in agg:  # what the facet covers: papers with any topic, of those under the other filters
            of = agg.get("doc_count", 0)
            update |= {"covered": of - agg[UNTAGGED].get("doc_count", 0), "of": of}
        return facet.model_copy(update=update)

    def values(self, buckets: list[dict], params: SearchParams, exists: set[str] | None = None) -> Facet:
        """The areas' buckets with their subareas'; label and label_zh are the names as indexed until the view
        layer puts in the taxonomy's Chinese ones (webapp/views/facet_labels.py)."""
        def area_value(area: str, count: int, children: list[FacetValue]) -> FacetValue:
            return FacetValue(value=area, label=area, label_zh=area, count=count, selected=area in params.areas,
                              children=children)

        def subarea_value(path: str, count: int) -> FacetValue:
            subarea = path.partition(PATH_SEPARATOR)[2]
            return FacetValue(value=path, label=subarea, label_zh=subarea, count=count,
                              selected=path in params.subareas, children=[])

        values: list[FacetValue] = []
        for bucket in buckets:
            children = [
                subarea_value(str(b["key"]), b["doc_count"])
                for b in bucket.get("children", {}).get("buckets", [])
                if PATH_SEPARATOR in str(b["key"])  # "Area" alone = no subarea
            ]
            values.append(area_value(str(bucket["key"]), bucket["doc_count"], children))
        # A selected value with no hits under the other filters stays visible, so it can be unselected, when some
        # paper has it (`exists`, None: not asked); a value no paper has is not echoed (the filter chip removes it).
        shown = {v.value for v in values}
        for area in params.areas:
            if area not in shown and (exists is None or area in exists):
                values.append(area_value(area, 0, []))
                shown.add(area)
        for path in params.subareas:
            if exists is not None and path not in exists:
                continue
            area = path.split(PATH_SEPARATOR, 1)[0]
            parent = next((v for v in values if v.value == area), None)
            if parent is None:
                parent = area_value(area, 0, [])
                values.append(parent)
            if all(c.value != path for c in parent.children):
                parent.children.append(subarea_value(path, 0))
        return Facet(name=self.name, param=self.param, values=values)

    def selections(self, params: SearchParams) -> list[Selection]:
        return ([(self.param, a, (a,)) for a in params.areas]
                + [(self.child_param, s, tuple(s.split(PATH_SEPARATOR))) for s in params.subareas])

    # indexed: none to respell, topics are chosen from the page, never typed
