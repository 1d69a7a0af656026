"""A TeX formula as it may go into a BibTeX entry: through an allow-list (issue 53.3, DECISIONS.md D-185).

A formula is copied into the entry as math, and BibTeX (or biber) passes it to a user's LaTeX run, so nothing in
it may read or write files, run commands or change how TeX reads its input. A block list of primitives cannot
win (`\\inp^^ut`, `\\c^^atcode` and `\\pdffiledump` went round the one before), so the formula is read token by
token, as TeX would, and only what is known to be harmless is written back:

- a control word only when it is a math symbol latex2mathml knows (its unimath table: `\\alpha`, `\\leq` …) or
  one of COMMANDS (fractions, fonts, accents, spaces, functions); `\\begin`/`\\end` only with an environment
  of ENVIRONMENTS; any other is dropped, and a letter after a kept word is set apart by a space (`\\in\\x put`
  must not become `\\input`);
- a control symbol only from CONTROL_SYMBOLS; `\\{` and `\\}` as `\\lbrace`/`\\rbrace`, so every brace left is
  a group BibTeX and TeX both count, never after a backslash (a formula whose groups do not balance is escaped as
  text by bibtex.py);
- never two `^` in a row (TeX's `^^` notation spells any character: `^^5c` is a backslash), `%`, `#` and `$`
  as their escapes, control characters as spaces.
"""

from __future__ import annotations

import re

from latex2mathml import commands as l2m
from latex2mathml.symbols_parser import SYMBOLS

_WORD = re.compile(r"\\([^\W\d_]|@)+")  # what TeX may read as one name: letters, any script's, and @
_SYMBOL_NAMES = frozenset(s[1:] for s in SYMBOLS if re.fullmatch(r"\\[A-Za-z]+", s))
COMMANDS = _SYMBOL_NAMES | frozenset(f[1:] for f in (*l2m.FUNCTIONS, *l2m.LIMIT)) | frozenset((
    # layout
    "frac", "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom", "sqrt", "over", "atop", "choose", "above",
    "left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
    "Biggl", "Biggr", "bigm", "Bigm", "limits", "nolimits", "substack", "overset", "underset", "stackrel",
    "overbrace", "underbrace", "overline", "underline", "overrightarrow", "overleftarrow", "xrightarrow",
    "xleftarrow", "boxed", "not", "begin", "end", "displaystyle", "textstyle", "scriptstyle",
    "scriptscriptstyle", "phantom", "hphantom", "vphantom",
    # fonts and text
    "mathbb", "mathbf", "mathcal", "mathfrak", "mathit", "mathrm", "mathsf", "mathtt", "mathscr", "mathnormal",
    "boldsymbol", "bm", "pmb", "text", "textrm", "textit", "textbf", "textsf", "texttt", "textup", "textnormal",
    "textsc", "emph", "mbox", "operatorname",
    # accents (math and text) and letters
    "hat", "widehat", "tilde", "widetilde", "bar", "vec", "dot", "ddot", "dddot", "breve", "check", "acute",
    "grave", "mathring", "c", "v", "u", "H", "k", "r", "d", "b", "t", "i", "j", "l", "L", "o", "O", "ss", "ae",
    "AE", "oe", "OE", "aa", "AA",
    # spaces, dots, functions
    "quad", "qquad", "enspace", "thinspace", "negthinspace", "hspace", "cdots", "ldots", "vdots", "ddots", "dots",
    "det", "gcd", "Pr", "argmax", "argmin", "liminf", "limsup", "injlim", "projlim", "mod", "bmod", "pmod", "pod",
    "lbrace", "rbrace",
))
ENVIRONMENTS = frozenset(("matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix", "cases",
                          "array", "aligned", "alignedat", "gathered", "split"))
# \\ (a row), \{ \} (as \lbrace \rbrace), spaces, escaped specials, text accents, \| (a norm)
CONTROL_SYMBOLS = frozenset("\\{},;:!> |&%$#_'\"`~=.^")
_ENVIRONMENT = re.compile(r"\s*\{([A-Za-z]+\*?)\}")
_ESCAPED = {"%": "\\%", "#": "\\#", "$": "\\$"}
_BRACES = {"{": "\\lbrace", "}": "\\rbrace"}


def _is_letter(c: str) -> bool:
    return c.isalpha() or c == "@"


class _Writer:
    """The kept tokens, written so that TeX reads back exactly them: a space between a control word and a letter,
    never `^^`."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.after_word = False  # the last thing written is a control word

    def word(self, text: str) -> None:
        self.out.append(text)
        self.after_word = True

    def text(self, text: str) -> None:
        if self.after_word and _is_letter(text[0]):
            self.out.append(" ")
        if text[0] == "^" and self.out and self.out[-1].endswith("^"):
            text = text[1:]  # a second ^ would make TeX's ^^ notation
            if not text:
                return
        if text[0] in "{}" and self.out and self.out[-1].endswith("\\"):
            self.out.append(" ")  # `\\{` is a row and a group, but parsers that skip `\{` (bibtexparser) misread it
        self.out.append(text)
        self.after_word = False


def safe_formula(formula: str) -> str | None:
    """The formula with only allowed TeX (see the module's docstring); None when its groups do not balance."""
    w = _Writer()
    at = 0
    while at < len(formula):
        c = formula[at]
        if c == "\\":
            word = _WORD.match(formula, at)
            if word:
                at = _control_word(formula, word.group()[1:], word.end(), w)
                continue
            symbol = formula[at + 1:at + 2]
            if symbol in _BRACES:
                w.word(_BRACES[symbol])
            elif symbol and symbol in CONTROL_SYMBOLS:
                w.text("\\" + symbol)
            at += 2  # anything else (another control symbol, a lone backslash at the end) is dropped
            continue
        if not c.isprintable():
            w.text(" ")
        else:
            w.text(_ESCAPED.get(c, c))
        at += 1
    out = "".join(w.out)
    return out if _balanced(out) else None


def _control_word(formula: str, name: str, end: int, w: _Writer) -> int:
    """Write an allowed control word (an environment's name checked); return where reading goes on."""
    if name not in COMMANDS:
        return end
    if name in ("begin", "end"):
        environment = _ENVIRONMENT.match(formula, end)
        if not environment or environment[1] not in ENVIRONMENTS:
            return end  # the name in braces stays as text; without \begin it is only letters
        w.text(f"\\{name}{{{environment[1]}}}")
        return environment.end()
    w.word("\\" + name)
    return end


def _balanced(text: str) -> bool:
    """Every brace in a group (no escaped braces are left: they became \\lbrace and \\rbrace)."""
    depth = 0
    for c in text:
        depth += 1 if c == "{" else -1 if c == "}" else 0
        if depth < 0:
            return False
    return depth == 0
