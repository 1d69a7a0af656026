"""Chinese "did you mean" candidates (issue 57.4): a typed Chinese run that is no glossary name but one character
away from some (图神精网络 → 图神经网络, 强化学系 → 强化学习). The English check's suggesters and fuzzy fallback
work on Latin words; one edit in a Chinese run is a new word, so its candidates are the glossary's Chinese names
(config/concepts.tsv, simplified) of the same length that differ from it in one character, not its first.
The plan counts the papers of the run and of each candidate and corrects the run as an English word is corrected
(plan/ladder.py corrections: the candidate with most papers). DECISIONS.md D-202.
"""

from __future__ import annotations

from functools import lru_cache

from papersearch.concepts import glossary
from papersearch.text import CJK_RUN, to_simplified

_GAP = "\0"  # stands for the one character a candidate may differ in


@lru_cache(maxsize=1)
def _names() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """The glossary's Chinese names (simplified), and each name under every key with one of its characters (but the
    first) replaced by the gap: a typed run's own keys find its one-character neighbours."""
    names = frozenset(n for c in glossary.cached().concepts for form in c.zh
                      if CJK_RUN.fullmatch(n := to_simplified(form)))
    keys: dict[str, set[str]] = {}
    for name in names:
        for i in range(1, len(name)):
            keys.setdefault(name[:i] + _GAP + name[i + 1:], set()).add(name)
    return names, {k: tuple(sorted(v)) for k, v in keys.items()}


def candidates(run: str, min_length: int, most: int) -> tuple[str, ...]:
    """The glossary names one character from a typed Chinese run (none when it is a name itself, is shorter than
    min_length characters, or holds anything but Chinese characters), at most `most`."""
    if len(run) < min_length or not CJK_RUN.fullmatch(run):
        return ()
    names, keys = _names()
    if run in names:
        return ()
    found = dict.fromkeys(n for i in range(1, len(run)) for n in keys.get(run[:i] + _GAP + run[i + 1:], ()))
    return tuple(found)[:most]
