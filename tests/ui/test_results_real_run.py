"""The results viewer on the output of a real ``judge study run`` (the example suite, fake
prompters and judge, the built-in renderer): every line listed, images served, the judge's
dimensions offered as filters, no model needed to browse."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.studies.prompters.mllm import shared_gateway
from judge.cli.main import main
from tests.api.conftest import live_service
from tests.fakes.provider import FakeProvider
from tests.studies.runner_helpers import copy_suite, read_jsonl, script_prompter, study_file
from tests.ui.probe_service import KEY

pytestmark = pytest.mark.slow


def test_a_real_study_run_in_the_viewer(provider: FakeProvider, tmp_path: Path) -> None:
    tasks = copy_suite(tmp_path)
    script_prompter(provider, tasks, tmp_path)
    study = study_file(tmp_path, provider.base_url, mllm=("skilled",))
    runs = tmp_path / "runs"
    shared_gateway.cache_clear()
    try:
        assert (
            main(["study", "run", str(study), "--out", str(runs / "pilot"), "--no-progress"]) == 0
        )
    finally:
        shared_gateway.cache_clear()
    lines = read_jsonl(runs / "pilot" / "results.jsonl")
    dims = sorted(
        {f"{side}/{d}" for x in lines for side, ds in x["result"]["subjective"].items() for d in ds}
    )
    # no model configured; study runs are shown to admin keys only
    env = {
        "JUDGE_SERVE_STUDY_RUNS": str(runs),
        "JUDGE_SERVE_API_KEYS": KEY,
        "JUDGE_SERVE_ADMIN_KEYS": "admin",
    }
    with (
        live_service(env, tmp_path / "data") as svc,
        svc.client(cookies={"judge_ui_key": "admin"}) as ui,
    ):
        index = ui.get("/ui/results/")
        assert 'href="/ui/results/studies/pilot"' in index.text
        page = ui.get("/ui/results/studies/pilot")
        assert page.status_code == 200 and f"Showing {len(lines)} of {len(lines)}." in page.text
        for dim in dims:
            assert f'<option value="{dim}">' in page.text
        one = ui.get("/ui/results/studies/pilot", params={"prompter": "people"})
        assert f"Showing {len(tasks)} of {len(lines)}." in one.text
        for rel in lines[0]["images"]:
            assert f"/ui/results/studies/pilot/files/{rel}" in page.text
            png = ui.get(f"/ui/results/studies/pilot/files/{rel}")
            assert png.status_code == 200 and png.content == (runs / "pilot" / rel).read_bytes()
