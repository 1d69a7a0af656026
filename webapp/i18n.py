"""UI language: ?lang= (on a page, remembered in a cookie), else the cookie, else Accept-Language; default English.

Every visible string lives in translations/<lang>.json; templates call t("key", name=value).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

from flask import Flask, Response, current_app, g, request, url_for

from webapp.site import absolute

LANGUAGES = ("en", "zh")
DEFAULT = "en"
COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
_DIR = Path(__file__).resolve().parent / "translations"


@lru_cache(maxsize=len(LANGUAGES))
def catalog(lang: str) -> dict[str, str]:
    return json.loads((_DIR / f"{lang}.json").read_text(encoding="utf-8"))


def translate(lang: str, key: str, **values: object) -> str:
    """The string for key in lang (English, then the key itself, as fallbacks), formatted with values."""
    text = catalog(lang).get(key) or catalog(DEFAULT).get(key) or key
    return text.format(**values) if values else text


def translate_count(lang: str, key: str, count: int, **values: object) -> str:
    """Plural-aware: uses "<key>.one" for a count of 1 when the catalogue has it (Chinese does not need it)."""
    if count == 1 and f"{key}.one" in catalog(lang):
        key = f"{key}.one"
    return translate(lang, key, count=count, **values)


def requested_lang() -> str | None:
    """A valid ?lang= in this request, if any (kept in generated links so shared URLs keep the language)."""
    value = request.args.get("lang", "")
    return value if value in LANGUAGES else None


def negotiate() -> str:
    explicit = requested_lang()
    if explicit:
        return explicit
    cookie = request.cookies.get(COOKIE, "")
    if cookie in LANGUAGES:
        return cookie
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT) or DEFAULT


def current() -> str:
    return getattr(g, "lang", DEFAULT)


def pick(lang: str, en: str, zh: str | None) -> str:
    """The Chinese form of a label on Chinese pages when there is one, else the English."""
    return zh if lang == "zh" and zh else en


def t(key: str, **values: object) -> str:
    return translate(current(), key, **values)


def init_app(app: Flask) -> None:
    for lang in LANGUAGES:  # fail at start-up, not on the first request, if a catalogue is broken
        catalog(lang)

    @app.before_request
    def _pick_language() -> None:
        g.lang = negotiate()

    @app.after_request
    def _remember_language(response: Response) -> Response:
        if request.endpoint == "static":  # the same file in every language: one copy in shared caches
            return response
        explicit = requested_lang()
        # Remembered from pages a browser shows, never from an API answer, feed, export or robots.txt: those stay
        # in shared caches, and a page that sets the cookie is made private by webapp/caching.py (issue 53.8,
        # DECISIONS.md D-190).
        if explicit and request.cookies.get(COOKIE) != explicit and response.mimetype == "text/html":
            # Secure when the request came over HTTPS (the proxy's X-Forwarded-Proto, trusted) or the site's public
            # address is https: the cookie is then never sent in the clear (issue 45.11).
            secure = request.is_secure or current_app.config.get("PUBLIC_URL", "").startswith("https:")
            response.set_cookie(COOKIE, explicit, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True,
                                secure=secure)
        # Pages differ by language, so shared caches must key on what chose it.
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response

    @app.context_processor
    def _i18n_context() -> dict:
        lang = current()
        return {
            "lang": lang,
            "t": t,
            "tn": lambda key, count, **v: translate_count(lang, key, count, **v),
            "other_lang": "zh" if lang == "en" else "en",
            "explicit_lang": requested_lang(),
            "url_with_lang": url_with_lang,
            "alternates": alternates,
            "pick": lambda en, zh: pick(lang, en, zh),
        }


def alternates() -> list[tuple[str, str]]:
    """(hreflang, absolute URL) of this page in each language and, as x-default, without ?lang= (the language
    then negotiated): the `<link rel="alternate">` set that tells search engines the pages are translations of
    one another. None for a request that matched no route (an error page)."""
    if request.url_rule is None or request.endpoint is None:
        return []
    pairs = _page_args()
    path = url_for(request.endpoint, **(request.view_args or {}))
    default = absolute(f"{path}?{urlencode(pairs)}" if pairs else path)
    return [*((lang, absolute(url_with_lang(lang))) for lang in LANGUAGES), ("x-default", default)]


IGNORED_ARGS = "ignored_args"  # g's (parameter, value) pairs a page leaves out of its links


def _page_args() -> list[tuple[str, str]]:
    """The request's parameters but lang, without the filter values no paper has (a page sets g.ignored_args from
    views/facets.py unknown_filters: DECISIONS.md D-187), so a URL full of junk is not copied into each link."""
    ignored = g.get(IGNORED_ARGS, frozenset())
    return [(k, v) for k, v in request.args.items(multi=True) if k != "lang" and (k, v) not in ignored]


def url_with_lang(lang: str) -> str:
    """This page's URL with every other parameter kept, in another language. The path is built by the app
    from the route the request matched, never copied from the request: `/%5Cevil.example` would otherwise
    give `href="/\\evil.example?lang=zh"`, which browsers read as another site. A request that matched no
    route (an error page) links to the home page."""
    if request.url_rule is None or request.endpoint is None:
        return url_for("ui.search", lang=lang)
    pairs = _page_args()
    return f"{url_for(request.endpoint, **(request.view_args or {}))}?{urlencode([*pairs, ('lang', lang)])}"
