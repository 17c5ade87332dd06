"""The annotator page with a translated prompt and question (real Chromium, the service
wired to the fake model provider): both in the page's language, the originals one click
away, and the answer recorded with its language."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.api.conftest import LiveService, live_service
from tests.campaigns.helpers import data_url, invite, png
from tests.fakes.provider import FakeProvider

pytestmark = pytest.mark.slow

PROMPT = "a red kite above a grey harbour"
QUESTION = "Welches Bild passt besser zur Beschreibung?"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveService, FakeProvider]]:
    with FakeProvider(latency=0.0) as llm:
        llm.on("<<<DATA PROMPT", {"text": "ein roter Drachen über einem grauen Hafen"})
        llm.on("<<<DATA CARD", {"text": QUESTION})
        env = {"JUDGE_SERVE_ADMIN_KEYS": "admin", "JUDGE_MODEL": "openai/fake-judge",
               "JUDGE_API_BASE": llm.base_url, "JUDGE_API_KEY": "k",
               "JUDGE_BACKOFF_BASE_S": "0.001", "JUDGE_TIMEOUT_S": "60"}  # fmt: skip
        with live_service(env, tmp_path_factory.mktemp("ui-tr"), wait_warm=False) as svc:
            yield svc, llm


def test_a_translated_prompt_and_its_original(
    service: tuple[LiveService, FakeProvider], page: Page
) -> None:
    svc, llm = service
    items = [{"id": f"p{i}", "prompt": PROMPT,
              "a": {"model": "m1", "image": data_url(png("#d33", i))},
              "b": {"model": "m2", "image": data_url(png("#33d", i + 1))}}
             for i in range(2)]  # fmt: skip
    body = {"id": "ui-tr", "kind": "pairwise", "criterion": "alignment", "items": items,
            "votes_per_item": 2, "min_seconds": 0.0, "validation": "none",
            "translate_prompts": True}  # fmt: skip
    with svc.client(headers={"Authorization": "Bearer admin"}) as admin:
        assert admin.post("/v1/campaigns", json=body).status_code == 201
        first, second = invite(admin, "ui-tr", 2)
    with httpx.Client(base_url=svc.base_url) as anon:  # someone else asks first, in German
        english = anon.get(f"/v1/label/{first['token']}/next", params={"lang": "de"})
    deadline = time.monotonic() + 20
    while llm.calls < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    page.goto(f"{svc.base_url}{second['url']}?lang=de")
    expect(page.locator("#text")).to_have_text("ein roter Drachen über einem grauen Hafen")
    expect(page.locator("#question")).to_have_text(QUESTION)
    toggle = page.locator("#original")
    expect(toggle).to_have_text("Original zeigen")
    toggle.click()
    expect(page.locator("#text")).to_have_text(PROMPT)
    expect(page.locator("#question")).to_have_text(english.json()["task"]["question"])
    expect(toggle).to_have_text("Übersetzung zeigen")
    toggle.click()
    expect(page.locator("#question")).to_have_text(QUESTION)
    expect(page.locator("#text")).to_have_text("ein roter Drachen über einem grauen Hafen")
    page.keyboard.press("Enter")  # confirm reading
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#progress")).to_contain_text("Aufgabe 2 von 3")
    with svc.client(headers={"Authorization": "Bearer admin"}) as admin:
        rows = [json.loads(x) for x in admin.get("/v1/campaigns/ui-tr/votes").text.splitlines()]
    assert [(r["lang"], r["prompt_language"]) for r in rows] == [("de", "de")]
    assert llm.calls == 2  # one prompt and one question, one translation each
    assert page.console_errors == []  # type: ignore[attr-defined]
