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
