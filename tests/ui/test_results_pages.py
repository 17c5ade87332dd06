"""The results viewer in real headless Chromium: a scoring batch (stored through the batch
store's own functions) and a study run from ``JUDGE_SERVE_STUDY_RUNS``, filtered, with images,
scores and rationales side by side; hostile rationales render as text; plain HTTP checks of
unknown ids and path traversal."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aredis
from PIL import Image
from playwright.sync_api import Page, expect

from api.jobs.store import BatchStore, owner_tag
from tests.api.conftest import LiveService, live_service
from tests.ui.probe_service import KEY, OTHER_KEY, probe_service, sign_in

ADMIN = "admin"  # one of the service's JUDGE_SERVE_ADMIN_KEYS

pytestmark = pytest.mark.browser
HOSTILE = "<script>document.title='pwned'</script><b>not bold</b> & {{ 1+1 }}"


def png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), colour).save(out, "PNG")
    return out.getvalue()


def result(sid: str, status: str, aesthetics: int, rationale: str, check: bool) -> dict:
    return {
        "submission_id": sid,
        "status": status,
        "task_id": sid,
        "subjective": {
            "prompt": {"clarity": {"score": 3, "rationale": "clear enough"}},
            "image": {"aesthetics": {"score": aesthetics, "rationale": rationale}},
        },
        "objective": {
            "prompt": {"rate": None, "items": []},
            "image": {
                "rate": 100.0 if check else 0.0,
                "items": [{"id": "c1", "verdict": check, "rationale": f"two boats: {check}"}],
            },
        },
    }


def study_line(task: str, prompter: str, status: str, images: list[str], rationale: str) -> dict:
    return {
        "task_id": task,
        "category": "OE",
        "primitives": [],
        "prompter": prompter,
        "prompter_kind": "mllm",
        "condition": "skilled",
        "backend": "card",
        "status": status,
        "reason": None if status == "scored" else "the backend refused",
        "prompt": f"{task} harbour at dusk",
        "images": images,
        "selected_image": 0 if images else None,
        "summary": {},
        "result": result(task, "scored", 4, rationale, True) if status == "scored" else None,
        "usage": {},
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    run = root / "demo-run"
    for prompter, colour in (("gpt-skilled", "red"), ("novice", "blue")):
        folder = run / "generations" / "card" / prompter / "oe_1"
        folder.mkdir(parents=True)
        (folder / "0.png").write_bytes(png(colour))
    lines = [
        study_line(
            "oe_1", "gpt-skilled", "scored", ["generations/card/gpt-skilled/oe_1/0.png"], HOSTILE
        ),
        study_line("oe_1", "novice", "scored", ["generations/card/novice/oe_1/0.png"], "muted"),
        study_line("oe_2", "novice", "generation_failed", [], ""),
    ]
    (run / "results.jsonl").write_text(
        "\n".join(json.dumps(x) for x in lines) + "\nnot json\n", encoding="utf-8"
    )
    (root / "secret.png").write_bytes(png("black"))  # outside every run
    (run / "generations" / "escape.png").symlink_to(root / "secret.png")
    (root / "not-a-run").mkdir()
    return root


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, runs: Path) -> Iterator[LiveService]:
    with probe_service(tmp_path_factory.mktemp("results-pages"), runs) as svc:
        yield svc


@pytest.fixture(scope="module")
def batch_id(service: LiveService) -> str:
    """A finished batch of three items (two results, one failure) owned by ``KEY``."""

    async def seed() -> str:
        client = aredis.Redis.from_url(service.redis_url)
        try:
            store = BatchStore(client, ttl_s=3600)
            bid = await store.create(["{}", "{}", "{}"], {}, owner_tag(KEY))
            await store.record(
                bid, 0, json.dumps(result("s0", "scored", 5, HOSTILE, True)), "result"
            )
            await store.record(
                bid, 1, json.dumps(result("s1", "partial", 2, "blurry", False)), "result"
            )
            error = {"code": "invalid_input", "field": "image", "message": "image: unreadable"}
            await store.record(bid, 2, json.dumps(error), "error")
            return bid
        finally:
            await client.aclose()

    return asyncio.run(seed())


@pytest.mark.slow
def test_a_batch_in_the_results_viewer(service: LiveService, batch_id: str, page: Page) -> None:
    base = service.base_url
    sign_in(page, base, then="/ui/results/")
    page.get_by_label("Batch id").fill(batch_id)
    page.get_by_label("Batch id").press("Enter")
    expect(page).to_have_url(f"{base}/ui/results/batches/{batch_id}")
    expect(page.get_by_test_id("count")).to_have_text("Showing 3 of 3.")
    first = page.get_by_test_id("result").first
    expect(first.locator(".rationale").filter(has_text="not bold").first).to_have_text(HOSTILE)
    assert page.locator("main b").count() == 0 and page.title() != "pwned"
    expect(page.get_by_text("image: unreadable")).to_be_visible()
    page.get_by_label("Status").select_option("partial")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id("count")).to_have_text("Showing 1 of 3.")
    expect(page.get_by_test_id("result")).to_contain_text("blurry")
    page.get_by_label("Status").select_option("")
    page.get_by_label("Dimension").select_option("image/aesthetics")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id("count")).to_have_text("Showing 2 of 3.")
    row = page.get_by_test_id("result").first.locator("tbody tr").first
    expect(row).to_contain_text("image/aesthetics")  # the chosen dimension comes first
    assert page.console_errors == []  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_study_run_in_the_results_viewer(service: LiveService, page: Page) -> None:
    base = service.base_url
    sign_in(page, base, key=ADMIN, then="/ui/results/")
    links = page.get_by_role("region", name="Study runs").get_by_role("link")
    expect(links).to_have_text(["demo-run"])
    links.first.click()
    expect(page.locator("main")).to_contain_text("3 results; 1 unreadable lines skipped")
    page.get_by_label("Prompter").select_option("gpt-skilled")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id("count")).to_have_text("Showing 1 of 3.")
    card = page.get_by_test_id("result")
    image = card.locator("img")
    expect(image).to_have_attribute("alt", "Image 1 (selected)")
    assert page.evaluate("(i) => i.complete && i.naturalWidth", image.element_handle()) == 32
    expect(card.locator(".rationale").filter(has_text="not bold")).to_have_text(HOSTILE)
    assert page.locator("main script, main b").count() == 0 and page.title() != "pwned"
    expect(card).to_contain_text("two boats: True")
    page.get_by_label("Prompter").select_option("")
    page.get_by_label("Status").select_option("generation_failed")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id("result")).to_contain_text("the backend refused")
    assert page.console_errors == []  # type: ignore[attr-defined]


def test_results_routes_over_http(service: LiveService, batch_id: str) -> None:
    with service.client() as anon:
        r = anon.get(f"/ui/results/batches/{batch_id}")
        assert r.status_code == 303 and r.headers["location"].startswith("/ui/key")
        r = anon.get("/ui/results/studies/demo-run/files/generations/card/novice/oe_1/0.png")
        assert r.status_code == 404
    with service.client(cookies={"judge_ui_key": KEY}) as ui:
        for bad in ("0" * 32, "nope", "%3Cscript%3E"):
            r = ui.get(f"/ui/results/batches/{bad}")
            assert r.status_code == 404 and "Batch not found" in r.text, bad
        r = ui.get("/ui/results/?batch=../../x")
        assert r.status_code == 303 and r.headers["location"] == "/ui/results/batches/invalid"
    with service.client(cookies={"judge_ui_key": ADMIN}) as ui:
        ok = ui.get("/ui/results/studies/demo-run/files/generations/card/novice/oe_1/0.png")
        assert ok.status_code == 200 and ok.headers["content-type"] == "image/png"
        for bad_run in ("not-a-run", ".hidden", "%2E%2E", "demo-run%2F..", "x" * 200):
            r = ui.get(f"/ui/results/studies/{bad_run}")
            assert r.status_code == 404, bad_run
        for rel in (
            "..%2Fsecret.png",
            "%2E%2E/secret.png",
            "generations/..%2F..%2Fsecret.png",
            "generations/escape.png",  # a link out of the run
            "%2Fetc%2Fpasswd",
            "results.jsonl",  # not an image
        ):
            r = ui.get(f"/ui/results/studies/demo-run/files/{rel}")
            assert r.status_code == 404 and r.content[:4] != b"\x89PNG", rel
    with service.client(cookies={"judge_ui_key": OTHER_KEY}) as other:
        assert other.get(f"/ui/results/batches/{batch_id}").status_code == 404


def test_study_runs_without_a_configured_directory(tmp_path: Path) -> None:
    with probe_service(tmp_path) as svc, svc.client(cookies={"judge_ui_key": ADMIN}) as ui:
        index = ui.get("/ui/results/")
        assert index.status_code == 200 and "JUDGE_SERVE_STUDY_RUNS" in index.text
        r = ui.get("/ui/results/studies/demo-run")
        assert r.status_code == 404 and "JUDGE_SERVE_STUDY_RUNS" in r.text


def test_forgetting_the_key(service: LiveService) -> None:
    with service.client(cookies={"judge_ui_key": KEY}) as ui:
        form = ui.get("/ui/key")
        assert "Forget the key" in form.text and f'value="{KEY}"' not in form.text
        r = ui.post("/ui/key/forget", headers={"Origin": "http://evil"})
        assert r.status_code == 403
        r = ui.post("/ui/key/forget", headers={"Origin": service.base_url})
        assert r.status_code == 303 and r.headers["location"] == "/ui/key"
        dropped = r.headers["set-cookie"]
        assert 'judge_ui_key=""' in dropped and "Path=/ui" in dropped


def test_pages_without_keys_or_backends(tmp_path: Path) -> None:
    """A loopback service without keys needs no sign-in; without JUDGE_BACKENDS the set-up
    page says how to configure one and cannot be submitted."""
    with live_service({}, tmp_path / "data") as svc, svc.client() as ui:
        listing = ui.get("/ui/probes/")
        assert listing.status_code == 200 and "No probes yet" in listing.text
        new = ui.get("/ui/probes/new")
        assert new.status_code == 200 and "JUDGE_BACKENDS" in new.text
        assert '<button type="submit" disabled>' in new.text
        r = ui.post("/ui/probes/new", data={"topic": "t", "backend": "x"})
        assert r.status_code == 400 and "JUDGE_BACKENDS" in r.text
        assert ui.get("/ui/results/").status_code == 200
