"""Which of a surname's name keys are one person, and the people a surname's keys make. The rules of when two
keys can be one person's are papersearch/author_keys.py's (same_person, DECISIONS.md D-148); this module applies
them without comparing every key with every other: each key is split once (Name), and a key is compared only with
the keys an index says can agree with it (DECISIONS.md D-180; issue 53.1: the ~1,000 keys of "Wang" took 907,104
comparisons and 30–40 s a page).

What the indexes rest on: two given names that agree have the same first letter (equal, or one the other's
initial), and agreeing keys' given names agree in order, so the first letters of one key's given names are a
subsequence of the other's ("letters"). Between a key of initials and any other that is exactly when they agree.
Of keys with a given name written out, two without an initial agree only when their given names are the same
(only initials may be skipped); one with an initial ("mixed") shares a written-out name with any key that agrees
with it, unless both are mixed ("a bob smith" ~ "alice b smith"), when their letters are comparable. So those are
looked for by their given names, their written-out words and, when both are mixed, their letters, then compared.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from papersearch.author_keys import Split, agree, has_name, initials_only, is_surname, person_key, split_key
from papersearch.text import has_cjk

# A key of more given names than this is compared with every key of its surname instead of through the index of
# letters (which files a key under each subsequence of its letters: 2^n of them).
MAX_INDEXED_LETTERS = 8


@dataclass(frozen=True)
class Name:
    """A key split once (author_keys.split_key)."""

    key: str
    split: Split

    @property
    def given(self) -> tuple[str, ...]:
        return self.split[0]

    @property
    def surname(self) -> str:
        return self.split[1]

    @property
    def initials(self) -> bool:
        """No given name written out: initials only, or no given name (a surname alone, a CJK name)."""
        return initials_only(self.given)

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(w[0] for w in self.given)


def name_of(key: str) -> Name:
    return Name(key, split_key(key))


def _mixed(name: Name) -> bool:
    """Given names written out and initials too ("j zico kolter")."""
    return any(len(w) == 1 for w in name.given)


def _subsequences(letters: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {sub for size in range(1, len(letters) + 1) for sub in combinations(letters, size)}


def _within(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    rest = iter(long)
    return all(letter in rest for letter in short)


def _comparable(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return _within(a, b) if len(a) <= len(b) else _within(b, a)


class Letters:
    """Keys by their surname and the first letters of their given names: comparable(name) gives the keys of its
    surname whose letters are a subsequence of its letters or have its letters as one."""

    def __init__(self, names: Iterable[Name] = ()) -> None:
        self.exact: dict[tuple[str, tuple[str, ...]], list[Name]] = defaultdict(list)
        self.within: dict[tuple[str, tuple[str, ...]], list[Name]] = defaultdict(list)  # under each subsequence
        self.many: dict[str, list[Name]] = defaultdict(list)  # more than MAX_INDEXED_LETTERS: scanned
        self.every: dict[str, list[Name]] = defaultdict(list)
        for name in names:
            self.add(name)

    def add(self, name: Name) -> None:
        self.every[name.surname].append(name)
        self.exact[name.surname, name.letters].append(name)
        if len(name.letters) > MAX_INDEXED_LETTERS:
            self.many[name.surname].append(name)
            return
        for sub in _subsequences(name.letters):
            self.within[name.surname, sub].append(name)

    def comparable(self, name: Name) -> dict[str, Name]:
        surname, letters = name.surname, name.letters
        if len(letters) > MAX_INDEXED_LETTERS:
            return {n.key: n for n in self.every.get(surname, ()) if _comparable(letters, n.letters)}
        found = {n.key: n for n in self.within.get((surname, letters), ())}
        for sub in _subsequences(letters):
            found.update((n.key, n) for n in self.exact.get((surname, sub), ()))
        found.update((n.key, n) for n in self.many.get(surname, ()) if _comparable(letters, n.letters))
        return found


class Surname:
    """The keys of a surname (any number of surnames, in fact), indexed for finding the keys one key agrees with."""

    def __init__(self, keys: list[str]) -> None:
        self.names = {k: name_of(k) for k in keys}
        full = [n for n in self.names.values() if not n.initials]
        self.initials = Letters([n for n in self.names.values() if n.initials and n.given])
        self.mixed = Letters([n for n in full if _mixed(n)])
        self.alike: dict[Split, list[Name]] = defaultdict(list)  # no initial: the same given names (folded)
        self.words: dict[tuple[str, str], list[Name]] = defaultdict(list)  # by each written-out given name
        self.mixed_words: dict[tuple[str, str], list[Name]] = defaultdict(list)  # the same, of mixed keys only
        for name in full:
            if not _mixed(name):
                self.alike[name.split].append(name)
            for word in {w for w in name.given if len(w) > 1}:
                self.words[name.surname, word].append(name)
                if _mixed(name):
                    self.mixed_words[name.surname, word].append(name)
        self.by_word: dict[str, list[str]] = defaultdict(list)  # every folded word of every key (has_name)
        for key in keys:
            for word in set(person_key(key).split()):
                self.by_word[word].append(key)

    def full_agreeing(self, name: Name) -> set[str]:
        """The keys of written-out given names that agree with a key of them, other than itself. Two keys without
        an initial agree only when their given names are the same (nothing may be skipped); a key with an initial
        (mixed) shares a written-out name with any key that agrees with it, unless both have initials."""
        words = {w for w in name.given if len(w) > 1}
        if _mixed(name):
            maybe = {n.key: n for w in words for n in self.words[name.surname, w]}
            maybe.update(self.mixed.comparable(name))
        else:
            maybe = {n.key: n for w in words for n in self.mixed_words[name.surname, w]}
            maybe.update((n.key, n) for n in self.alike[name.split])
        return {k for k, n in maybe.items() if k != name.key and agree(name.split, n.split)}

    def initials_agreeing(self, name: Name) -> set[str]:
        """The keys of initials that agree with a key: for them, comparable letters are agreement."""
        return set(self.initials.comparable(name)) - {name.key}

    def with_word(self, key: str) -> list[str]:
        return self.by_word.get(person_key(key), [])


def person_keys(key: str, candidates: list[str]) -> list[str]:
    """The keys among `candidates` (indexed keys of the same surname) that are the person `key` names:
    - one word (a surname, perhaps a first name): every key that has it;
    - initials only ("g hinton"): every key they agree with;
    - else the keys of agreeing full names, and initials-only keys that agree with one of those and with no
      other full name of the surname ("w wang" is not Wei Wang's when a Wen Wang is there too).
    The key itself comes first (when it is indexed)."""
    def first(c: str) -> tuple[bool, str]:
        return c != key, c

    if has_cjk(key):
        return [c for c in candidates if c == key]
    if is_surname(key):
        return sorted((c for c in candidates if has_name(c, key)), key=first)
    me = name_of(key)
    names = [name_of(c) for c in candidates]
    if me.initials:
        return sorted((n.key for n in names if n.key == key or agree(me.split, n.split)), key=first)
    full = [n for n in names if not n.initials]
    group = [n for n in full if n.key == key or agree(me.split, n.split)]
    mine = {n.key for n in group}
    others = [n for n in full if n.key not in mine]
    mine.update(n.key for n in names if n.initials and n.given and any(agree(n.split, g.split) for g in [me, *group])
                and not any(agree(n.split, o.split) for o in others))  # few keys agree with the group
    return sorted(mine, key=first)


def people(counted: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The people among a surname's keys (key, papers), most papers first: each the most common key of a full
    name not yet taken, with the keys person_keys would give it among the keys not yet taken; keys of initials no
    full name claims stay apart. Each key of initials keeps the count of the untaken full names it agrees with, so
    that a group takes it exactly when every one of those is in the group."""
    counts = dict(counted)
    surname = Surname(list(counts))
    names = surname.names
    order = sorted(counts, key=lambda k: (names[k].initials, -counts[k], k))
    initials_of = {k: surname.initials_agreeing(n) for k, n in names.items() if not n.initials}
    left = Counter(c for k in initials_of for c in initials_of[k])  # untaken full names each key of initials has
    taken: set[str] = set()
    out = []
    for key in order:
        if key in taken:
            continue
        name = names[key]
        if not name.initials:
            group = [key, *(k for k in surname.full_agreeing(name) if k not in taken)]
            hits = Counter(c for g in group for c in initials_of[g] if c not in taken)
            mine = set(group) | {c for c, n in hits.items() if n == left[c]}
            left.subtract(c for g in group for c in initials_of[g])
        elif has_cjk(key) or not name.given:
            mine = {key} | ({k for k in surname.with_word(key) if k not in taken} if is_surname(key) else set())
        else:
            mine = {key} | {k for k in surname.initials.comparable(name) if k not in taken}
        taken.update(mine)
        out.append((key, sum(counts[k] for k in mine)))
    return sorted(out, key=lambda p: -p[1])
