"""Honest outputs: a campaign from a study run with several prompters compares what it says
it compares (image models by default, prompters or every output on demand), the report
names it, and report.md warns when the comparison graph falls apart."""

from __future__ import annotations

import json
from pathlib import Path

from eval.campaigns.ingest import ingest
from eval.campaigns.models import CampaignCreate
from eval.campaigns.plots import markdown
from eval.campaigns.report import build_report
from eval.campaigns.sources import COMPARE, campaign_body, campaign_items
from judge.config import JudgeSettings
from tests.campaigns.helpers import COLOURS, pairwise_body, png

BACKENDS = ["flux", "sd3", "dalle"]
PROMPTERS = ["gpt", "claude"]


def study_run(folder: Path) -> Path:
    lines = []
    for t in range(2):
        for p, prompter in enumerate(PROMPTERS):
            for b, backend in enumerate(BACKENDS):
                rel = f"images/{t}/{prompter}/{backend}.png"
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_bytes(png(COLOURS[b + p], t + b))
                lines.append({"task_id": f"oe_{t}", "prompter": prompter, "backend": backend,
                              "status": "scored", "prompt": f"{prompter} prompt {t}",
                              "images": [rel]})  # fmt: skip
    (folder / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def models_of(items: list[dict]) -> set[str]:
    return {i[s]["model"] for i in items for s in ("a", "b")}


def test_study_runs_pair_what_the_user_compares(tmp_path: Path) -> None:
    run = study_run(tmp_path / "run")
    by_model = campaign_items(run, "pairwise")  # default: image models
    assert models_of(by_model) == set(BACKENDS) and len(by_model) == 2 * 2 * 3
    assert {i["id"].split(":")[0] for i in by_model} == {"oe_0.gpt", "oe_0.claude",
                                                         "oe_1.gpt", "oe_1.claude"}  # fmt: skip
    by_prompter = campaign_items(run, "pairwise", compare="prompters")
    assert models_of(by_prompter) == set(PROMPTERS) and len(by_prompter) == 2 * 3
    every = campaign_items(run, "pairwise", compare="outputs")
    assert models_of(every) == {f"{p}/{b}" for p in PROMPTERS for b in BACKENDS}
    assert len(every) == 2 * 15  # all pairs of 6 outputs per task: across prompters too
    body = campaign_body(run, campaign_id="c", kind="pairwise", criterion="preference")
    assert body["compared"] == COMPARE["models"]


def _voted(body: dict) -> str:
    record, _ = ingest(CampaignCreate.model_validate(body), JudgeSettings())
    attempts = [
        {"task": f"t{n}", "item": item.id, "annotator": f"a{k}", "at": "2026-11-26T00:00:00Z",
         "seconds": 3.0, "validation": False, "reason": None, "choice": "a", "shown_left": "a",
         "accepted": True, "fast": False}
        for n, item in enumerate(record.real_items())
        for k in range(3)
    ]  # fmt: skip
    return markdown(build_report(record, attempts, n_boot=20))


def test_report_md_warns_on_a_disconnected_comparison(tmp_path: Path) -> None:
    apart = pairwise_body("apart", n_items=4, validation="none", compared="image models")
    for n, item in enumerate(apart["items"]):  # m1-m2 on two items, m3-m4 on the others
        item["a"]["model"], item["b"]["model"] = ("m1", "m2") if n < 2 else ("m3", "m4")
    text = _voted(apart)
    assert "Compared: image models." in text
    assert "comparison graph is disconnected: 2 groups" in text
    joined = pairwise_body("joined", n_items=4, validation="none")
    assert "disconnected" not in _voted(joined)
