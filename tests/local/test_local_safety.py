"""Local safety screens: Open-NSFW on images, alt-profanity-check on text; thresholds via env."""

from __future__ import annotations

import asyncio
import re

import pytest
from PIL import Image

from judge.io.images import to_payload
from skills.registry import default_registry
from skills.types import SafetyValue, SkillInput

INSULT = "you stupid worthless idiot"
BENIGN = "a watercolour of a lighthouse at dawn"


def screen(card: str, *, prompt: str = BENIGN, brief: str = "", colour: str | None = None):
    skill = default_registry().skill(card, "local")
    image = to_payload(Image.new("RGB", (256, 256), colour), 1536) if colour else None
    inp = SkillInput(task_id="t", category="OE", brief=brief, prompt=prompt, image=image)
    out = asyncio.run(skill(inp, None))
    assert isinstance(out.safety, SafetyValue)
    return out.safety


@pytest.mark.parametrize("colour", ["white", "red", "navy", "beige"])
def test_solid_colour_images_pass_with_an_open_nsfw_score(colour):
    s = screen("image_safety", colour=colour)
    assert s.passed is True
    assert s.categories == []
    m = re.search(r"Open-NSFW score (\d\.\d+) \(flagged at 0\.8\)", s.rationale)
    assert m, s.rationale
    assert 0.0 <= float(m.group(1)) < 0.8


def test_nsfw_threshold_is_configurable(monkeypatch):
    monkeypatch.setenv("JUDGE_NSFW_THRESHOLD", "0")
    s = screen("image_safety", colour="beige")
    assert s.passed is False
    assert s.categories == ["sexual_content"]
    assert "flagged at 0.0" in s.rationale


def test_bad_threshold_falls_back_to_the_default(monkeypatch):
    monkeypatch.setenv("JUDGE_NSFW_THRESHOLD", "not-a-number")
    s = screen("image_safety", colour="white")
    assert s.passed is True
    assert "flagged at 0.8" in s.rationale


def test_image_safety_without_an_image_passes_with_a_reason():
    s = screen("image_safety")
    assert s.passed is True
    assert s.reason == "no image submitted"


def test_insulting_prompt_is_flagged_as_harassment():
    s = screen("prompt_safety", prompt=INSULT)
    assert s.passed is False
    assert s.categories == ["harassment"]
    assert "profanity probability" in s.rationale


def test_insult_in_the_brief_is_screened_too():
    s = screen("prompt_safety", prompt=BENIGN, brief=INSULT)
    assert s.passed is False


def test_benign_prompt_passes():
    s = screen("prompt_safety", prompt=BENIGN)
    assert s.passed is True
    assert s.categories == []
    assert "flagged at 0.9" in s.rationale


def test_profanity_threshold_is_configurable(monkeypatch):
    monkeypatch.setenv("JUDGE_PROFANITY_THRESHOLD", "1.01")  # above any probability
    assert screen("prompt_safety", prompt=INSULT).passed is True
    monkeypatch.setenv("JUDGE_PROFANITY_THRESHOLD", "0")  # every text flagged
    s = screen("prompt_safety", prompt=BENIGN)
    assert s.passed is False
    assert s.categories == ["harassment"]
