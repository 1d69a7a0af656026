"""The people among a surname's keys, found without comparing every key with every other
(papersearch/author_people.py; issue 53.1, DECISIONS.md D-180), are exactly those the pairwise algorithm before
it found: the same people, the same keys per person, in the same order. The pairwise algorithm is kept here, as
it was, as the reference; the two are compared on generated name sets made to collide (few given names, many
sharing initials, umlauts transliterated both ways, keys of initials, surnames alone, other surnames, CJK)."""

from __future__ import annotations

import random

import pytest

from papersearch.author_keys import has_name as _has_name
from papersearch.author_keys import is_surname as _is_surname
from papersearch.author_keys import same_person as _same_person
from papersearch.author_keys import split_key as _split_key
from papersearch.author_people import people, person_keys
from papersearch.text import has_cjk as _cjk

# --- the reference: papersearch/author_keys.py's person_keys and people before D-180 ---------------------------
# As they were, on the pairwise rules (same_person, split_key, has_name, is_surname), which D-180 left alone.


def _initials_only(key: str) -> bool:
    given, _ = _split_key(key)
    return all(len(w) == 1 for w in given)


def reference_person_keys(key: str, candidates: list[str]) -> list[str]:
    if _cjk(key):
        return [c for c in candidates if c == key]
    if _is_surname(key):
        return sorted((c for c in candidates if _has_name(c, key)), key=lambda c: (c != key, c))
    if _initials_only(key):
        return sorted((c for c in candidates if c == key or _same_person(key, c)), key=lambda c: (c != key, c))
    full = [c for c in candidates if not _initials_only(c)]
    group = [c for c in full if c == key or _same_person(key, c)]
    others = [c for c in full if c not in group]
    short = [c for c in candidates if _initials_only(c) and _split_key(c)[0]
             and any(_same_person(c, g) for g in [key, *group]) and not any(_same_person(c, o) for o in others)]
    found = set(group) | set(short)
    return sorted(found, key=lambda c: (c != key, c))


def reference_people(counted: list[tuple[str, int]]) -> list[tuple[str, int]]:
    counts = dict(counted)
    order = sorted(counts, key=lambda k: (_initials_only(k), -counts[k], k))
    taken: set[str] = set()
    out = []
    for key in order:
        if key in taken:
            continue
        mine = [k for k in reference_person_keys(key, [k for k in order if k not in taken]) if k not in taken] or [key]
        taken.update(mine)
        out.append((key, sum(counts[k] for k in mine)))
    return sorted(out, key=lambda p: -p[1])


# --- generated name sets ------------------------------------------------------------------------------------

GIVEN = ("wei", "wen", "w", "wu", "hong", "h", "xiao", "x", "ming", "m", "alice", "a", "bob", "b", "joerg",
         "jorg", "j", "zico", "z", "jun", "li", "l")
SURNAMES = ("wang", "wang", "wang", "muller", "mueller", "li", "wei")


def name_set(rng: random.Random, size: int) -> list[tuple[str, int]]:
    keys: dict[str, int] = {}
    while len(keys) < size:
        roll = rng.random()
        if roll < 0.04:
            key = rng.choice(SURNAMES)  # a surname alone
        elif roll < 0.06:
            key = rng.choice(("王伟", "张伟", "王 伟"))
        else:
            given = [rng.choice(GIVEN) for _ in range(rng.choice((1, 1, 2, 2, 3, 4)))]
            key = " ".join([*given, rng.choice(SURNAMES)])
        keys.setdefault(key, rng.randint(1, 6))  # few counts: many ties, ordered by key
    return list(keys.items())


@pytest.mark.parametrize("seed", range(25))
def test_people_are_the_pairwise_algorithms_people(seed):
    rng = random.Random(seed)
    for size in (3, 8, 20, 60, 150):
        counted = name_set(rng, size)
        assert people(counted) == reference_people(counted), counted


@pytest.mark.parametrize("seed", range(10))
def test_each_names_keys_are_the_pairwise_algorithms(seed):
    rng = random.Random(1000 + seed)
    keys = [k for k, _ in name_set(rng, 80)]
    for key in [*keys, "nobody wang", "w h wang", "wang", "x muller", "王伟"]:
        assert person_keys(key, keys) == reference_person_keys(key, keys), key


def test_hundreds_of_keys_of_one_surname_group_alike():
    rng = random.Random(53)
    counted = name_set(rng, 400)
    assert people(counted) == reference_people(counted)
