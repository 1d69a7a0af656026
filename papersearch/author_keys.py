"""The folded form of an author's name: the key an author page groups names by, shared by the indexer (which
indexes each paper's keys into `author_keys`) and the webapp (which looks a name in a URL up by its key).

Latin-script names (and any other script but Chinese, Japanese and Korean) fold to ASCII without diacritics
(anyascii, as the completion inputs do: papersearch/suggest_inputs.py), lower case, apostrophes dropped and
other punctuation as spaces: "Thomas Müller", "Thomas Muller" and "thomas  müller" share "thomas muller",
"Fei-Fei Li" is "fei fei li", "Ze'ev" is "zeev".
CJK names stay as written, only their spaces removed: anyascii would make 张伟 "ZhangWei", one key with
every Zhang Wei written in Latin letters, and 張偉 (traditional) is kept apart from 张伟, since the site
cannot tell that two people who write their names differently are one. See DECISIONS.md D-133.
"""

from __future__ import annotations

import re

from anyascii import anyascii

from papersearch.text import has_cjk, normalize_text

FIELD = "author_keys"  # the index field holding each paper's keys (indexer/loading/documents.py writes it)
# Each Latin-script key again under each of its words ("muller:thomas muller"), so a look-up by a surname is a
# pattern anchored at its start, not a scan of every key (schema 5; DECISIONS.md D-176).
WORDS_FIELD = "author_key_words"
WORDS_SINCE_SCHEMA = 5  # the first schema_version whose builds fill WORDS_FIELD
_WORD_SEPARATOR = ":"
_APOSTROPHE = re.compile(r"['`]")  # what anyascii makes of ’ ʼ ′ too
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def author_key(name: str) -> str:
    """The name's folded form; "" for a name with nothing to fold (punctuation only)."""
    name = normalize_text(name)
    if has_cjk(name):
        return "".join(name.split()).casefold()
    return _NOT_ALNUM.sub(" ", _APOSTROPHE.sub("", anyascii(name).casefold())).strip()


def author_keys(names: list[str]) -> list[str]:
    """A paper's keys, each once, in the order of its authors."""
    return list(dict.fromkeys(k for k in map(author_key, names) if k))


def key_words(keys: list[str]) -> list[str]:
    """WORDS_FIELD's values of a paper's keys: each Latin-script key under each of its words (CJK keys are
    looked up as themselves)."""
    return list(dict.fromkeys(f"{w}{_WORD_SEPARATOR}{k}" for k in keys if not has_cjk(k) for w in k.split()))


def key_of_word_value(value: str) -> str:
    """The key a WORDS_FIELD value files under its word."""
    return value.partition(_WORD_SEPARATOR)[2]


# --- one person, many spellings ---------------------------------------------------------------------------
# A key says how a name is spelt; a person is every key of the same surname whose given names agree: equal,
# one the other's initial ("g hinton" ~ "geoffrey hinton"), transliterated umlauts alike ("schoelkopf" ~
# "scholkopf", both from Schölkopf), and extra initials allowed ("philip h s torr" ~ "philip torr",
# "j zico kolter" ~ "zico kolter"). Indexed keys stay as author_key writes them; the comparison folds further,
# so no reindex is needed. See DECISIONS.md D-148. Which keys are one person, and a surname's people, are found
# with these rules in papersearch/author_people.py, each key split once (DECISIONS.md D-180).
_UMLAUT_PAIRS = re.compile(r"([aou])e")
_VOWEL = re.compile(r"[aou]")
_REGEXP_SPECIAL = re.compile(r'([.?+*|{}\[\]()"\\#@&<>~])')


def person_key(key: str) -> str:
    """A key with transliterated umlauts folded (ae/oe/ue → a/o/u), as anyascii folds ä/ö/ü: the form keys are
    compared in. CJK keys are as they are."""
    return key if has_cjk(key) else _UMLAUT_PAIRS.sub(r"\1", key)


