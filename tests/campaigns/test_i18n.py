"""The annotator page's catalogs: at least five languages besides English, each translating
every English string with the same placeholders, and the language picked from ``?lang=``,
then the browser's ``Accept-Language``."""

from __future__ import annotations

import re

from api.campaigns.i18n import CATALOGS, LOCALE, languages, parse_po, pick_language

PLACEHOLDER = re.compile(r"\{\w+\}")


def test_every_catalog_translates_every_string() -> None:
    english = parse_po((LOCALE / "en/LC_MESSAGES/label.po").read_text("utf-8"))
    others = [code for code in CATALOGS if code != "en"]
    assert len(others) >= 5
    for code in others:
        entries = parse_po((LOCALE / code / "LC_MESSAGES/label.po").read_text("utf-8"))
        for msgid in english:
            if not msgid:
                continue
            assert entries.get(msgid), (code, msgid)
            found = set(PLACEHOLDER.findall(entries[msgid]))
            assert found == set(PLACEHOLDER.findall(msgid)), (code, msgid)
    names = dict(languages())
    assert names["de"] == "Deutsch" and names["ja"] == "日本語" and languages()[0][0] == "en"


def test_the_language_comes_from_the_query_then_the_browser() -> None:
    assert pick_language(None, "pt-BR,pt;q=0.9,en;q=0.5") == "pt"
    assert pick_language("zh", "de") == "zh"
    assert pick_language("xx", "es-MX") == "es"
    assert pick_language(None, "sv-SE") == "en"
