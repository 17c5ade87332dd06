"""The participant page in real headless Chromium: a participant enters a code, writes
prompts (emoji, RTL, CJK, several lines) for several tasks, leaves and comes back, submits
by keyboard only, and the admin export holds exactly what was typed."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.api.conftest import LiveService
from tests.api.study_helpers import study_body

pytestmark = pytest.mark.browser

PROMPTS = {
    "oe_1": "A harbour at dusk 🌅⛵ with two fishing boats 👨‍👩‍👧",
    "co_2": "مرفأ عند الغسق\nשני סירות דייגים, lights on the water",
    "oe_3": "黄昏的港口，两艘渔船。夕暮れの港 — 저녁 항구",
    "im_1": '  Blue flat card, 3:2, no text — "exactly" <this> & that  ',
}


def export(admin: httpx.Client, study: str, history: bool = False) -> list[dict]:
    r = admin.get(f"/v1/studies/{study}/prompts", params={"history": str(history).lower()})
    assert r.status_code == 200, r.text
    return [json.loads(line) for line in r.text.splitlines()]


def enter_code(page: Page, base: str, study: str, code: str) -> None:
    page.goto(f"{base}/ui/studies/{study}")
    page.get_by_label("Participant code").fill(f"  {code.lower()} ")
    page.get_by_label("Participant code").press("Enter")


@pytest.mark.slow
def test_a_participant_writes_resumes_and_the_export_is_intact(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    body = study_body(max_prompt_chars=120)
    made = admin.post("/v1/studies", json=body)
    assert made.status_code == 201, made.text
    study, code = body["id"], made.json()["participants"][0]
    base = ui_service.base_url

    response = page.goto(f"{base}/ui/studies/{study}")
    assert response is not None
    assert "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.locator("h1")).to_have_text("Harbour study <i>draft</i>")  # shown, not parsed
    enter_code(page, base, study, code)

    # task 1: mouse-free but ordinary: fill and click
    expect(page.locator("#progress")).to_contain_text("Task 1 of 4")
    brief = page.get_by_test_id("brief")
    expect(brief).to_contain_text("<b>not bold</b> & {{ not jinja }}")
    assert brief.locator("b").count() == 0
    page.get_by_label("Your prompt").fill(PROMPTS["oe_1"])
    page.get_by_role("button", name="Submit prompt").click()
    expect(page.get_by_role("status")).to_contain_text("task 1 was saved")

    # task 2: keyboard only — Ctrl+Enter in the text box
    expect(page.locator("#progress")).to_contain_text("Task 2 of 4")
    box = page.get_by_label("Your prompt")
    expect(box).to_be_focused()
    page.keyboard.insert_text(PROMPTS["co_2"])
    page.keyboard.press("Control+Enter")
    expect(page.locator("#progress")).to_contain_text("Task 3 of 4")

    # a reload resumes at task 3; so does a new browser session with the code typed again
    page.reload()
    expect(page.locator("#progress")).to_contain_text("Task 3 of 4")
    page.context.clear_cookies()
    enter_code(page, base, study, code)
    expect(page.locator("#progress")).to_contain_text("Task 3 of 4")
    expect(page.locator("#progress")).to_contain_text("2 answered")

    # task 3: keyboard only — Tab to the button, Enter
    page.get_by_label("Your prompt").fill(PROMPTS["oe_3"])
    page.get_by_label("Your prompt").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Submit prompt")).to_be_focused()
    page.keyboard.press("Enter")

    # task 4 (IM): the target image is served and shown; an oversized prompt is refused kindly
    expect(page.locator("#progress")).to_contain_text("Task 4 of 4")
    image = page.get_by_alt_text("Target image", exact=False)
    expect(image).to_be_visible()
    assert image.evaluate("img => img.complete && img.naturalWidth") == 48
    too_long = "ß" * 121
    page.get_by_label("Your prompt").fill(too_long)
    expect(page.locator("[data-counter-for=prompt]")).to_contain_text("121 / 120")
    page.get_by_role("button", name="Submit prompt").click()
    expect(page.get_by_role("alert")).to_contain_text("the limit is 120")
    expect(page.get_by_label("Your prompt")).to_have_value(too_long)
    page.get_by_label("Your prompt").fill(PROMPTS["im_1"])
    page.get_by_role("button", name="Submit prompt").click()
    expect(page.locator("#done")).to_contain_text("answered all 4 tasks")

    rows = export(admin, study)
    assert [r["task_id"] for r in rows] == ["oe_1", "co_2", "oe_3", "im_1"]
    assert {r["task_id"]: r["prompt"] for r in rows} == PROMPTS
    assert {r["participant"] for r in rows} == {code}

    # revising task 2 shows the stored text and keeps the earlier version in the history
    page.get_by_role("link", name="Task 2", exact=False).click()
    expect(page.get_by_label("Your prompt")).to_have_value(PROMPTS["co_2"])
    page.get_by_label("Your prompt").fill(PROMPTS["co_2"] + " ✓")
    page.get_by_role("button", name="Save changes").click()
    expect(page.locator("#done")).to_be_visible()
    latest = {r["task_id"]: r["prompt"] for r in export(admin, study)}
    assert latest == {**PROMPTS, "co_2": PROMPTS["co_2"] + " ✓"}
    versions = [r["prompt"] for r in export(admin, study, history=True) if r["task_id"] == "co_2"]
    assert versions == [PROMPTS["co_2"], PROMPTS["co_2"] + " ✓"]
    # no script error or CSP violation; the one refused (400) submission is the only failure
    errors = page.console_errors  # type: ignore[attr-defined]
    assert [e for e in errors if "status of 400" not in e] == [], errors


def test_a_wrong_code_and_an_unknown_study_get_friendly_pages(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    body = study_body(n_plain=1)
    assert admin.post("/v1/studies", json=body).status_code == 201
    base = ui_service.base_url
    enter_code(page, base, body["id"], "NOPE-NOPE-NOPE")
    expect(page.get_by_role("alert")).to_contain_text("not valid for this study")
    expect(page.get_by_label("Participant code")).to_have_attribute("aria-invalid", "true")
    response = page.goto(f"{base}/ui/studies/no-such-study")
    assert response is not None and response.status == 404
    expect(page.locator("h1")).to_have_text("Study not found")
    errors = page.console_errors  # type: ignore[attr-defined]
    assert all("status of 403" in e or "status of 404" in e for e in errors), errors
