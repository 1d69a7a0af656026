"""Whether one name plainly covers several people: its papers fall apart into groups that share no co-author
and no topic area (two papers are together when they have a co-author or the area in common, and so is
everything linked to them). Two or more groups of at least `min_papers` papers each: several people. The page
says so and shows the groups; it never splits the name's papers (DECISIONS.md D-134).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from papersearch.author_keys import author_key
from webapp.domain import PaperGroup

GROUP_COAUTHORS = 5  # co-authors shown per group


def paper_groups(papers: Sequence[tuple[Sequence[str], str | None]], own: str, min_papers: int) -> list[PaperGroup]:
    """The groups of at least min_papers papers, largest first, from each paper's (authors, topic area); `own`
    is the name's key (left out of the co-authors)."""
    parent = list(range(len(papers)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, str], int] = {}  # ("author" | "area", key) -> the first paper that has it
    for i, (names, area) in enumerate(papers):
        links = [("author", k) for k in map(author_key, names) if k and k != own]
        links += [("area", area)] if area else []
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
            spelled.update({n for n in papers[i][0] if author_key(n) not in ("", own)})
        out.append(PaperGroup(papers=len(indices), areas=[a for a, _ in areas.most_common()],
                              coauthors=[n for n, _ in spelled.most_common(GROUP_COAUTHORS)]))
    return out


def several_people(groups: list[PaperGroup]) -> bool:
    return len(groups) >= 2
