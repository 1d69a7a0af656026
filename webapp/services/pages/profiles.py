"""Author and topic pages: sends their requests (profile_queries.py writes them) through the search service's
Elasticsearch access (es_access.py: its client, identity, time budget and error mapping), and reads the answers
into AuthorProfile and TopicProfile. Names are grouped by their folded form (papersearch/author_keys.py); a name
that plainly covers several people is said to (author_groups.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from papersearch.author_keys import author_key, is_surname
from papersearch.author_people import people
from papersearch.taxonomy import PATH_SEPARATOR, Topic
from papersearch.text import has_cjk
from webapp.domain import (
    AuthorPeople,
    AuthorProfile,
    ConceptCount,
    NameCount,
    SearchParams,
    SearchResult,
    SurnameLookUp,
    TopicProfile,
)
from webapp.services.bodies import render
from webapp.services.facets.topics import UNTAGGED
from webapp.services.pages import author_groups
from webapp.services.pages import profile_queries as pq
from webapp.services.query import author_names
from webapp.services.results.hits import to_hit
from webapp.services.search import Prepared, SearchService

Answer = dict[str, Any]


class ProfileService:
    def __init__(self, search: SearchService) -> None:
        self.search = search
        self.access = search.access
        self.config = search.config
        self.labels = search.labels
        self.taxonomy = search.taxonomy

    def _send(self, requests: list[pq.Request], kind: str) -> list[Answer]:
        """One round, through the search's sender (its time budget and error mapping): a failed item fails the
        page."""
        return self.access.send(requests, kind, pq.body,  # type: ignore[return-value]  # never None: none may fail
                                cached=lambda r: pq.worth_caching(r, self.config))

    # --- authors -------------------------------------------------------------------------------------

    def author(self, name: str, params: SearchParams,
               prepared: Prepared | None = None) -> AuthorProfile | AuthorPeople | None:
        """The page of the person the name means (every spelling of them: author_names.py); for a surname many
        people carry, or a full name no paper has, the people of its surname (None when there are none, or for a
        CJK name no paper has). The surname's people are found once, among at most profiles.names.candidates of its
        spellings (DECISIONS.md D-180). `prepared`: its words as the request's price parsed them."""
        self.access.start_budget(same_copies=f"author:{name}:{params.without_page}")
        person = author_names.look_up(self.access, name, self.search.live_index().author_words)
        if person is None:
            return None
        keys = person.keys
        if not keys and not is_surname(person.key):
            return self._people(name, person)  # a full name no paper has is no one else's page
        if is_surname(person.key):
            found = people(list(person.surname))
            if len(found) != 1:
                return self._people(name, person, found)
            keys = tuple(author_names.person_keys(found[0][0], [k for k, _ in person.surname]))
        words = None
        if params.q:
            first, _, _ = self.search.plan(params, prepared).as_typed()
            words = first if not first.cacheable else None  # syntax alone ("-") leaves no words to rank by
        settings = self.config.profiles
        params = params.model_copy(update={"sort": settings.query_sort if words else settings.sort})  # the page's order
        listed, profile = self._send([pq.AuthorPapers(keys, params, words), pq.AuthorProfile(keys)], "author")
        papers = profile["hits"]["total"]["value"]
        if not papers:
            return None
        own = frozenset(keys)
        names = [(str(b["key"]), b["doc_count"]) for b in profile["aggregations"]["names"]["buckets"]]
        spellings = sorted((NameCount(name=n, count=c) for n, c in names if author_key(n) in own),
                           key=_fullest)
        sources = [(s.get("authors") or [], s.get("topic_area")) for s in
                   (h.get("_source", {}) for h in profile["hits"]["hits"])]
        counted = [(k, c) for k, c in person.surname if k in own]
        if has_cjk(person.key):
            groups = author_groups.paper_groups(sources, own, settings.groups.min_papers)
        else:
            groups = author_groups.first_name_groups(counted, sources) or author_groups.coauthor_groups(
                sources, own, settings.groups.coauthor_min_papers, settings.groups.coauthor_circles)
        several = author_groups.several_people(groups)
        return AuthorProfile(
            name=spellings[0].name if spellings else name, key=keys[0], keys=list(keys), spellings=spellings,
            papers=papers, coauthors=by_person([(n, c) for n, c in names if author_key(n) not in own])[
                :settings.coauthors],
            several_people=several, groups=groups if several else [],
            grouped_papers=sum(g.papers for g in groups) if several else 0, surname=_looked_at(person),
            result=self._result(listed, params))

    def _people(self, name: str, person: author_names.Person, found: list[tuple[str, int]] | None = None
                ) -> AuthorPeople | None:
        """The people carrying the name's surname, most papers first, each by their most common spelling; at most
        profiles.names.people. None for a CJK name (no surname to list by) and when no key has the surname."""
        if has_cjk(person.key) or not person.surname:
            return None
        found = (people(list(person.surname)) if found is None else found)[:self.config.profiles.names.people]
        written = author_names.as_written(self.access, [k for k, _ in found])
        return AuthorPeople(name=name, people=[NameCount(name=written.get(k) or k.title(), count=c) for k, c in found],
                            surname=_looked_at(person))

    def _result(self, answer: Answer, params: SearchParams) -> SearchResult:
        counted = answer["hits"]["total"]
        total, window = counted["value"], self.config.max_result_window
        params = self.config.faceted.as_indexed(answer.get("aggregations", {}), params)
        return SearchResult(params=params, total=total, took_ms=answer.get("took", 0),
                            hits=[to_hit(h, self.labels) for h in answer["hits"]["hits"]],
                            facets=self.config.faceted.read(answer.get("aggregations", {}), params),
                            page_count=params.page_count(total, window),
                            too_deep=params.too_deep_for(total, window, counted["relation"] == "eq"))

    # --- topics --------------------------------------------------------------------------------------

    def topic(self, topic: Topic) -> TopicProfile | None:
        """A topic's page; None when it has no papers. On a large index the facets come apart, sampled when the
        topic has more papers than can be paged through (as a search's: plan.Live.sample_probability)."""
        self.access.start_budget()
        live = self.search.live_index()
        large = live.papers > self.config.large_index.above
        answer, = self._send([pq.TopicPapers(topic, facets=not large)], "topic")
        total = answer["hits"]["total"]
        if not total["value"]:
            return None
        probability = 1.0
        aggs = answer.get("aggregations", {})
        if large:
            probability = live.sample_probability(self.config, total["value"] < self.config.max_result_window)
            sampled, = self._send([pq.TopicFacets(topic, probability)], "facets")
            aggs = sampled.get("aggregations", {})
            aggs = aggs.get(render.SAMPLE_AGG, {}) if probability < 1 else aggs
        glossary = self.search.matcher.concepts
        concepts = [ConceptCount(id=c.id, name_en=c.name_en, name_zh=c.name_zh, count=b["doc_count"])
                    for b in aggs.get(pq.CONCEPTS, {}).get("buckets", []) if (c := glossary.get(str(b["key"])))]
        names = [(str(b["key"]), b["doc_count"]) for b in aggs.get("names", {}).get("buckets", [])]
        area_zh = self.labels.label_zh(topic.area) or topic.area
        coverage = answer.get("aggregations", {}).get(pq.COVERAGE, {})
        indexed = coverage.get("doc_count")
        tagged = indexed - coverage.get(UNTAGGED, {}).get("doc_count", 0) if indexed is not None else None
        return TopicProfile(
            area=topic.area, subarea=topic.subarea, path=topic.path, area_zh=area_zh,
            label_zh=self.labels.label_zh(topic.area, topic.subarea) or topic.subarea or area_zh,
            papers=total["value"], newest=[to_hit(h, self.labels) for h in answer["hits"]["hits"]],
            facets=self.config.faceted.read(aggs, SearchParams()), facets_are_estimates=probability < 1,
            tagged=tagged, indexed=indexed,
            authors=by_person(names)[:self.config.profiles.topic.authors], concepts=concepts)

    def topics_with_papers(self) -> list[tuple[Topic, str | None]]:
        """Every topic of the taxonomy that has papers (areas, and subareas under them), each with the day its
        newest paper was added (None before added dates)."""
        self.access.start_budget()
        answer, = self._send([pq.TopicsWithPapers()], "topics")
        taxonomy = self.taxonomy
        out: list[tuple[Topic, str | None]] = []
        for area in answer.get("aggregations", {}).get("areas", {}).get("buckets", []):
            found = [(Topic(str(area["key"])), area)]
            found += [(Topic(str(area["key"]), str(b["key"]).partition(PATH_SEPARATOR)[2]), b)
                      for b in area.get("children", {}).get("buckets", []) if PATH_SEPARATOR in str(b["key"])]
            out += [(t, _day(b)) for t, b in found if taxonomy.canonical(t.area, t.subarea) == t]
        return out


def _looked_at(person: author_names.Person) -> SurnameLookUp:
    return SurnameLookUp(spellings=len(person.surname), more=person.more)


def _fullest(spelling: NameCount) -> tuple[int, int, int, int, str]:
    """Most papers first; of equally many, the one with most names, then with its diacritics (Schölkopf, not the
    transliterated Schoelkopf), then names written out (Bernhard, not B.)."""
    name = spelling.name
    return -spelling.count, -len(name.split()), -sum(not c.isascii() for c in name), -len(name), name


def by_person(names: list[tuple[str, int]]) -> list[NameCount]:
    """Names counted per folded form, each shown as most of its papers write it; most papers first."""
    counts: Counter[str] = Counter()
    spelled: dict[str, Counter[str]] = {}
    for name, count in names:
        key = author_key(name)
        counts[key] += count
        spelled.setdefault(key, Counter())[name] += count
    return [NameCount(name=spelled[k].most_common(1)[0][0], count=c) for k, c in counts.most_common() if k]


def _day(bucket: dict) -> str | None:
    """The day of a max aggregation over the added dates; None when no paper has one."""
    newest = bucket.get(pq.ADDED, {})
    return str(newest["value_as_string"])[:10] if newest.get("value") is not None else None
