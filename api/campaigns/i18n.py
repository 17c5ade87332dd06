"""The annotator page's strings through gettext catalogs, read and negotiated with Babel.

Catalogs are ordinary gettext ``.po`` files: ``api/campaigns/locale/<lang>/LC_MESSAGES/label.po``
(English, German, French, Spanish, Portuguese, Japanese and Chinese ship). They are read with
Babel (:func:`babel.messages.pofile.read_po`) and compiled in memory to the ``.mo`` layout
(:func:`babel.messages.mofile.write_mo`) once at import, so no ``msgfmt`` tool is needed and no
``.mo`` is committed; each language's own name in the page's menu comes from Babel's CLDR data.
Adding a language is adding a catalog folder.

:func:`pick_language` chooses from ``?lang=``, then the ``Accept-Language`` header, then
English. The header is read as RFC 9110 says: each language range with its quality ``q``
(default 1; ``q=0`` means "not this one"), tried from the highest ``q`` down (ties in the
header's order); a regional range falls back to its language (``fr-CA`` → ``fr``) and ``*``
stands for any catalog not named otherwise. A malformed entry is skipped, never an error.

Example:
    >>> tr = translations("en")
    >>> tr.gettext("Left")
    'Left'
    >>> pick_language("xx", "fr-CH, en;q=0.8")  # no catalog "xx"; French for fr-CH
    'fr'
    >>> pick_language(None, "de;q=0.1, fr;q=0.9")  # the higher quality wins
    'fr'
    >>> pick_language(None, "sw-KE")  # no Swahili catalog: English
    'en'
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from babel import Locale
from babel.core import negotiate_locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALE = Path(__file__).resolve().parent / "locale"
DOMAIN = "label"
_LANG = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")
#: a language range (RFC 4647: ``1*8ALPHA *("-" 1*8alphanum)``, or ``*``)
_RANGE = re.compile(r"^(\*|[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)$")
#: a quality value (RFC 9110: 0 to 1, at most three decimals)
_QVALUE = re.compile(r"^(0(\.\d{0,3})?|1(\.0{0,3})?)$")
#: header entries read at most (a browser sends a handful; the rest is ignored)
MAX_RANGES = 32


def read_catalog(path: Path) -> Catalog:
    """The Babel catalog of one ``.po`` file."""
    with path.open("rb") as f:
        return read_po(f, domain=DOMAIN)


def parse_po(text: str) -> dict[str, str]:
    """``{msgid: msgstr}`` of a ``.po`` file's text (plural and context entries keep their
    first form; the header is left out).

    >>> parse_po('msgid "Left"\\nmsgstr "Links"\\n')
    {'Left': 'Links'}
    """
    catalog = read_po(io.StringIO(text), domain=DOMAIN)
    return {_singular(m.id): _singular(m.string) for m in catalog if m.id}


def _singular(text: str | tuple[str, ...] | list[str] | None) -> str:
    """A message's text, or its first (singular) form when it has plural forms."""
    if text is None:
        return ""
    return text if isinstance(text, str) else text[0]


def compile_catalog(catalog: Catalog) -> Translations:
    """The catalog as gettext translations (compiled to the ``.mo`` layout in memory)."""
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def _load() -> dict[str, Translations]:
    return {
        po.parent.parent.name: compile_catalog(read_catalog(po))
        for po in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    }


CATALOGS = _load()  # read once at import, never on a request's event loop


def translations(lang: str) -> Translations:
    """The catalog of ``lang`` (English when there is none)."""
    return CATALOGS.get(lang) or CATALOGS["en"]


def own_name(code: str) -> str:
    """A language's name in that language (CLDR, through Babel), capitalised for a menu.

    >>> own_name("fr"), own_name("ja"), own_name("pt_BR")
    ('Français', '日本語', 'Português (Brasil)')
    """
    try:
        name = Locale.parse(code).get_display_name(code) or code
    except (ValueError, LookupError):  # a code CLDR does not know: shown as it is
        return code
    return name[:1].upper() + name[1:]


def languages() -> list[tuple[str, str]]:
    """``(code, own name)`` of every catalog, English first.

    >>> languages()[0]
    ('en', 'English')
    """
    return list(LANGUAGES)


# CLDR's names read once at import (Babel loads its locale data from disk), not on a request
LANGUAGES = tuple(
    sorted(((code, own_name(code)) for code in CATALOGS), key=lambda x: (x[0] != "en", x[0]))
)


def accepted(header: str | None) -> list[tuple[str, float]]:
    """The ``Accept-Language`` header's language ranges with their qualities, best first (ties
    in the header's order); malformed entries are skipped.

    >>> accepted("de;q=0.1, fr-CA;q=0.9, en;q=oops, *;q=0")
    [('fr-CA', 0.9), ('de', 0.1), ('*', 0.0)]
    """
    ranges: list[tuple[str, float]] = []
    for part in (header or "").split(",")[:MAX_RANGES]:
        tag, *params = (p.strip() for p in part.split(";"))
        if not _RANGE.fullmatch(tag):
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                q = float(value) if _QVALUE.fullmatch(value) else -1.0
        if q >= 0:
            ranges.append((tag, q))
    return sorted(ranges, key=lambda r: -r[1])


def pick_language(query: str | None, accept: str | None) -> str:
    """The first available of ``?lang=``, the ``Accept-Language`` choices, ``en``."""
    if query and _LANG.fullmatch(query) and query in CATALOGS:
        return query
    ranges = accepted(accept)
    refused = {tag.lower().replace("-", "_") for tag, q in ranges if q == 0}
    available = [code for code in CATALOGS if code.lower() not in refused]
    for tag, q in ranges:
        if q == 0:
            break  # best first: the rest are refused too
        if tag == "*":  # any catalog not named in the header: English first
            named = {t.lower().replace("-", "_").split("_")[0] for t, _ in ranges}
            rest = [code for code, _ in languages() if code in available and code not in named]
            if rest:
                return rest[0]
            continue
        found = negotiate_locale([tag.replace("-", "_")], available, sep="_", aliases={})
        if found:  # Babel matches case-insensitively and may return the header's spelling
            return {code.lower(): code for code in available}[found.lower()]
    return "en"
