"""Every report says who judged (issue 48, item 15): meta-eval, study, edit-study and campaign
``report.md`` and ``report.json`` name the judge model (or the local backend and its
estimator, or the service that judged), and for ``mock/judge`` say plainly that its numbers
are made up, also where published baselines sit beside them. Before, none of them did."""

from __future__ import annotations

import json
from pathlib import Path

from eval.campaigns.plots import markdown as campaign_markdown
from eval.campaigns.sources import campaign_body
from eval.metaeval.report import markdown as metaeval_markdown
from eval.studies.report.build import write_report
from judge.cli.main import main
from judge.config import JudgeSettings
from judge.judged_by import judged_by
from tests.eval.public_sets.miniatures import agiqa3k
from tests.studies.runner_helpers import copy_suite, study_file, subset

MADE_UP = "**Made-up numbers:** mock/judge is the mock model"


def test_a_mock_meta_eval_names_its_judge_and_says_the_numbers_are_made_up(
    tmp_path: Path,
) -> None:
    data, out = agiqa3k(tmp_path / "AGIQA-3K"), tmp_path / "run"
    args = ["meta-eval", "--dataset", "agiqa-3k", "--data", str(data), "--out", str(out)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "20"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["config"]["judged_by"] == {
        "backend": "llm", "models": ["mock/judge"], "estimator": None, "made_up": True}  # fmt: skip
    md = (out / "report.md").read_text()
    head = md.split("\n## ", 1)[0]
    assert "Judged by the judge model mock/judge." in head and MADE_UP in head, head
    published = md.split("## ", 2)[-1]  # beside the published figures, said again
    assert md.count(MADE_UP) >= 2 and MADE_UP in published, md


def test_a_local_meta_eval_report_names_the_backend_and_its_estimator() -> None:
    report = {"dataset": "csv", "data": "d.csv", "n_items": 3, "n_predicted": 3, "n_errors": 0,
              "config": {"judged_by": judged_by(JudgeSettings())}, "targets": {}}  # fmt: skip
    md = metaeval_markdown(report)
    assert "Judged by the local backend (no judge model; per-dimension predictor: " in md, md
    assert "stack over memory, prompt, quality, prototype, sibling (equal weights)" in md, md
    assert "Made-up" not in md


def test_a_study_report_names_its_judge(tmp_path: Path) -> None:
    subset(tmp_path, copy_suite(tmp_path), ("oe_1",))
    study = study_file(tmp_path, "http://127.0.0.1:9", mllm=(), judge="mock/judge",
                       tasks="small.jsonl", images=1)  # fmt: skip
    out = tmp_path / "out"
    assert main(["study", "run", str(study), "--out", str(out), "--no-progress"]) == 0
    recorded = json.loads((out / "study.json").read_text())["judge_info"]
    assert recorded["models"] == ["mock/judge"] and recorded["made_up"] is True
    report = write_report(out, n_boot=20, plots=False)
    assert report["judge"] == recorded
    md = (out / "report.md").read_text()
    assert "Judged by the judge model mock/judge." in md and MADE_UP in md, md
    # a run folder from before judge_info was recorded: told from the [judge] section
    meta = json.loads((out / "study.json").read_text())
    del meta["judge_info"]
    (out / "study.json").write_text(json.dumps(meta))
    assert write_report(out, n_boot=20, plots=False)["judge"]["models"] == ["mock/judge"]


def test_a_campaign_from_a_judged_study_run_names_the_judge(tmp_path: Path) -> None:
    subset(tmp_path, copy_suite(tmp_path), ("oe_1",))
    study = study_file(tmp_path, "http://127.0.0.1:9", mllm=(), judge="mock/judge",
                       tasks="small.jsonl", images=1)  # fmt: skip
    out = tmp_path / "out"
    assert main(["study", "run", str(study), "--out", str(out), "--no-progress"]) == 0
    body = campaign_body(out, campaign_id="c1", kind="rating", criterion="appeal")
    assert body["judged_by"].startswith("the judge model mock/judge"), body["judged_by"]
    assert "made up" in body["judged_by"]
    rate = {"rate": 1, "ci95": [1, 1], "pairs": 1}
    report = {"campaign": "c1", "kind": "rating", "criterion": "appeal",
              "progress": {"labels": 0, "target_votes": 5, "share": 0.0, "items_complete": 0,
                           "items": 1, "annotators": 0},
              "alpha": {"level": "interval", "value": 0.5, "units": 1}, "annotators": [],
              "judged_by": body["judged_by"],
              "judge_agreement": {"rule": "r", "judge_human": rate, "human_human": rate}}
    md = campaign_markdown(report)
    assert f"Judged by {body['judged_by']}" in md, md
