"""The annotator page in real headless Chromium (Debian's /usr/bin/chromium via Playwright):
one annotator opens invitations to a pairwise (alignment: the prompt revealed word by word),
a rating and a ranking campaign and answers with the keyboard only; fails a validation task;
answers too fast and sees the penalty pause; reloads mid-session and resumes the same task;
on a phone-sized screen the pair stacks. A second annotator sees only their own tasks and
cannot answer the first one's."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.api.conftest import LiveService
from tests.campaigns.helpers import data_url, invite, png, ranking_body, rating_body, stored

pytestmark = pytest.mark.browser

GOOD, BAD = png("#2a2", 3), png("#000", 0)
BAD_STORED = stored(BAD)  # what the service serves for BAD
PROMPT = "two red kites above a grey harbour wall at dawn with gulls"


def pairwise_campaign(cid: str) -> dict:
    items = [
        {"id": f"p{i}", "prompt": PROMPT,
         "a": {"model": "m1", "image": data_url(png("#d33", i))},
         "b": {"model": "m2", "image": data_url(png("#33d", i + 1))}}
        for i in range(3)
    ]  # fmt: skip
    items.append({"id": "gold", "prompt": PROMPT, "expected": "a",
                  "a": {"model": "good", "image": data_url(GOOD)},
                  "b": {"model": "bad", "image": data_url(BAD)}})  # fmt: skip
    return {"id": cid, "kind": "pairwise", "criterion": "alignment", "items": items,
            "votes_per_item": 1, "session_size": 3, "min_seconds": 1.0, "penalty_s": 1.0,
            "validation": "none", "validation_every": 2, "title": "Kites"}  # fmt: skip


def attempts(admin: httpx.Client, cid: str) -> list[dict]:
    r = admin.get(f"/v1/campaigns/{cid}/attempts")
    return [json.loads(x) for x in r.text.splitlines()]


def answer_pair(page: Page) -> str:
    """Wait for the reveal, confirm with Enter, pick with an arrow key; which side of the
    gold pair is the broken image decides: pick it (a wrong answer) when it is shown."""
    expect(page.locator("#text")).to_have_text(PROMPT)
    confirm = page.locator("#confirm-read")
    expect(confirm).to_be_enabled()
    left_btn = page.locator("#controls button").first
    expect(left_btn).to_be_disabled()  # no choice before the reader confirms
    page.keyboard.press("Enter")
    expect(left_btn).to_be_enabled()
    right_src = page.locator("#images img").nth(1).evaluate("img => img.src")
    right = page.request.get(right_src).body()
    key = "ArrowRight" if right == BAD_STORED else "ArrowLeft"
    page.keyboard.press(key)
    return key


def test_an_annotator_labels_with_the_keyboard(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    base = ui_service.base_url
    assert admin.post("/v1/campaigns", json=pairwise_campaign("b-pair")).status_code == 201
    first, second = invite(admin, "b-pair", 2)

    response = page.goto(f"{base}{first['url']}")
    assert response is not None and response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert page.locator("html").get_attribute("lang") == "en"
    expect(page.locator("h1")).to_have_text("Kites")
    expect(page.locator("#progress")).to_have_text("Task 1 of 3 · session 1")
    answer_pair(page)
    expect(page.locator("#progress")).to_have_text("Task 2 of 3 · session 1")

    # reload mid-session: the same task comes back
    expect(page.locator("#text")).to_have_text(PROMPT)
    before = page.locator("#images img").first.get_attribute("src")
    page.reload()
    expect(page.locator("#progress")).to_have_text("Task 2 of 3 · session 1")
    assert page.locator("#images img").first.get_attribute("src") == before
    answer_pair(page)
    expect(page.locator("#progress")).to_have_text("Task 3 of 3 · session 1")
    answer_pair(page)
    expect(page.locator("#break")).to_contain_text("Session complete")
    page.keyboard.press("Enter")
    expect(page.locator("#progress")).to_have_text("Task 1 of 3 · session 2")
    answer_pair(page)
    expect(page.locator("#done")).to_contain_text("All done")

    log = attempts(admin, "b-pair")
    gold = [a for a in log if a["validation"]]
    assert len(gold) == 1 and gold[0]["correct"] is False  # the validation task was failed
    assert sum(1 for a in log if a["accepted"] and not a["validation"]) == 3
    assert all(a["seconds"] >= 1.0 for a in log if a["accepted"])  # the reveal outlasts the floor

    # a second annotator: their own tasks only, and the first one's cannot be answered
    page.goto(f"{base}{second['url']}")
    expect(page.locator("#done")).to_contain_text("All done")  # every pair has its vote
    assert page.console_errors == []  # type: ignore[attr-defined]
    status = page.evaluate(
        """async ([tok, task]) => (await fetch(`/v1/label/${tok}/answers`, {method: "POST",
             headers: {"Content-Type": "application/json"},
             body: JSON.stringify({task: task, choice: "b"})})).status""",
        [second["token"], gold[0]["task"]],
    )
    assert status == 400
    assert attempts(admin, "b-pair") == log


@pytest.mark.slow
def test_rating_penalty_and_ranking_by_keyboard(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    base = ui_service.base_url
    body = rating_body("b-rate", n_items=2, votes_per_item=1, min_seconds=1.0, penalty_s=1.0,
                       validation="none", session_size=2)  # fmt: skip
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    rater = invite(admin, "b-rate", 1)[0]
    page.goto(f"{base}{rater['url']}")
    expect(page.locator("#text")).to_have_text("Make the sky orange.")
    expect(page.locator("#images img")).to_have_count(2)
    page.locator("#reason").fill("the sky is only half orange")
    page.locator("#reason").press("Tab")  # leave the text box; keys now answer
    page.keyboard.press("4")  # at once: under the 1 s floor
    expect(page.locator("#pause")).to_be_visible()
    expect(page.locator("#pause-text")).to_contain_text("faster than this task allows")
    expect(page.locator("#pause")).to_be_hidden(timeout=10_000)
    page.keyboard.press("4")
    expect(page.locator("#progress")).to_have_text("Task 2 of 2 · session 1")
    for _ in range(10):  # answer; wait out any pause; until the session ends
        page.keyboard.press("2")
        if page.locator("#break").is_visible() or page.locator("#pause").is_visible():
            expect(page.locator("#pause")).to_be_hidden(timeout=10_000)
        if page.locator("#break").is_visible():
            break
    expect(page.locator("#break")).to_be_visible()
    rows = [json.loads(x) for x in admin.get("/v1/campaigns/b-rate/ratings").text.splitlines()]
    assert sorted(r["rating"] for r in rows) == [2, 4]
    assert [r["reason"] for r in rows if r["rating"] == 4] == ["the sky is only half orange"]
    fast = [a for a in attempts(admin, "b-rate") if a["fast"]]
    assert fast and not any(a["accepted"] for a in fast)

    assert admin.post("/v1/campaigns", json=ranking_body("b-rank", n_items=1, votes_per_item=1,
                                                         min_seconds=0.0, validation="none")
                      ).status_code == 201  # fmt: skip
    ranker = invite(admin, "b-rank", 1)[0]
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.goto(f"{base}{ranker['url']}")
    expect(page.locator("#images img")).to_have_count(3)
    page.keyboard.press("3")
    page.keyboard.press("1")
    page.keyboard.press("Backspace")  # undo the second pick
    page.keyboard.press("2")
    expect(page.locator("#images button.pick.ranked")).to_have_count(2)
    page.keyboard.press("Enter")  # the last one is implied
    expect(page.locator("#done")).to_be_visible()
    votes = [json.loads(x) for x in admin.get("/v1/campaigns/b-rank/votes").text.splitlines()]
    assert len(votes) == 3
    order = attempts(admin, "b-rank")[0]["order"]
    assert len(order) == 3 and len(set(order)) == 3
    assert page.console_errors == []  # type: ignore[attr-defined]


def test_the_pair_stacks_on_a_phone_and_bad_links_are_refused(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    body = pairwise_campaign("b-phone")
    body["criterion"] = "preference"
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    person = invite(admin, "b-phone", 1)[0]
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{ui_service.base_url}{person['url']}")
    images = page.locator("#images button.pick")
    expect(images).to_have_count(2)
    expect(page.locator("#images img").first).to_be_visible()
    one, two = images.nth(0).bounding_box(), images.nth(1).bounding_box()
    assert one and two and two["y"] >= one["y"] + one["height"] - 1  # stacked
    assert one["width"] <= 390
    expect(page.locator("#text-box")).to_be_hidden()  # preference: no prompt shown
    bad = page.goto(f"{ui_service.base_url}/ui/label/{'q' * 32}")
    assert bad is not None and bad.status == 404
    expect(page.locator("[role=alert]")).to_contain_text("not valid")


SLOW_REPLY = """
const json = Response.prototype.json;
Response.prototype.json = async function () {  // a slow network: the reply's body comes late
  await new Promise((done) => setTimeout(done, 400));
  return json.call(this);
};
"""


@pytest.mark.slow
def test_keys_pressed_while_a_reply_is_read_do_not_answer_twice(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    """An annotator who presses a key again while the reply to their answer is still
    arriving answers once: no second POST for the closed task (it was refused with a 400)."""
    body = rating_body("b-twice", n_items=2, votes_per_item=1, min_seconds=0.0,
                       validation="none", session_size=1)  # fmt: skip
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    rater = invite(admin, "b-twice", 1)[0]
    page.add_init_script(SLOW_REPLY)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(f"{ui_service.base_url}{rater['url']}")
    expect(page.locator("#images img")).to_have_count(2)
    page.locator("body").click()
    page.keyboard.press("3")
    for _ in range(4):  # inside the slow reply's 400 ms
        page.wait_for_timeout(60)
        page.keyboard.press("3")
    expect(page.locator("#break")).to_be_visible()
    page.keyboard.press("3")  # on the break screen keys answer nothing either
    rows = attempts(admin, "b-twice")
    assert [(r["rating"], r["accepted"]) for r in rows] == [(3, True)]
    assert len(posts) == 1
    assert page.console_errors == []  # type: ignore[attr-defined]


def test_the_page_speaks_the_browser_language_and_switches(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    body = pairwise_campaign("b-lang")
    body["criterion"] = "preference"
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    person = invite(admin, "b-lang", 1)[0]
    page.set_extra_http_headers({"Accept-Language": "de-CH, de;q=0.9, en;q=0.5"})
    page.goto(f"{ui_service.base_url}{person['url']}")
    assert page.locator("html").get_attribute("lang") == "de"
    expect(page.locator("#progress")).to_have_text("Aufgabe 1 von 3 · Runde 1")
    expect(page.locator("#controls button").first).to_contain_text("Links")
    menu = page.locator("nav.languages a")
    assert menu.count() >= 6  # English and at least five more
    expect(page.locator("nav.languages a[aria-current]")).to_have_text("Deutsch")
    first = page.locator("#images img").first.get_attribute("src")
    page.locator("nav.languages a", has_text="Français").click()
    expect(page.locator("#progress")).to_have_text("Tâche 1 sur 3 · série 1")
    assert page.locator("html").get_attribute("lang") == "fr"
    expect(page.locator("#controls button").first).to_contain_text("Gauche")
    assert page.locator("#images img").first.get_attribute("src") == first  # the same task
    page.locator("nav.languages a", has_text="日本語").click()
    expect(page.locator("#controls button").nth(1)).to_contain_text("右")
    assert admin.post("/v1/campaigns/b-lang/status", json={"status": "closed"}).status_code == 200
    page.reload()
    expect(page.locator("[role=alert]")).to_contain_text("このキャンペーンは終了しました")
    assert page.console_errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_optional_about_you_form_comes_once(
    ui_service: LiveService, admin: httpx.Client, page: Page
) -> None:
    body = pairwise_campaign("b-demo")
    body.update(criterion="preference", demographics=True)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    person = invite(admin, "b-demo", 1)[0]
    page.goto(f"{ui_service.base_url}{person['url']}?lang=es")
    form = page.locator("#profile")
    expect(form).to_be_visible()
    expect(form.locator("h2")).to_have_text("Sobre ti (opcional)")
    form.locator("select[name=age_band]").select_option("35-44")
    form.locator("input[name=country]").fill("mx")
    form.locator("#profile-save").click()
    expect(page.locator("#progress")).to_have_text("Tarea 1 de 3 · sesión 1")
    page.reload()
    expect(page.locator("#progress")).to_have_text("Tarea 1 de 3 · sesión 1")
    assert page.locator("#profile").count() == 0  # asked once
    report = admin.get("/v1/campaigns/b-demo/report", params={"bootstrap": 10}).json()
    assert report["demographics"]["country"]["counts"] == {"MX": 1}
    assert report["demographics"]["gender"]["not_said"] == 1
    assert page.console_errors == []  # type: ignore[attr-defined]
