"""Probe pages in real headless Chromium on a live service: a finished probe's tree, node
views, overrides (mouse and keyboard only) with metrics recomputed, the set-up form, hostile
text shown as text; plus plain HTTP checks of the page routes."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from markupsafe import escape
from playwright.sync_api import Page, expect

from tests.api.conftest import LiveService
from tests.ui.probe_service import KEY, OTHER_KEY, probe_service, sign_in, tab_to, wait_done

pytestmark = pytest.mark.browser
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"> & {{ 7*7 }} <b>bold</b>"
SMALL = {"depth": 2, "topics": 2, "inputs": 2, "images": 2, "threshold": 0}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with probe_service(tmp_path_factory.mktemp("probe-pages")) as svc:
        yield svc


@pytest.fixture(scope="module")
def api(service: LiveService) -> Iterator[httpx.Client]:
    with service.client(headers={"Authorization": f"Bearer {KEY}"}) as c:
        yield c


@pytest.fixture(scope="module")
def finished(api: httpx.Client) -> dict:
    """A finished probe (with baseline) whose topic is hostile text."""
    r = api.post(
        "/v1/probes", json={"topic": HOSTILE, "backend": "card", "baseline": True, **SMALL}
    )
    assert r.status_code == 202, r.text
    body = wait_done(api, r.json()["id"])
    assert body["status"] == "done", body.get("error")
    return body


def metric(page: Page, name: str) -> str:
    return page.locator(f'[data-metric="{name}"]').inner_text()


@pytest.mark.slow
def test_tree_nodes_expand_and_an_override_updates_metrics(
    service: LiveService, api: httpx.Client, finished: dict, page: Page
) -> None:
    base, probe_id = service.base_url, finished["id"]
    tree = finished["tree"]
    sign_in(page, base)
    # the list shows the probe, its hostile topic as text
    listed = page.get_by_role("link", name=HOSTILE)
    expect(listed).to_have_count(1)
    expect(page.locator("tbody tr").filter(has=listed)).to_contain_text(" UTC")
    listed.click()
    expect(page).to_have_url(f"{base}/ui/probes/{probe_id}")
    expect(page.locator("h1")).to_have_text(HOSTILE)
    assert page.locator("main img[src='x']").count() == 0 and page.title() != "pwned"
    expect(page.get_by_test_id("probe-status")).to_contain_text("done")
    expect(page.locator('[data-metric="bugs"]')).to_have_text(str(tree["metrics"]["bugs"]))
    expect(page.get_by_test_id("comparison")).to_contain_text("Baseline")

    # colours follow the pass rates; children are shown under the root's toggle
    root = tree["root"]
    for node in [root, *root["children"]]:
        rate = node["pass_rate"]
        want = (
            "rate-none"
            if rate is None
            else ("rate-good" if rate >= 0.6 else "rate-mixed" if rate >= 0.3 else "rate-poor")
        )
        expect(page.locator(f'button[data-open="{node["id"]}"]')).to_have_class(f"node-open {want}")
    toggle = page.locator('button[aria-controls="kids-n0"]')
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#kids-n0")).to_be_hidden()
    toggle.click()
    expect(page.locator("#kids-n0")).to_be_visible()

    # the node view of a child: inputs, images, verdicts, failures, reflection
    child = root["children"][0]
    opener = page.locator(f'button[data-open="{child["id"]}"]')
    opener.click()
    expect(opener).to_have_attribute("aria-expanded", "true")
    view = page.locator(f'[data-view="{child["id"]}"]')
    expect(view).to_be_visible()
    expect(view.locator(".input").first).to_contain_text(child["tests"][0]["input"])
    image = view.locator("img").first
    expect(image).to_be_visible()
    assert page.evaluate("(img) => img.naturalWidth", image.element_handle()) > 0
    # the fake judge fails the planted colour: localisation names it as the failing part
    minimal = child["failures"][0]["minimal_failing"]
    assert minimal and any("purple" in part for part in minimal)
    shown = [part for f in child["failures"] for part in f["minimal_failing"]]
    expect(view.locator(".minimal")).to_have_text(shown)
    assert child["reflection"]
    expect(page.get_by_test_id(f"reflection-{child['id']}")).to_have_text(child["reflection"])

    # override the first image verdict of the child's first input
    judge_first = child["tests"][0]["judge_verdicts"][0]
    button = view.locator("button.verdict").first
    button.click()  # no name yet: refused with a message
    expect(page.locator("#override-message")).to_contain_text("Enter your name")
    page.get_by_label("Your name").fill("Ana <script>")
    button.click()
    expect(page.locator("#override-message")).to_contain_text("Saved")
    flipped = "pass" if not judge_first else "fail"
    expect(button.locator("xpath=..").locator("[data-override]")).to_contain_text(
        f"Person: {flipped} (Ana <script>"
    )
    after = api.get(f"/v1/probes/{probe_id}").json()["tree"]
    test = after["root"]["children"][0]["tests"][0]
    assert test["verdicts"][0] is (not judge_first) and test["judge_verdicts"][0] is judge_first
    assert test["overrides"]["0"]["who"] == "Ana <script>"
    expect(page.locator('[data-metric="apr"]')).to_have_text(str(after["metrics"]["apr"]))
    expect(page.locator('[data-metric="agreement"]')).to_have_text("0 of 1 agree (0%)")
    assert after["metrics"]["apr"] != tree["metrics"]["apr"]

    # after a reload: the override beside the judge's verdict, metrics recomputed, name kept
    page.reload()
    expect(page.locator('[data-metric="apr"]')).to_have_text(str(after["metrics"]["apr"]))
    expect(page.locator('[data-metric="bugs"]')).to_have_text(str(after["metrics"]["bugs"]))
    expect(page.locator('[data-metric="agreement"]')).to_have_text("0 of 1 agree (0%)")
    expect(page.get_by_label("Your name")).to_have_value("Ana <script>")
    view = page.locator(f'[data-view="{child["id"]}"]')
    expect(view).to_be_visible()  # the open node view is remembered for the session
    caption = view.locator("figcaption").first
    expect(caption).to_contain_text(f"Judge: {'pass' if judge_first else 'fail'}")
    expect(caption).to_contain_text(f"Person: {flipped} (Ana <script>")
    assert page.console_errors == []  # type: ignore[attr-defined]


def test_keyboard_only_expand_and_override(
    service: LiveService, api: httpx.Client, finished: dict, page: Page
) -> None:
    base, probe_id = service.base_url, finished["id"]
    sign_in(page, base, then=f"/ui/probes/{probe_id}")
    tab_to(page, "#who")
    page.keyboard.type("Kim")
    # collapse and re-open the root's subtopics, then open the second child's node view
    tab_to(page, 'button[aria-controls="kids-n0"]')
    page.keyboard.press("Enter")
    expect(page.locator("#kids-n0")).to_be_hidden()
    page.keyboard.press("Space")
    expect(page.locator("#kids-n0")).to_be_visible()
    child = finished["tree"]["root"]["children"][1]
    tab_to(page, f'button[data-open="{child["id"]}"]')
    page.keyboard.press("Enter")
    view = page.locator(f'[data-view="{child["id"]}"]')
    expect(view).to_be_visible()
    tab_to(page, f'[data-view="{child["id"]}"] button.verdict')
    before = page.evaluate("document.activeElement.dataset.verdict")
    page.keyboard.press("Enter")
    expect(page.locator("#override-message")).to_contain_text("Saved")
    assert page.evaluate("document.activeElement.dataset.verdict") != before
    after = api.get(f"/v1/probes/{probe_id}").json()["tree"]
    ov = after["root"]["children"][1]["tests"][0]["overrides"]["0"]
    assert ov["who"] == "Kim" and ov["verdict"] is (before != "true")


@pytest.mark.slow
def test_set_up_form_starts_a_probe_and_the_page_follows_it(
    service: LiveService, page: Page
) -> None:
    base = service.base_url
    sign_in(page, base, then="/ui/probes/new")
    options = page.locator("#backend option")
    expect(options).to_have_text(["card", "refuser"])
    page.get_by_label("Model under test").select_option("card")
    page.get_by_label("Topic", exact=True).fill("")
    page.get_by_label("Topic", exact=True).fill("   ")
    page.get_by_role("button", name="Start probe").click()
    expect(page.locator("#form-error")).to_contain_text("topic")  # the API's message
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]  # type: ignore[attr-defined]
    page.console_errors.clear()  # type: ignore[attr-defined]
    page.get_by_label("Topic", exact=True).fill("kitchen objects")
    page.get_by_label("Depth (levels)").fill("2")
    page.get_by_label("Child topics per node").fill("1")
    page.get_by_label("Inputs per node").fill("2")
    page.get_by_label("Images per input").fill("1")
    page.get_by_label("Strategy").select_option("dfs")
    criteria = page.locator("#criterion option")
    expect(criteria).to_have_count(2)
    expect(page.get_by_label("Pass/fail criterion")).to_have_value("alignment_defects")
    page.get_by_label("Pass/fail criterion").select_option("alignment")
    llm = service.fake_llm  # type: ignore[attr-defined]
    llm.latency = 0.2  # slow enough that the page opens while the probe runs
    try:
        page.get_by_role("button", name="Start probe").click()
        expect(page).to_have_url(re.compile(rf"{base}/ui/probes/[0-9a-f]{{32}}$"))
        expect(page.get_by_test_id("probe-status")).to_contain_text("running")
        # live status: the page polls and redraws itself until the probe is done
        expect(page.get_by_test_id("probe-status")).to_contain_text("done", timeout=90_000)
    finally:
        llm.latency = 0.0
    expect(page.locator('button[data-open="n0.0"]')).to_be_visible()
    expect(page.locator("h1")).to_have_text("kitchen objects")
    expect(page.locator("#probe p").first).to_contain_text("dfs, criterion alignment.")
    assert page.console_errors == []  # type: ignore[attr-defined]


def test_page_routes_over_http(service: LiveService, finished: dict) -> None:
    probe_id = finished["id"]
    with service.client() as anon:
        r = anon.get(f"/ui/probes/{probe_id}")
        assert r.status_code == 303 and r.headers["location"].startswith("/ui/key?next=")
        r = anon.post("/ui/key", data={"key": "wrong", "next": "/ui/probes/"})
        assert r.status_code == 401 and "not one of this service" in r.text
        r = anon.post("/ui/key", data={"key": KEY, "next": "https://evil.example/"})
        assert r.status_code == 303 and r.headers["location"] == "/ui/"
        cookie = r.cookies.get("judge_ui_key")
        assert cookie == KEY and "httponly" in r.headers["set-cookie"].lower()
        assert "samesite=strict" in r.headers["set-cookie"].lower()
    with service.client(cookies={"judge_ui_key": KEY}) as ui:
        page = ui.get(f"/ui/probes/{probe_id}")
        assert page.status_code == 200 and KEY not in page.text.replace("data-", "")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert "&lt;img src=x" in page.text and "<img src=x" not in page.text
        traversal = ui.get("/ui/probes/..%2F..%2Fetc%2Fpasswd")
        assert traversal.status_code == 404 and "root:" not in traversal.text
        for bad in ("f" * 32, "not-an-id", "0" * 200, "%3Cscript%3E"):
            r = ui.get(f"/ui/probes/{bad}")
            assert r.status_code == 404 and "Probe not found" in r.text, bad
            assert ui.get(f"/ui/probes/{bad}/status.json").status_code == 404
        assert ui.get(f"/ui/probes/{probe_id}/images/..%2Fmeta").status_code == 404
        assert ui.get(f"/ui/probes/{probe_id}/images/{'a' * 64}.png").status_code == 404
        status = ui.get(f"/ui/probes/{probe_id}/status.json").json()
        assert status["id"] == probe_id and status["tree"]["root"]["id"] == "n0"
        ref = status["tree"]["root"]["tests"][0]["images"][0]
        png = ui.get(f"/ui/probes/{probe_id}/{ref}")
        assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
        # overrides: same-origin only; bad addresses get the API's error
        body = {"node": "n0", "test": 0, "image": 0, "verdict": True, "who": "x"}
        r = ui.post(f"/ui/probes/{probe_id}/overrides", json=body)
        assert r.status_code == 403  # no Origin header: not from the page
        origin = {"Origin": service.base_url}
        r = ui.post(
            f"/ui/probes/{probe_id}/overrides", json=body, headers={"Origin": "http://evil"}
        )
        assert r.status_code == 403
        r = ui.post(f"/ui/probes/{probe_id}/overrides", json={**body, "node": "n9"}, headers=origin)
        assert r.status_code == 404 and "n9" in r.json()["error"]["message"]
        r = ui.post(
            f"/ui/probes/{probe_id}/overrides", json={**body, "verdict": "?"}, headers=origin
        )
        assert r.status_code == 400
        # the set-up form refuses endpoints and unknown backends with the API's message
        new = ui.post("/ui/probes/new", data={"topic": "t", "backend": "elsewhere"}, headers=origin)
        assert new.status_code == 400 and "elsewhere" in new.text
        new = ui.post(
            "/ui/probes/new", data={"topic": "t", "backend": "card", "depth": "x"}, headers=origin
        )
        assert new.status_code == 400 and "depth" in new.text
        r = ui.post(
            "/ui/probes/new",
            data={"topic": "t", "backend": "card"},
            headers={"Origin": "http://evil"},
        )
        assert r.status_code == 403
    # another key's probe is not found
    with service.client(cookies={"judge_ui_key": OTHER_KEY}) as other:
        assert other.get(f"/ui/probes/{probe_id}").status_code == 404
        assert HOSTILE not in other.get("/ui/probes/").text


def test_a_probe_of_a_refusing_backend_is_shown_grey_with_reasons(
    service: LiveService, api: httpx.Client
) -> None:
    r = api.post(
        "/v1/probes",
        json={"topic": "t", "backend": "refuser", "depth": 1, "inputs": 2, "images": 1},
    )
    body = wait_done(api, r.json()["id"])
    assert body["status"] == "done"
    reason = body["tree"]["root"]["tests"][0]["reason"]
    with service.client(cookies={"judge_ui_key": KEY}) as ui:
        page = ui.get(f"/ui/probes/{body['id']}")
    assert page.status_code == 200
    assert 'class="node-open rate-none"' in page.text and "not run" in page.text
    assert "status refused" in page.text and str(escape(reason)) in page.text
    assert "No images." in page.text and 'class="verdict' not in page.text
