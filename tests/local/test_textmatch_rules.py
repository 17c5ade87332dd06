"""Quoted text, fuzzy matching and the prompt-side rules of the local objective kind."""

from __future__ import annotations

import pytest

from skills.local.prompt_rules import MATCH, decide_prompt
from skills.local.textmatch import contains_fuzzy, normalise, quoted

# ------------------------------------------------------------------------------- quoted()


@pytest.mark.parametrize(
    "check",
    [
        "The banner reads 'GRAND OPENING'.",
        'The banner reads "GRAND OPENING".',
        "The banner reads \u201cGRAND OPENING\u201d.",
        "The banner reads \u2018GRAND OPENING\u2019.",
        "The banner reads \u00abGRAND OPENING\u00bb.",
    ],
    ids=["single", "double", "curly-double", "curly-single", "guillemets"],
)
def test_quoted_recognises_every_quote_style(check):
    assert quoted(check) == (["GRAND OPENING"], "all")


def test_quoted_several_strings_must_all_appear():
    assert quoted("The sign reads 'OPEN' and the door reads 'PUSH'.") == (
        ["OPEN", "PUSH"],
        "all",
    )


@pytest.mark.parametrize(
    "check",
    [
        "Text below panel 1 reads 'Panel 1: 6:00 AM' or caption reads '6:00 AM'.",
        'The caption reads "Panel 1: 6:00 AM", or "6:00 AM".',
        "The caption reads \u201cPanel 1: 6:00 AM\u201d or \u201c6:00 AM\u201d.",
    ],
)
def test_quoted_alternatives_joined_by_or_mean_any(check):
    assert quoted(check) == (["Panel 1: 6:00 AM", "6:00 AM"], "any")


def test_quoted_guillemet_alternatives_mean_any():
    # «…» are accepted as quotes, so «A» or «B» must be an alternative like "A" or "B".
    assert quoted("The sign shows either \u00abOPEN\u00bb or \u00abCLOSED\u00bb.") == (
        ["OPEN", "CLOSED"],
        "any",
    )


@pytest.mark.parametrize(
    "check",
    ["The sky is blue", "The cat's toy isn't red.", "The dog's collar is the owner's."],
)
def test_apostrophes_and_plain_checks_quote_nothing(check):
    assert quoted(check) == ([], "all")


# ----------------------------------------------------------------------- contains_fuzzy()


def test_normalise_folds_case_accents_and_punctuation():
    assert normalise("  Caf\u00e9 -- OPEN!  6:00 AM ") == "cafe open 6 00 am"


def test_contains_fuzzy_exact_substring_is_one():
    assert contains_fuzzy("Welcome to the GRAND OPENING today", "grand opening") == 1.0
    # punctuation and spacing do not matter
    assert contains_fuzzy("PANEL 1 6:00 AM  wake up", "Panel 1: 6:00 AM") == 1.0


@pytest.mark.parametrize("ocr", ["GRAMD OPENING", "GRAND 0PENING", "GRAND OPENlNG", "GRANDOPENING"])
def test_contains_fuzzy_tolerates_one_ocr_typo(ocr):
    assert contains_fuzzy(f"WELCOME TO THE {ocr} TODAY", "Grand Opening") >= MATCH


def test_contains_fuzzy_unrelated_text_scores_low():
    assert contains_fuzzy("the quick brown fox jumps", "GRAND OPENING") < 0.5
    assert contains_fuzzy("", "GRAND OPENING") == 0.0
    assert contains_fuzzy("anything", "!!") == 0.0


# ------------------------------------------------------------------ decide_prompt(): text


def test_quoted_text_present_in_the_prompt():
    ok, why = decide_prompt(
        "The prompt includes the text 'GRAND OPENING'.",
        "A shop front with a banner reading Grand Opening",
        "text",
    )
    assert ok is True
    assert "GRAND OPENING" in why


def test_quoted_text_absent_from_the_prompt():
    ok, why = decide_prompt(
        "The prompt includes the text 'GRAND OPENING'.", "A shop front with a banner", "text"
    )
    assert ok is False
    assert "GRAND OPENING" in why


