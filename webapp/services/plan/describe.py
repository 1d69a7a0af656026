"""A search's requests in words: what is searched, for which words, at which tier (a debug log line, and the
explain command's headings)."""

from __future__ import annotations

from webapp.domain import SearchParams
from webapp.services.plan.meaning import MeaningRequest, Missing, Nearest, WordRanks
from webapp.services.plan.requests import Count, Facets, Page, Request, Spelling
from webapp.services.plan.words import Text, Word


def describe(request: Request | MeaningRequest) -> str:
    match request:
        case Page():
            return _page(request)
        case Count():
            return (f"count: the words as typed, in their own language, up to {request.limit} papers"
                    + _filters(request.params) + ("\n" + _words(request.text) if request.text else ""))
        case Spelling():
            runs = "".join(f"; how many papers have {run} and each of {', '.join(names)}" for run, names in request.zh)
            return f"spelling: suggestions for, and whether any paper contains, {', '.join(request.words)}{runs}"
        case Facets():
            how = "exact" if request.probability >= 1 else f"on a random sample (probability {request.probability:g})"
            return f"facets of the {request.page.tier} page, {how}"
        case WordRanks() | Nearest() | Missing():
            return request.describe()
    raise TypeError(f"not a request of a plan: {request!r}")


def _page(page: Page) -> str:
    p = page.params
    lines = [f"{page.tier}: sort {p.sort}, page {p.page} x {p.size}" + _filters(p)
             + (", hits only (facets apart)" if page.hits_only else "")]
    if page.text:
        lines.append(_words(page.text))
    lines += [f'  phrase "{ph}"' for ph in page.phrases]
    lines += [f"  field {c.to_string()}" for c in page.fields]
    lines += [f"  excluded {c.to_string()}" for c in page.excluded]
    if page.proximity:
        lines.append(f"  closeness of {' '.join(page.proximity)} rewarded")
    if page.all_words:
        lines.append("  ranked first: papers with every word" + (", then every word with typos forgiven"
                                                                  if page.all_words_typos else ""))
    if page.highlight:
        lines.append("  highlighted: the words, phrases and fields" + (
            ", and the concepts' other forms" if page.highlight.forms else ""))
    return "\n".join(lines)


def _words(text: Text) -> str:
    lines = [f"  words ({text.required} of {len(text.words)} required{', relaxed' if text.relaxed else ''}):"]
    lines += [f"    {_word(w, text.relaxed)}" for w in text.words]
    if text.other_language:
        lines.append(f"  or, for papers in {text.other_language}: only the concepts "
                     + ", ".join("+".join(c.ids) for c in text.groups))
    return "\n".join(lines)


def _word(w: Word, relaxed: bool) -> str:
    out = f"{w.index}: {w.text!r}" + (f" ~typos ({w.typos})" if w.typos else "")
    if w.concept:
        together = f"; words {w.concept.first}-{w.concept.last} one clause, the concept once (D-224)"
        out += (f" or concept {'+'.join(w.concept.ids)} (tag, {len(w.concept.en)} en / {len(w.concept.zh)} zh forms"
                + ((f", share {w.share:.2f}" if relaxed else together) if w.share != 1 else "") + ")")
    for c in w.inside:
        out += f" or its part {c.typed!r} = concept {'+'.join(c.ids)}"
    if w.glosses:
        out += (" or, in English papers, its words by the dictionary (CC-CEDICT): "
                + "; ".join(f"{zh} = {' | '.join(en)}" for zh, en in w.glosses))
    return out


def _filters(p: SearchParams) -> str:
    out = [f"area={a}" for a in p.areas] + [f"subarea={s}" for s in p.subareas]
    out += [f"{k}={v}" for k, vs in p.filters.items() for v in vs]
    out += [f"{k}={v}" for k, v in p.ranges.items()]
    return ", filters " + ", ".join(out) if out else ""
