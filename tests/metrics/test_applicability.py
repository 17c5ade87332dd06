"""The documented keyword rules (skills/metrics/rules.toml) decide these instructions."""

from __future__ import annotations

import pytest

from skills.metrics import get_metric, metric_names
from skills.metrics.applicability import RULES_FILE, rule_applies, rules

# instruction -> (color_shift, structure_distance, face_identity, text_rendering) applicable?
CASES = {
    "Remove the lamp post on the left.": (True, True, True, False),
    "Add a red hat to the man.": (True, True, True, False),
    "Make the man wear a blue scarf.": (True, True, True, False),
    'Add a banner that reads "GRAND OPENING".': (True, True, True, True),
    "Make the car blue.": (False, True, True, False),
    "Colourise this black and white photo.": (False, True, True, False),
    "Change the colour of the door to green.": (False, True, True, False),
    "Make it look like a sunset.": (False, True, True, False),
    "Turn the photo into a cartoon.": (False, True, False, False),
    "Show the house from a bird's-eye view.": (True, False, True, False),
    "Zoom out to show the whole street.": (True, False, True, False),
    "Move the cup to the right of the plate.": (True, False, True, False),
    "Replace the background with a snowy mountain range.": (False, False, True, False),
    "Replace the man with a different person.": (True, True, False, False),
    "Swap the faces of the two people.": (True, True, False, False),
    "Remove the text 'SALE' from the window.": (True, True, True, False),
    "Replace 'dog' with 'cat'.": (True, True, True, False),
}


@pytest.mark.parametrize(("instruction", "expected"), list(CASES.items()))
def test_rule_table(instruction: str, expected: tuple[bool, ...]) -> None:
    got = tuple(get_metric(n).applicability(instruction)[0] for n in metric_names())
    assert got == expected, dict(zip(metric_names(), got, strict=True))


def test_every_metric_has_rules_and_reasons() -> None:
    assert RULES_FILE.is_file()
    for name in metric_names():
        assert name in rules()
        for reason, patterns in rules()[name]["not_applicable"]:
            assert reason and patterns
    assert rule_applies("unknown_metric", "anything") == (True, None)
