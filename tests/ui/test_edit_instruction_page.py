"""The participant page of an *edit* study in real headless Chromium: ``judge study publish``
on an edit study's TOML registers its tasks; a participant sees each picture to edit and the
request, writes edit instructions, and ``judge study import-prompts`` then feeds a ``human``
writer of the edit study, whose editors get exactly what was typed."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from judge.cli.main import main
from tests.api.conftest import LiveService
from tests.fakes.provider import FakeProvider
from tests.studies.edit_helpers import FAST_JUDGE, TASKS, write_tasks
from tests.studies.runner_helpers import read_jsonl
from tests.ui.conftest import ADMIN_KEY

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TYPED = {
    "t_red": "Recolour the square  to a deep blue 🔵; keep the grey background as it is.",
    "t_green": "Erase the green square and fill its place with the grey around it\n(no trace).",
}


def edit_study(folder: Path, provider: FakeProvider, writer: str) -> Path:
    path = folder / "study.toml"
    path.write_text(
        '[study]\nkind = "edit"\nname = "people"\ntasks = "edits.jsonl"\n\n'
        f"{writer}\n"
        '[[editors]]\nid = "demo"\nmodel = "builtin/editor"\n\n'
        f'[judge]\nmodel = "openai/fake-judge"\napi_base = "{provider.base_url}"\n{FAST_JUDGE}\n',
        encoding="utf-8",
    )
    return path


def test_people_write_edit_instructions_that_a_human_writer_feeds_to_the_editors(
    ui_service: LiveService,
    admin: httpx.Client,
    page: Page,
    provider: FakeProvider,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    monkeypatch.setenv("JUDGE_ADMIN_KEY", ADMIN_KEY)
    write_tasks(tmp_path)
    base = ui_service.base_url
    study = edit_study(tmp_path, provider, '[[writers]]\nid = "as-written"\nkind = "as_written"')
    publish = ["study", "publish", str(study), "--url", base, "--study", "edits-1",
               "--participants", "1", "--name", "Edit instructions"]  # fmt: skip
    assert main(publish) == 0
    code = capsys.readouterr().out.strip().splitlines()[-1]
    info = admin.get("/v1/studies/edits-1").json()
    assert info["kind"] == "edit" and info["task_ids"] == [t[0] for t in TASKS]

    page.goto(f"{base}/ui/studies/edits-1")
    expect(page.get_by_text("the instruction you would give an image editor")).to_be_visible()
    page.get_by_label("Participant code").fill(code)
    page.get_by_label("Participant code").press("Enter")
    for index, (task_id, request, *_rest) in enumerate(TASKS[:2], start=1):
        expect(page.locator("#progress")).to_contain_text(f"Task {index} of 3")
        expect(page.get_by_role("heading", name="What should change")).to_be_visible()
        expect(page.get_by_test_id("brief")).to_have_text(request)
        picture = page.get_by_role("img", name="The picture to edit")
        expect(picture).to_be_visible()
        assert picture.evaluate("img => img.naturalWidth") == 96  # the task's source picture
        expect(page.locator("figcaption")).to_have_text("Picture to edit")
        page.get_by_label("Your edit instruction").fill(TYPED[task_id])
        page.get_by_role("button", name="Submit edit instruction").click()
        expect(page.get_by_role("status")).to_contain_text(
            f"Your edit instruction for task {index} was saved"
        )
    expect(page.locator("#progress")).to_contain_text("Task 3 of 3")  # left unanswered
    # refusals name what the participant writes here: an edit instruction, not a prompt
    box, alert = page.get_by_label("Your edit instruction"), page.get_by_role("alert")
    for typed, said in [
        ("  \n ", "The edit instruction is empty; write an edit instruction before submitting"),
        ("é" * 4_001, "The edit instruction is 4001 characters; the limit is 4000"),
    ]:
        box.fill(typed)
        page.get_by_role("button", name="Submit edit instruction").click()
        expect(alert).to_contain_text(said)
        expect(alert).not_to_contain_text("prompt")
        expect(page.locator("#progress")).to_contain_text("Task 3 of 3")

    out = tmp_path / "people.jsonl"
    imported = ["study", "import-prompts", "--url", base, "--study", "edits-1", "--out", str(out)]
    assert main(imported) == 0
    rows = read_jsonl(out)
    assert {r["task_id"]: r["prompt"] for r in rows} == TYPED  # exactly what was typed

    people = '[[writers]]\nid = "people"\nkind = "human"\ninstructions = "people.jsonl"'
    study = edit_study(tmp_path, provider, people)
    run_out = tmp_path / "run"
    run = ["study", "run", str(study), "--out", str(run_out), "--no-progress"]
    with ThreadPoolExecutor(1) as pool:  # the page's event loop holds this thread
        assert pool.submit(main, run).result() == 0
    lines = {x["task_id"]: x for x in read_jsonl(run_out / "results.jsonl")}
    for task_id, text in TYPED.items():
        assert lines[task_id]["instruction"] == text and lines[task_id]["status"] == "scored"
    assert lines["t_sign"]["status"] == "writer_failed"
    assert "no instruction for task 't_sign' in people.jsonl" in lines["t_sign"]["reason"]
    record = json.loads((run_out / "study.json").read_text())
    assert len(record["writers"][0]["instructions_sha256"]) == 64
