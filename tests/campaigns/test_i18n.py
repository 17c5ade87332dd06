"""The annotator page's catalogs: at least five languages besides English, each translating
every English string with the same placeholders, and the language picked from ``?lang=``,
then the browser's ``Accept-Language`` (its qualities honoured, regional ranges falling back
to their language, ``*`` and ``q=0`` as RFC 9110 says, malformed headers harmless)."""

from __future__ import annotations

import re

import pytest

from api.campaigns.i18n import (
    CATALOGS,
    LOCALE,
    accepted,
    languages,
    parse_po,
    pick_language,
    translations,
)

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


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de;q=0.1, fr;q=0.9", "fr"),  # quality, not order
        ("fr;q=0.9, de;q=0.9", "fr"),  # ties keep the header's order
        ("fr-CA", "fr"),  # a region falls back to its language
        ("zh-Hant-TW;q=0.8, ja;q=0.5", "zh"),
        ("FR-ca", "fr"),  # ranges are case-insensitive
        ("fr;q=0, de;q=0.2", "de"),  # q=0: not this one
        ("fr;q=0", "en"),
        ("sv;q=0.9, *;q=0.5", "en"),  # any language: English first
        ("en;q=0, *", "de"),  # any language but English: the first other catalog
        ("*;q=0.9, es;q=0.5", "en"),  # es is ranked below "any other language"
        ("es;q=0.5, *;q=0", "es"),
        ("de;q=1.0, fr;q=1.001", "de"),  # q above 1: that entry is malformed, skipped
        ("de;q=abc, ja", "ja"),
        ("ja;level=1;q=0.4, pt;q=0.3", "ja"),  # other parameters are ignored
    ],
)
def test_accept_language_is_negotiated(header: str, expected: str) -> None:
    assert pick_language(None, header) == expected


@pytest.mark.parametrize(
    "header",
    [
        "",
        ";;;",
        ",,,",
        "q=0.5",
        "de;q=",
        "de;q=0.5;q",
        "=",
        "*;q=x",
        "d e",
        "x" * 10_000,
        "de-" + "a" * 40,
        ", ".join(["xx"] * 5000) + ", fr",
        "\u00e9\u00e8, \x00de",
    ],
)
def test_a_malformed_header_falls_back_without_an_error(header: str) -> None:
    assert pick_language(None, header) in CATALOGS


def test_only_the_first_ranges_of_a_long_header_are_read() -> None:
    assert len(accepted(", ".join(["de"] * 5000))) == 32
    assert pick_language(None, ", ".join(["xx"] * 40) + ", fr") == "en"


def test_the_query_wins_and_a_bad_query_is_ignored() -> None:
    assert pick_language("ja", "de;q=1") == "ja"
    assert pick_language("../etc", "de") == "de"
    assert pick_language("DE", "fr") == "fr"


def test_catalogs_translate_through_babel() -> None:
    tr = translations("de")
    assert tr.gettext("Left") == "Links"
    assert tr.gettext("a string no catalog has") == "a string no catalog has"
    assert translations("xx") is CATALOGS["en"]
    assert dict(languages()) == {
        "en": "English", "de": "Deutsch", "es": "Español", "fr": "Français",
        "ja": "日本語", "pt": "Português", "zh": "中文",
    }  # fmt: skip
