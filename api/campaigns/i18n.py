"""The annotator page's strings through gettext catalogs.

Catalogs are ordinary gettext ``.po`` files: ``api/campaigns/locale/<lang>/LC_MESSAGES/label.po``
(English, German, French, Spanish, Portuguese, Japanese and Chinese ship; a catalog's header
``X-Language-Name`` is the language's own name, shown in the page's language menu). They are
compiled at import time by :func:`compile_po` — a small routine
using only the standard library that writes the GNU ``.mo`` layout in memory, read by
:class:`gettext.GNUTranslations` — so no ``msgfmt`` tool is needed and no ``.mo`` is committed.
Adding a language is adding a catalog folder; :func:`pick_language` chooses from ``?lang=``,
then ``Accept-Language``, then English.

Example:
    >>> tr = translations("en")
    >>> tr.gettext("Left")
    'Left'
    >>> pick_language("xx", "fr-CH, en;q=0.8")  # no catalog "xx"; French for fr-CH
    'fr'
    >>> pick_language(None, "sw-KE")  # no Swahili catalog: English
    'en'
"""

from __future__ import annotations

import ast
import gettext
import io
import re
import struct
from pathlib import Path

LOCALE = Path(__file__).resolve().parent / "locale"
DOMAIN = "label"
_LANG = re.compile(r"^[a-z]{2,3}(_[A-Z]{2})?$")


def parse_po(text: str) -> dict[str, str]:
    """``{msgid: msgstr}`` of a ``.po`` file (plain entries; comments and empty ids kept out
    except the header ``""``)."""
    out: dict[str, str] = {}
    key: str | None = None
    current: list[str] = []
    field = ""

    def flush() -> None:
        if key is not None and field == "msgstr":
            out[key] = "".join(current)

    msgid: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgid "):
            flush()
            key, field, msgid = None, "msgid", [ast.literal_eval(line[6:])]
            current = msgid
        elif line.startswith("msgstr "):
            key, field = "".join(msgid), "msgstr"
            current = [ast.literal_eval(line[7:])]
        elif line.startswith('"'):
            current.append(ast.literal_eval(line))
    flush()
    return out


def compile_po(entries: dict[str, str]) -> bytes:
    """The GNU ``.mo`` bytes of ``entries`` (ids sorted, no hash table)."""
    keys = sorted(entries)
    ids = [k.encode() for k in keys]
    strs = [(entries[k] or k).encode() if k else entries[k].encode() for k in keys]
    n = len(keys)
    start = 7 * 4 + 16 * n
    table_ids, table_strs, blob = [], [], b""
    for s in ids:
        table_ids.append((len(s), start + len(blob)))
        blob += s + b"\0"
    for s in strs:
        table_strs.append((len(s), start + len(blob)))
        blob += s + b"\0"
    head = struct.pack("<7I", 0x950412DE, 0, n, 7 * 4, 7 * 4 + 8 * n, 0, 0)
    tables = b"".join(struct.pack("<2I", *t) for t in table_ids + table_strs)
    return head + tables + blob


def _load() -> dict[str, gettext.GNUTranslations]:
    out = {}
    for po in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        lang = po.parent.parent.name
        out[lang] = gettext.GNUTranslations(io.BytesIO(compile_po(parse_po(po.read_text("utf-8")))))
    return out


CATALOGS = _load()  # read once at import, never on a request's event loop


def translations(lang: str) -> gettext.GNUTranslations:
    """The catalog of ``lang`` (English when there is none)."""
    return CATALOGS.get(lang) or CATALOGS["en"]


def languages() -> list[tuple[str, str]]:
    """``(code, own name)`` of every catalog, English first.

    >>> languages()[0]
    ('en', 'English')
    """
    named = [(code, tr.info().get("x-language-name", code)) for code, tr in CATALOGS.items()]
    return sorted(named, key=lambda x: (x[0] != "en", x[0]))


def pick_language(query: str | None, accept: str | None) -> str:
    """The first available of ``?lang=``, the ``Accept-Language`` choices, ``en``."""
    wanted = [query or ""]
    for part in (accept or "").split(","):
        tag = part.split(";")[0].strip().replace("-", "_")
        wanted += [tag, tag.split("_")[0]]
    for tag in wanted:
        if tag and _LANG.fullmatch(tag) and tag in CATALOGS:
            return tag
    return "en"
