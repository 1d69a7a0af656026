"""The names a paper introduces: what a researcher types to reach it ("LoRA", "SimCLR").

A name is the paper's when its title starts with it followed by a colon ("LoRA: Low-Rank Adaptation of …"), or
its abstract introduces it: "we propose X", "we present X", "we introduce X", "this paper presents X", "called X",
"dubbed X", "named X", "termed X", "X, a …" at the start of a sentence, or an acronym right after the words it
stands for in such a sentence ("We propose Bootstrap Your Own Latent (BYOL)", "… Low-Rank Adaptation, or LoRA").
In an abstract only a word that looks like a name counts (a capital after its first letter, or letters and digits:
SimCLR, BERT, GPT-4, word2vec), so "we propose a new method" or "we present Gaussian processes" name nothing; a
title's colon is a strong enough sign for any short name ("Adam: A Method …", "Dropout: …"), but not a survey's
subject ("Graph Neural Networks: A Review"). The indexer writes them into FIELD (a keyword field lowercased by
its normalizer), the webapp lifts a paper whose name equals what was typed (DECISIONS.md D-210).
"""

from __future__ import annotations

import re

FIELD = "introduces"
SINCE_SCHEMA = 6  # the first schema_version whose builds fill FIELD (older versions: the clause matches nothing)
MAX_NAMES = 5  # per paper: a name introduced is one or two; more are an abstract's list of baselines
MAX_NAME_WORDS = 3  # a title's part before the colon longer than this is a phrase, not a name

_TOKEN = r"[A-Za-z0-9][A-Za-z0-9\-+.]*[A-Za-z0-9+]|[A-Za-z0-9]"
_NAME_PART = re.compile(r".+[A-Z].*|.*\d.*|[A-Z]")  # a capital after its first letter, a digit, or a capital alone
_DIMENSION = re.compile(r"\d+[Dd]")  # 3D, 2d: what a model is, not its name
_TITLE = re.compile(r"\s*([^:：]{1,60}?)\s*[:：]\s*(\S.*)")
_SURVEY = re.compile(r"(?i)(?:a|an|the)\s+(?:\w+\s+){0,2}(?:survey|review|overview|tutorial|introduction|primer)\b")
_CUE = r"(?:we|i|this\s+(?:paper|work|article)|the\s+paper|here\s+we)\s+(?:(?:also|further|then)\s+)?" \
       r"(?:propose|present|introduce|develop|proposes|presents|introduces|develops)"
# Right after the verb, with no article ("we propose SimCLR"; "we propose an RL-based approach" names nothing).
_AFTER_CUE = re.compile(rf"(?i:\b{_CUE})\s+({_TOKEN})(?![\s-]based)")
_CALLED = re.compile(rf"(?i:\b(?:called|dubbed|named|termed|coined))\s+({_TOKEN})")
_APPOSITION = re.compile(rf"(?:^|[.!?]\s+)({_TOKEN}),\s+(?:a|an)\s")
_EXPANDED = re.compile(
    rf"(?i:\b{_CUE})\s+(?:(?i:a|an|the)\s+)?(?:[A-Z][\w\-]*\s+){{1,6}}?[A-Z][\w\-]*,?\s+(?:\(|or\s+)({_TOKEN})(?:\)(?=[,.;:])|,)")


def name_like(word: str) -> bool:
    """Whether a word looks like a name rather than an English word: SimCLR, BERT, GPT-4, word2vec, U-Net (not
    "Adam", nor "Low-Rank", whose capitals only start its parts)."""
    if len(word) < 2 or _DIMENSION.fullmatch(word) or not any(c.isalpha() for c in word):
        return False
    return any(_NAME_PART.fullmatch(p) for p in word.split("-") if p)


def title_name(title: str) -> str | None:
    """The name a title starts with before its colon, if short and not a survey's subject."""
    match = _TITLE.fullmatch(" ".join(title.split()))
    if not match:
        return None
    head, rest = match.groups()
    words = head.split()
    if len(words) > MAX_NAME_WORDS or _SURVEY.match(rest) or not all(re.fullmatch(_TOKEN, w) for w in words):
        return None
    return head if len(words) == 1 or any(name_like(w) for w in words) else None


def abstract_names(abstract: str) -> list[str]:
    """The names an abstract introduces, in order."""
    text = " ".join(abstract.split())
    found = [m.group(1) for pattern in (_AFTER_CUE, _CALLED, _APPOSITION, _EXPANDED) for m in pattern.finditer(text)]
    return [n for n in found if name_like(n)]


def introduced(title: str | None, abstract: str | None) -> list[str]:
    """FIELD's values of a paper: the title's name, then the abstract's, each once (case aside), at most
    MAX_NAMES."""
    names = [*filter(None, [title_name(title or "")]), *abstract_names(abstract or "")]
    unique: dict[str, str] = {}
    for name in names:
        unique.setdefault(name.casefold(), name)
    return list(unique.values())[:MAX_NAMES]
