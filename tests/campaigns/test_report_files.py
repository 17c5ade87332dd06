"""The campaign report as files a person reads: annotators.png (named dots, fixed 0–1
accuracy axis, the campaign's bar), report.md (no Python ``None``, the figures embedded),
and a votes export whose leaderboard counts prompts, not items."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from eval.campaigns.exports import to_jsonl, vote_rows
from eval.campaigns.ingest import ingest
from eval.campaigns.models import CampaignCreate
from eval.campaigns.plots import NONE_Y, annotator_figure, markdown, write_report
from eval.campaigns.record import CampaignRecord
from eval.campaigns.report import build_report
from judge.cli.main import main
from judge.config import JudgeSettings
from tests.campaigns.helpers import pairwise_body


def _campaign(n_prompts: int = 4, pairs: int = 2) -> CampaignRecord:
    """``n_prompts`` prompts, ``pairs`` items (model pairs) on each."""
    body = pairwise_body("files-1", n_items=n_prompts * pairs, validation="auto",
                         validation_every=4, qc={"min_validation_accuracy": 0.8})  # fmt: skip
    models = ["m1", "m2", "m3"]
    for n, item in enumerate(body["items"]):
        item["prompt"] = f"prompt number {n // pairs}"
        item["id"] = f"task{n // pairs}:{n % pairs}"
        item["a"]["model"], item["b"]["model"] = models[n % pairs], models[n % pairs + 1]
    record, _ = ingest(CampaignCreate.model_validate(body), JudgeSettings())
    return record


def _attempts(record: CampaignRecord, people: dict[str, float]) -> list[dict]:
    """Every person answers every item once; ``people`` gives how often each is right on
    validation items (1.0 = always, 0.0 = never)."""
    out = []
    for who, right in people.items():
        for n, item in enumerate(record.items):
            rule = item.validation
            correct = None if rule is None else (n % 10) < right * 10
            choice = "a" if rule is None else (rule.answer if correct else "ab"[rule.answer == "a"])
            out.append({"task": f"t{n}", "item": item.id, "annotator": who, "at": "t",
                        "validation": rule is not None, "correct": correct, "reason": None,
                        "choice": choice, "shown_left": "ab"[n % 2], "seconds": 4.0 + n % 3,
                        "accepted": True, "fast": False})  # fmt: skip
    return out


def test_the_annotator_plot_names_its_dots_and_draws_the_bar() -> None:
    record = _campaign()
    report = build_report(record, _attempts(record, {"ann-1": 1.0, "ann-2": 0.9,
                                                      "careless": 0.0}), n_boot=20)  # fmt: skip
    report["annotators"].append({**report["annotators"][0], "id": "no-gold",
                                 "validation_accuracy": None})  # fmt: skip
    fig = annotator_figure(report)
    ax = fig.axes[0]
    assert ax.get_ylim() == pytest.approx((NONE_Y - 0.07, 1.05))  # not autoscaled
    assert ax.get_xlim()[0] == 0
    names = {t.get_text() for t in ax.texts}
    assert {"ann-1", "ann-2", "careless", "no-gold"} <= names and " bar 0.8" in names
    bars = [line for line in ax.lines if set(line.get_ydata()) == {0.8}]
    assert len(bars) == 1
    assert ax.get_yticklabels()[0].get_text() == "none"
    plt.close(fig)


def test_report_md_says_what_a_missing_value_means_and_embeds_its_figures(
    tmp_path: Path,
) -> None:
    record = _campaign()
    one = _attempts(record, {"solo": 1.0})  # nobody labels an item twice
    report = build_report(record, one, n_boot=20)
    assert report["alpha"]["value"] is None
    text = markdown(report)
    assert "None" not in text
    assert "not computed yet — no item has two kept labels" in text
    assert "| no answers |" in text  # no flagged annotator answered validation tasks
    paths = write_report(build_report(record, _attempts(record, {"a": 1.0, "b": 0.9,
                                                                 "c": 0.0}), n_boot=20),
                         tmp_path)  # fmt: skip
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "None" not in md
    for png in [p for p in paths if p.suffix == ".png"]:
        assert f"]({png.name})" in md, png.name
    assert "](annotators.png)" in md and len([p for p in paths if p.suffix == ".png"]) >= 3


def test_leaderboard_rank_counts_prompts_of_a_campaign_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four prompts, two pairs of models on each: the board says 4 prompts, not 8."""
    record = _campaign(n_prompts=4, pairs=2)
    rows = vote_rows(record, _attempts(record, {"a": 1.0, "b": 1.0}), set())
    assert len({r["item"] for r in rows}) == 8 and len({r["prompt_id"] for r in rows}) == 4
    votes = tmp_path / "votes.jsonl"
    votes.write_text(to_jsonl(rows), encoding="utf-8")
    assert main(["leaderboard", "rank", str(votes), "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    assert f"{len(rows)} votes on 4 prompts" in out, out
    assert main(["leaderboard", "rank", str(votes), "--bootstrap", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_prompts"] == 4
