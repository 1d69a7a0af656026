"""Author keys, the papers-per-year chart (bars and their links), the groups of one name, topic slugs, and the
requests of author and topic pages (issue 34). Pure functions; the pages themselves against a real node are in
tests/integration/test_profile_pages.py."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from papersearch.author_keys import author_key, author_keys
from papersearch.taxonomy import Taxonomy, Topic, topic_slug
from webapp.domain import Facet, FacetRange, SearchParams
from webapp.services.bodies import render
from webapp.services.facets.numbers import bars
from webapp.services.pages import profile_queries as pq
from webapp.services.pages.author_groups import paper_groups, several_people
from webapp.services.plan import ladder as plan
from webapp.services.plan.requests import Live
from webapp.services.query.parser import parse_query
from webapp.services.search_settings import search_config
from webapp.views.facets import chart
from webapp.views.links import SearchLinks

CONFIG = search_config()


def test_names_fold_alike_latin_and_stay_as_written_in_chinese():
    assert author_key("Thomas Müller") == author_key("thomas  MULLER") == "thomas muller"
    assert author_key("Fei-Fei Li") == "fei fei li" and author_key("Ze’ev Rosen") == author_key("Zeev Rosen")
    assert author_key("Søren Hauberg") == "soren hauberg" and author_key("Иван Петров") == "ivan petrov"
    assert author_key("张 伟") == author_key("张伟") == "张伟"  # not "zhang wei", every Zhang Wei's key
    assert author_key("張偉") != author_key("张伟")  # traditional and simplified are written differently
    assert author_key("…") == "" and author_keys(["A B", "a  b", "…", "张伟"]) == ["a b", "张伟"]


def years(**counts: int) -> list[dict]:
    return [{"key": float(y[1:]), "doc_count": c} for y, c in counts.items()]


def test_bars_span_every_year_and_gaps_are_zero():
    found = bars(years(y2019=2, y2021=1, y2022=0), 40)
    assert [(b.low, b.high, b.count) for b in found] == [(2019, 2019, 2), (2020, 2020, 0), (2021, 2021, 1)]
    assert bars([], 40) == [] and bars(years(y2020=0), 40) == []


def test_a_long_span_gets_several_years_to_a_bar_ending_at_the_newest():
    buckets = [{"key": y, "doc_count": 1} for y in range(1901, 2025)]  # 124 years
    found = bars(buckets, 40)
    assert len(found) <= 40 and found[-1].high == 2024 and found[0].low <= 1901
    assert {b.high - b.low + 1 for b in found} == {4} and sum(b.count for b in found) == 124


def test_bars_overlapping_the_chosen_range_are_selected():
    chosen = FacetRange(param_from="year_from", param_to="year_to", low=2020)
    found = bars(years(y2018=1, y2020=1, y2023=1), 40, chosen)
    assert [b.low for b in found if b.selected] == [2020, 2021, 2022, 2023]
    assert not any(b.selected for b in bars(years(y2018=1), 40, FacetRange(param_from="a", param_to="b")))


def year_chart(**ranges: int):
    params = SearchParams(q="x", filters={"year": ["2020"]}, ranges=ranges)
    span = FacetRange(param_from="year_from", param_to="year_to", low=ranges.get("year_from"),
                      high=ranges.get("year_to"))
    facet = Facet(name="year", param="year", values=[], range=span,
                  bars=bars(years(y2019=1, y2020=4, y2021=2), 40, span))
    return {c.bar.low: (c.action, parse_qs(urlsplit(c.url).query), c.level)
            for c in chart(facet, SearchLinks("/", params, CONFIG))}


def test_a_bar_chooses_its_year_and_a_second_one_makes_a_span():
    plain = year_chart()
    assert plain[2020] == ("only", {"q": ["x"], "year_from": ["2020"], "year_to": ["2020"]}, 20)
    assert plain[2019][2] == 5  # a quarter of the highest bar; the checked year 2020 is dropped from every link
    one = year_chart(year_from=2020, year_to=2020)
    assert one[2020][:2] == ("clear", {"q": ["x"]})
    assert one[2021][:2] == ("span", {"q": ["x"], "year_from": ["2020"], "year_to": ["2021"]})
    assert one[2019][:2] == ("span", {"q": ["x"], "year_from": ["2019"], "year_to": ["2020"]})
    opened = year_chart(year_from=2020)  # open above: 2019 widens it downwards, 2021 narrows it
    assert opened[2019][:2] == ("span", {"q": ["x"], "year_from": ["2019"]})
    assert opened[2021][:2] == ("only", {"q": ["x"], "year_from": ["2021"], "year_to": ["2021"]})


def test_papers_that_share_nothing_make_groups_and_two_groups_are_several_people():
    lone = paper_groups([(["张伟", "李娜"], "Deep Learning"), (["张伟", "李娜"], "Deep Learning"),
                         (["张伟", "王芳"], "Optimization"), (["张伟", "王芳"], "Optimization")], "张伟", 2)
    assert [(g.papers, g.areas, g.coauthors) for g in lone] == [(2, ["Deep Learning"], ["李娜"]),
                                                                (2, ["Optimization"], ["王芳"])]
    assert several_people(lone)
    # A co-author across areas links them (through any chain of papers): one person.
    linked = paper_groups([(["A B", "C D"], "Theory"), (["a b", "C D", "E F"], "Optimization"),
                           (["A B", "E F"], "Applications")], "a b", 2)
    assert [g.papers for g in linked] == [3] and not several_people(linked)
    assert paper_groups([(["A B"], None), (["A B"], None)], "a b", 2) == []  # nothing links lone papers


def test_every_topic_has_a_slug_that_finds_it_again():
    taxonomy = Taxonomy.load()
    for area, subarea in taxonomy.subareas:
        assert taxonomy.canonical(topic_slug(area), topic_slug(subarea)) == Topic(area, subarea)
    assert topic_slug("Batch/Offline") == "batch-offline" and topic_slug("Health / Medicine") == "health-medicine"


def test_an_author_page_ranks_its_words_as_the_search_does_within_the_name():
    params = SearchParams(q="retrieval models", filters={"venue": ["ICLR"]}, sort="relevance")
    words, _, _ = plan.Search(parse_query(params.q), params, CONFIG).as_typed()
    body = pq.body(pq.AuthorPapers(("thomas muller",), params, words), CONFIG)
    assert body["query"] == {"bool": {"must": [render.scoring_query(words, CONFIG)],
                                      "filter": [{"terms": {pq.AUTHOR_KEYS: ["thomas muller"]}}]}}
    assert body["post_filter"] == CONFIG.faceted.post_filter(CONFIG.faceted.filters(params))  # facets stay disjunctive
    expected = CONFIG.faceted.aggregations(CONFIG.faceted.filters(params)) | CONFIG.faceted.known_aggregation(params)
    assert body["aggs"] == expected
    assert body["sort"] == CONFIG.sorts["relevance"] and "highlight_query" in body["highlight"]
    newest = pq.body(pq.AuthorPapers(("thomas muller",), SearchParams(sort="year")), CONFIG)
    assert newest["sort"] == CONFIG.sorts["year"] and "highlight" not in newest


def test_a_large_topic_page_samples_its_facets_apart():
    topic = Topic("Deep Learning", "Large Language Models")
    alone = pq.body(pq.TopicPapers(topic, facets=False), CONFIG)
    assert list(alone["aggs"]) == [pq.COVERAGE] and alone["track_total_hits"] is True  # what topics cover only
    sampled = pq.body(pq.TopicFacets(topic, 0.25), CONFIG)["aggs"][render.SAMPLE_AGG]
    assert sampled["random_sampler"]["probability"] == 0.25 and "year" in sampled["aggs"]
    assert Live(papers=1_000_000).sample_probability(CONFIG, total_exact=False) == 0.1
    assert Live(papers=1_000_000).sample_probability(CONFIG, total_exact=True) == 1.0


# --- one person, many spellings (issue 44.2) ----------------------------------------------------------------


def test_spellings_of_one_person_agree_and_other_people_do_not():
    from papersearch.author_keys import key_of_word_value, key_words, same_person, surname_pattern, word_pattern
    from papersearch.author_people import person_keys

    k = author_key
    assert same_person(k("Bernhard Schölkopf"), k("Bernhard Schoelkopf"))
    assert same_person(k("Klaus-Robert Müller"), k("Klaus-robert Mueller"))
    assert same_person(k("J. Zico Kolter"), k("Zico Kolter")) and same_person(k("Philip H.S. Torr"), k("Philip Torr"))
    assert same_person(k("G. Hinton"), k("Geoffrey E. Hinton"))
    assert not same_person(k("Wei Wang"), k("Wen Wang")) and not same_person(k("Wei Wang"), k("Hong Wei Wang"))
    assert not same_person(k("Wei Wang"), k("Lei Fang")) and not same_person(k("J Kolter"), k("Zico Kolter"))
    assert surname_pattern(k("Bernhard Schölkopf")) == "(.+ )?scho(e)?lko(e)?pf"
    # the same keys filed under their words: a pattern anchored at the surname (DECISIONS.md D-176)
    assert word_pattern(k("Bernhard Schölkopf")) == "scho(e)?lko(e)?pf:(.+ )?scho(e)?lko(e)?pf"
    assert word_pattern("soren") == "so(e)?ren:.*"
    assert key_words(["bernhard scholkopf", "张伟"]) == ["bernhard:bernhard scholkopf", "scholkopf:bernhard scholkopf"]
    assert key_of_word_value("scholkopf:bernhard scholkopf") == "bernhard scholkopf"
    found = ["wei wang", "wen wang", "w wang", "zico kolter", "j zico kolter", "j kolter"]
    assert person_keys("wei wang", found) == ["wei wang"]  # "w wang" could be Wen's
    assert person_keys("zico kolter", found) == ["zico kolter", "j kolter", "j zico kolter"]


def test_a_surnames_people_and_first_name_groups_cover_every_paper():
    from papersearch.author_people import people
    from webapp.services.pages.author_groups import first_name_groups

    counted = [("yoshua bengio", 50), ("y bengio", 5), ("samy bengio", 20), ("s bengio", 3), ("bengio", 1)]
    assert people(counted) == [("yoshua bengio", 55), ("samy bengio", 23), ("bengio", 1)]
    groups = first_name_groups([("geoffrey hinton", 3), ("george hinton", 1), ("g hinton", 1)],
                               [(["Geoffrey Hinton", "Ann Lee"], "ML"), (["George Hinton"], "Chemistry")])
    assert [(g.name, g.papers) for g in groups] == [("geoffrey", 3), ("george", 1), ("g", 1)]
    assert groups[0].coauthors == ["Ann Lee"] and groups[1].areas == ["Chemistry"]
    assert first_name_groups([("bernhard scholkopf", 27), ("bernhard schoelkopf", 4), ("b scholkopf", 1)], []) == []


def test_an_author_pages_first_papers_and_every_profile_request_ask_for_the_request_cache():
    within = CONFIG.result_cache.within
    first, deep = SearchParams(size=10), SearchParams(size=10, page=within // 10 + 1)
    assert pq.worth_caching(pq.AuthorPapers(("ada lovelace",), first), CONFIG)
    assert not pq.worth_caching(pq.AuthorPapers(("ada lovelace",), deep), CONFIG)
    assert pq.worth_caching(pq.AuthorProfile(("ada lovelace",)), CONFIG)
