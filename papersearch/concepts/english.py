"""English side of concept matching: words, plural variants, acronyms.

Text is compared word by word: lowercased, diacritics off, every character other than a Latin
letter or digit a separator — so "self-supervised" is "self supervised", and a form can only match
whole words ("GAN" is never found in "organ"). Rather than stemming every word of every paper, each
form is expanded once into the spellings that mean the same (plural or singular head noun, the
hyphen-joined spelling): see DECISIONS.md D-034.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from functools import lru_cache

_ALNUM = frozenset(range(ord("0"), ord("9") + 1)) | frozenset(range(ord("a"), ord("z") + 1)) | \
    frozenset(range(ord("A"), ord("Z") + 1))


class _WordChars(dict):
    """str.translate table: ASCII letters and digits stay, Latin letters lose their diacritics
    (ï → i), every other character (punctuation, CJK) becomes a space. Filled as characters are met."""

    def __missing__(self, code: int) -> int | str:
        value: int | str = 32
        if code in _ALNUM:
            value = code
        elif code > 127 and chr(code).isalpha():
            base = "".join(c for c in unicodedata.normalize("NFKD", chr(code)) if ord(c) in _ALNUM)
            value = base or 32
        self[code] = value
        return value


WORD_CHARS = _WordChars()
_ASCII_WORD_BYTES = bytes(c if c in _ALNUM else 32 for c in range(256))
_NOT_LATIN = re.compile(r"[^\x00-\u024f\ufb00-\ufb06]+")  # keeps Latin with diacritics and the ﬁ ligatures
# Words after which an English noun phrase's head is already behind us ("mixture of experts").
_PREPOSITIONS = frozenset({"of", "for", "in", "on", "with", "from", "to", "under", "over", "via", "by", "between",
                           "without", "across"})
_SIBILANT_END = ("s", "x", "z", "ch", "sh")


def words(text: str) -> list[str]:
    """The words of a text as written (case kept): Latin letters and digits, diacritics removed."""
    return text.translate(WORD_CHARS).split()


def haystack(text: str) -> bytes:
    """What English forms are searched in (see `searched`): the text as ASCII letters, digits and
    spaces, same case, a space at each end; each run of other scripts (CJK, Greek, symbols, curly
    quotes) one space, diacritics off (naïve → naive). Bytes, because bytes.translate is several
    times faster than str.translate, and papers are mostly ASCII."""
    if not text.isascii():
        extra = len(text.encode("utf-8", "surrogatepass")) - len(text)  # about 2 per CJK character
        text = text.encode("ascii", _LATIN_RUNS).decode("ascii") if extra < len(text) // 2 else _latin(text)
    return b" " + text.encode("ascii").translate(_ASCII_WORD_BYTES) + b" "


def _latin(text: str) -> str:
    text = _NOT_LATIN.sub(" ", text)  # drop CJK runs first: translate() is slow per non-ASCII character
    return text if text.isascii() else text.translate(WORD_CHARS)


def _latin_run(error: UnicodeError) -> tuple[str, int]:
    """The encoder's error handler: `_latin` of one run of non-ASCII characters. In mostly English
    text this is a few calls per paper (curly quotes, dashes), where one regular expression over the
    whole text cost more than the concept search itself (DECISIONS.md D-035)."""
    assert isinstance(error, UnicodeEncodeError)
    run = error.object[error.start:error.end]
    out = _RUNS.get(run)
    if out is None:
        out = _latin(run)
        if len(run) <= 4 and len(_RUNS) < 10_000:  # the recurring ones: punctuation, symbols, letters
            _RUNS[run] = out
    return out, error.end


_LATIN_RUNS = "papersearch-latin-runs"
_RUNS: dict[str, str] = {}
codecs.register_error(_LATIN_RUNS, _latin_run)


def searched(haystack: bytes) -> bytes:
    """The haystack as the automaton sees it: title case, so every word starts with its one capital
    (digits aside) and a pattern ("Large Language Model ") can only start where a word starts — or
    after a digit inside a word ("3D"), which the matcher rejects. Its trailing space makes it end
    where a word ends; a gap of two or more spaces (punctuation, a field boundary) is never crossed."""
    return haystack.title()


def pattern(spelling: Spelling) -> bytes:
    """How a spelling is searched in `searched(haystack)`."""
    return (" ".join(spelling) + " ").encode("ascii").title()


def number_variants(word: str) -> set[str]:
    """A lowercase noun in both grammatical numbers, whichever it was written in: network/networks,
    policy/policies, process/processes, analysis/analyses, matrix/matrices. Words of one or two
    letters, and words with digits, stay as they are."""
    out = {word}
    if len(word) <= 2 or not word.isalpha():
        return out
    if word.endswith("is"):
        out.add(word[:-2] + "es")  # analysis → analyses
    elif word.endswith(("ss", "us")):
        out.add(word + "es")  # process → processes
    elif word.endswith("ies"):
        out.add(word[:-3] + "y")  # policies → policy
    elif word.endswith(("sses", "xes", "zes", "ches", "shes")):
        out.add(word[:-2])  # approaches → approach
    elif word.endswith("ses"):
        out |= {word[:-1], word[:-2], word[:-2] + "is"}  # cases, biases, analyses (a wrong guess never occurs)
    elif word.endswith("as"):
        out |= {word[:-1], word + "es"}  # ideas → idea, bias → biases
    elif word.endswith("s"):
        out.add(word[:-1])  # networks → network, images → image
    elif word.endswith(("ix", "ex")):
        out |= {word[:-2] + "ices", word + "es"}  # matrix → matrices, index → indices / indexes
    elif word.endswith(_SIBILANT_END):
        out.add(word + "es")
    elif word.endswith("y") and word[-2] not in "aeiou":
        out.add(word[:-1] + "ies")
    else:
        out.add(word + "s")
    return out


def head_positions(parts: list[str]) -> set[int]:
    """Where a noun phrase inflects for number: the word before its first preposition, and the last."""
    heads = {len(parts) - 1}
    for i, part in enumerate(parts):
        if part.lower() in _PREPOSITIONS and i > 0:
            heads.add(i - 1)
            break
    return heads


def is_acronym(word: str) -> bool:
    """Capitals inside (LLM, ViT, LoRA, GPT): such a word is compared case-sensitively in papers,
    where "clip", "map" or "sam" are ordinary words. A capitalised word (Adam, Bayes) is not one."""
    return sum(c.isupper() for c in word) >= 2


def _word_variants(word: str, head: bool) -> set[str]:
    """Cased spellings of one form word (acronyms keep their case; plural s for head acronyms)."""
    if is_acronym(word):
        return {word, word + "s"} if head and word[-1].isupper() else {word}
    return number_variants(word.lower()) if head else {word.lower()}


Spelling = tuple[str, ...]  # the words of one spelling, acronyms in their case, the rest lowercase


@lru_cache(maxsize=65536)  # the glossary's forms: computed once for validation, matcher and suggestions
def spellings(form: str) -> frozenset[Spelling]:
    """Every word sequence that counts as this form: its head noun in either number, written with
    hyphens or as one word ("pre-training", "pretraining")."""
    variants = [form]
    joined = re.sub(r"(?<=[^\W_])-(?=[^\W_])", "", form)
    if joined != form:
        variants.append(joined)
    out: set[Spelling] = set()
    for variant in variants:
        parts = words(variant)
        if not parts:
            continue
        heads = head_positions(parts)
        out |= _combine([_word_variants(p, i in heads) for i, p in enumerate(parts)])
    return frozenset(out)


def _combine(options: list[set[str]]) -> set[Spelling]:
    combos: list[Spelling] = [()]
    for choice in options:
        combos = [(*c, w) for c in combos for w in sorted(choice)]
    return set(combos)


def key(spelling: Spelling) -> str:
    """The lowercase text a spelling is looked up by."""
    return " ".join(spelling).lower()


def form_key(form: str, cased: bool = False) -> str:
    """One key for all spellings of a form: lowercase, or with acronyms as written (`cased`)."""
    variants = spellings(form)
    if not variants:
        return ""
    return min(" ".join(s) if cased else key(s) for s in variants)


_BRITISH = ((re.compile(r"(?<=[a-z]{3})is(?=(ation|ations|e|es|ed|ing|er|ers)\b)"), "iz"),
            (re.compile(r"(?<=[a-z]{2})yse(?=(s|d)?\b)"), "yze"), (re.compile(r"(?<=[a-z]{2})our\b"), "or"),
            (re.compile(r"(?<=[a-z]{3})ell(?=(ing|ed|er|ers)\b)"), "el"))


def american_spelling(word: str) -> str | None:
    """A word's American spelling when it is written the British way (normalisation → normalization, modelling →
    modeling); None for any other word."""
    american = spelling_key(word)
    return american if american != " ".join(word.casefold().split()) else None


def spelling_key(form: str) -> str:
    """One key for a form's British and American spellings (optimisation, optimization; modelling, modeling)."""
    text = " ".join(form.casefold().split())
    for pattern_, american in _BRITISH:
        text = pattern_.sub(american, text)
    return text