def test_quoted_alternatives_need_only_one():
    ok, _ = decide_prompt(
        "The prompt quotes 'Panel 1: 6:00 AM' or '6:00 AM'.", "a clock showing 6:00 AM", "text"
    )
    assert ok is True


# -------------------------------------------------------------- decide_prompt(): quantity


@pytest.mark.parametrize(
    ("check", "prompt"),
    [
        ("The prompt asks for exactly four panels.", "A comic with 4 panels in a row"),
        ("The prompt asks for exactly 4 panels.", "A comic with four panels in a row"),
        ("The prompt asks for three cats.", "three cats asleep on a sofa"),
    ],
)
def test_quantity_matching_count_is_true(check, prompt):
    ok, why = decide_prompt(check, prompt, "quantity")
    assert ok is True, why


def test_quantity_different_count_is_false_and_names_it():
    ok, why = decide_prompt(
        "The prompt asks for exactly four panels.", "A comic strip in three panels", "quantity"
    )
    assert ok is False
    assert "3" in why and "4" in why


def test_quantity_without_a_count_in_the_prompt_is_false():
    ok, why = decide_prompt(
        "The prompt asks for exactly four panels.", "A comic strip about a cat", "quantity"
    )
    assert ok is False
    assert "panel" in why


@pytest.mark.parametrize(
    "check",
    [
        "The prompt says panel 1 shows the hero asleep.",
        "Panel 1 shows the hero asleep.",
        "The prompt describes panel 2 showing the alarm ringing.",
    ],
)
def test_ordinal_panel_number_is_not_a_count(check):
    # "panel 1 shows ..." labels a panel; it says nothing about how many of anything there are.
    prompt = "A comic in four panels: panel 1 shows the hero asleep, panel 2 the alarm ringing"
    ok, why = decide_prompt(check, prompt, "quantity")
    assert ok is None, why


def test_ordinal_in_the_prompt_is_not_a_count():
    ok, why = decide_prompt(
        "The prompt asks for exactly two cats.",
        "Three panels. Panel 1: a mouse steals cheese. Panel 2: cats chase the mouse. "
        "Panel 3: the mouse escapes.",
        "quantity",
    )
    assert ok is not True, why


# ------------------------------------------------------ decide_prompt(): attribute binding


def test_colour_bound_to_its_object_is_true():
    ok, why = decide_prompt(
        "The prompt makes the alarm clock red.", "a red alarm clock on a desk", "attribute_binding"
    )
    assert ok is True
    assert "red" in why


def test_colour_missing_from_the_prompt_is_false():
    ok, why = decide_prompt(
        "The prompt makes the alarm clock red.", "a blue alarm clock", "attribute_binding"
    )
    assert ok is False
    assert "red" in why


def test_colour_elsewhere_in_the_prompt_is_undecided():
    prompt = (
        "an alarm clock on the bedside table beside a stack of old books while outside "
        "the window a red bus drives past"
    )
    ok, why = decide_prompt("The prompt makes the alarm clock red.", prompt, "attribute_binding")
    assert ok is None, why


def test_colour_of_a_neighbouring_object_is_not_bound():
    # the clock is explicitly blue; the red belongs to the apple next to it
    ok, why = decide_prompt(
        "The prompt makes the alarm clock red.",
        "a blue alarm clock beside a red apple",
        "attribute_binding",
    )
    assert ok is not True, why


# ---------------------------------------------------------- decide_prompt(): undecidable


@pytest.mark.parametrize(
    ("check", "primitive"),
    [
        ("The prompt places the cat to the left of the dog.", "spatial_relation"),
        ("The prompt conveys a melancholic mood.", "abstract_intent"),
        ("The prompt says the room has no windows.", "semantic_negation"),
        ("The prompt makes the alarm clock red.", "quantity"),
        ("The prompt asks for exactly four panels.", "attribute_binding"),
    ],
)
def test_undecidable_primitives_are_none(check, primitive):
    prompt = "four panels; a cat left of a dog, a red alarm clock, a room without windows"
    ok, why = decide_prompt(check, prompt, primitive)
    assert ok is None
    assert "not decidable" in why
