"""Whether one author page plainly covers several people. A Latin-script page groups the spellings of one
person (papersearch/author_people.person_keys), so it covers several only when its spellings carry different first
names (the page of "G. Hinton" takes Geoffrey's and George's papers): one group per first name, with every
paper of its spellings (first_name_groups). A CJK name has no first name to tell by: its papers fall apart into
groups that share no co-author and no topic area (two papers are together when they have a co-author or the
area in common, and so is everything linked to them); two or more groups of at least `min_papers` papers each:
several people (paper_groups). A Latin-script name whose spellings have one first name falls apart the same way,
by co-authors alone: two circles of at least `coauthor_min_papers` papers, or `coauthor_circles` circles none with
half of the papers (coauthor_groups: "Wei Wang" is many people with one first name; DECISIONS.md D-208). The
page says so and shows the groups; it never splits the name's papers (DECISIONS.md D-134).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from papersearch.author_keys import author_key, same_person, split_key
from webapp.domain import PaperGroup

GROUP_COAUTHORS = 5  # co-authors shown per group


def paper_groups(papers: Sequence[tuple[Sequence[str], str | None]], own: str | frozenset[str],
                 min_papers: int, link_areas: bool = True) -> list[PaperGroup]:
    """The groups of at least min_papers papers, largest first, from each paper's (authors, topic area); `own`
    is the name's key (left out of the co-authors). Without `link_areas` only a co-author links papers."""
    own_keys = {own} if isinstance(own, str) else set(own)
    parent = list(range(len(papers)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, str], int] = {}  # ("author" | "area", key) -> the first paper that has it
    for i, (names, area) in enumerate(papers):
        links = [("author", k) for k in map(author_key, names) if k and k not in own_keys]
        links += [("area", area)] if area and link_areas else []
        for link in links:
            j = first.setdefault(link, i)
            parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(len(papers)):
        members.setdefault(root(i), []).append(i)
    out = []
    for indices in sorted(members.values(), key=len, reverse=True):
        if len(indices) < min_papers:
            continue
        areas = Counter(papers[i][1] for i in indices if papers[i][1])
        spelled: Counter[str] = Counter()
        for i in indices:
            spelled.update({n for n in papers[i][0] if author_key(n) not in {"", *own_keys}})
        out.append(PaperGroup(papers=len(indices), areas=[a for a, _ in areas.most_common()],
                              coauthors=[n for n, _ in spelled.most_common(GROUP_COAUTHORS)]))
    return out


def coauthor_groups(papers: Sequence[tuple[Sequence[str], str | None]], own: frozenset[str],
                    min_papers: int, min_circles: int) -> list[PaperGroup]:
    """A Latin-script name of one first name ("Wei Wang"): its papers' co-author circles, papers linked by a
    shared co-author only (one person's papers across topics share their collaborators; a topic area is shared by
    strangers). Several people: two circles of at least min_papers papers each, or at least min_circles circles of
    which none holds half of the papers (a common name's papers, each with other co-authors); papers without a
    co-author are in none (DECISIONS.md D-208, issue 57.9)."""
    written = [(names, area) for names, area in papers if any(author_key(n) not in {"", *own} for n in names)]
    circles = paper_groups(written, own, 1, link_areas=False)
    large = [g for g in circles if g.papers >= min_papers]
    if len(large) >= 2:
        return large
    scattered = len(circles) >= min_circles and 2 * circles[0].papers < len(written)
    return circles if scattered else []


def several_people(groups: list[PaperGroup]) -> bool:
    return len(groups) >= 2


def _first_name(key: str) -> str:
    """The first given name written out in full ("" when there are only initials)."""
    return next((w for w in split_key(key)[0] if len(w) > 1), "")


def first_name_groups(counted: Sequence[tuple[str, int]], papers: Sequence[tuple[Sequence[str], str | None]]
                      ) -> list[PaperGroup]:
    """The page's spellings (key, papers) by first name, largest first, each with every paper of its spellings
    (keys of initials only go with the one first name they agree with, else apart); topic areas and co-authors
    from `papers` (the newest papers' authors and areas)."""
    names = {k: _first_name(k) for k, _ in counted}
    full = sorted({n for n in names.values() if n})
    for key, name in names.items():
        if not name:
            agree = {names[o] for o in names if names[o] and same_person(key, o)}
            names[key] = agree.pop() if len(agree) == 1 else split_key(key)[0][0] if split_key(key)[0] else ""
    totals: Counter[str] = Counter()
    for key, count in counted:
        totals[names[key]] += count
    out = []
    for name, count in totals.most_common():
        keys = {k for k, n in names.items() if n == name}
        mine = [(a, area) for a, area in papers if keys & {author_key(x) for x in a}]
        areas = Counter(area for _, area in mine if area)
        spelled: Counter[str] = Counter()
        for authors, _ in mine:
            spelled.update({n for n in authors if author_key(n) and author_key(n) not in keys})
        out.append(PaperGroup(name=name, papers=count,
                              areas=[a for a, _ in areas.most_common()],
                              coauthors=[n for n, _ in spelled.most_common(GROUP_COAUTHORS)]))
    return out if len(full) >= 2 else []