Split = tuple[tuple[str, ...], str]  # (given names, surname): split_key


def split_key(key: str) -> Split:
    """(given names, surname) of a key: the last word is the surname ("" for an empty key); a CJK key is all
    surname."""
    if has_cjk(key):
        return (), key
    words = person_key(key).split()
    return (tuple(words[:-1]), words[-1]) if words else ((), "")


def _agrees(a: str, b: str) -> bool:
    return a == b or (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b))


def _fits(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """Whether every given name of `short` agrees, in order, with one of `long`, and what `long` has besides are
    initials (or anything, when `short` is initials only: "j kolter" ~ "j zico kolter")."""
    only_initials = all(len(w) == 1 for w in short)
    at = 0
    for word in short:
        while at < len(long) and not _agrees(word, long[at]):
            if len(long[at]) > 1 and not only_initials:
                return False
            at += 1
        if at == len(long):
            return False
        at += 1
    return only_initials or all(len(w) == 1 for w in long[at:])


def same_person(a: str, b: str) -> bool:
    """Whether two keys can be one person's spellings: same surname, agreeing given names. A key of a surname
    alone (or CJK) is the same person only as itself."""
    return agree(split_key(a), split_key(b))


def agree(a: Split, b: Split) -> bool:
    """same_person on keys split already (split_key): what papersearch/author_people.py compares, each key split
    once (DECISIONS.md D-180)."""
    (ga, sa), (gb, sb) = a, b
    if sa != sb or not sa:
        return False
    if not ga or not gb:
        return ga == gb
    short, long = (ga, gb) if len(ga) <= len(gb) else (gb, ga)
    return _fits(short, long)


def surname_pattern(key: str) -> str:
    """A Lucene regular expression (regexp query, terms `include`) for the indexed keys with the key's surname,
    however its umlauts are transliterated: "bernhard scholkopf" → `(.+ )?scho(e)?lko(e)?pf`; a key of one word
    (a surname, perhaps a first name) anywhere in the name: "soren" → `(.+ )?so(e)?ren( .+)?`; a CJK key is
    itself."""
    if has_cjk(key):
        return _REGEXP_SPECIAL.sub(r"\\\1", key)
    escaped = _surname_variants(key)
    return f"(.+ )?{escaped}( .+)?" if is_surname(key) else f"(.+ )?{escaped}"


def word_pattern(key: str, surname: bool = False) -> str:
    """surname_pattern on WORDS_FIELD (a Latin-script key): the same keys, filed under the surname's word, so the
    pattern starts with that word and Elasticsearch visits only the values that begin like it:
    "bernhard scholkopf" → `scho(e)?lko(e)?pf:(.+ )?scho(e)?lko(e)?pf`, "soren" → `so(e)?ren:.*`; with `surname`,
    a one-word key only as the surname ("hinton" → `hinton:(.+ )?hinton`: a word typed as a name, D-211)."""
    escaped = _surname_variants(key)
    return f"{escaped}{_WORD_SEPARATOR}" + (".*" if is_surname(key) and not surname else f"(.+ )?{escaped}")


def _surname_variants(key: str) -> str:
    """The key's surname escaped for a Lucene regular expression, each a/o/u also matching its transliterated
    umlaut (ae/oe/ue)."""
    _, surname = split_key(key)
    return _VOWEL.sub(lambda m: f"{m.group()}(e)?", _REGEXP_SPECIAL.sub(r"\\\1", surname))


def has_name(key: str, word: str) -> bool:
    """Whether a key carries the (folded) word as one of its names: the keys a one-word name means."""
    return person_key(word) in person_key(key).split()


def is_surname(key: str) -> bool:
    """A key of one word (no given name): a surname, which many people may carry."""
    return not has_cjk(key) and len(key.split()) == 1


def initials_only(given: tuple[str, ...]) -> bool:
    """Given names (split_key) with none written out: initials, or none at all (a surname alone, a CJK name)."""
    return all(len(w) == 1 for w in given)
