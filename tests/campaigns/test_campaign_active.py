"""``judge campaign create --from-judge RESULTS --budget N --selection-out FILE``: humans get
the pairs drawn by the judge's uncertainty; the selection file weights their votes later."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from eval.campaigns.active import select_for_campaign
from eval.campaigns.cli import main
from eval.campaigns.sources import campaign_body
from tests.api.conftest import LiveService

from .test_campaign_cli import study_run


def judge_results(path: Path, flips: set[str]) -> Path:
    """ComparisonResults of every pair of the study run (4 tasks x 3 backends): the judge
    flips with the order (a tie) on the tasks in ``flips``, else prefers the first name."""
    rows = []
    for t in range(4):
        for a, b in (("dalle", "flux"), ("dalle", "sd3"), ("flux", "sd3")):
            winner = "tie" if f"oe_{t}" in flips else "a"
            verdict = {"winner": winner, "position_consistent": winner != "tie"}
            rows.append({"comparison_id": f"cmp-{t}-{a}-{b}", "prompt_id": f"oe_{t}",
                         "status": "scored", "models": {"a": a, "b": b},
                         "criteria": {"preference": verdict}})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_uncertain_pairs_are_drawn_more_often(tmp_path: Path) -> None:
    source = study_run(tmp_path / "run")
    results = judge_results(tmp_path / "judge.jsonl", flips={"oe_0"})
    body = campaign_body(source, campaign_id="c", kind="pairwise", criterion="preference")
    drawn, rows = select_for_campaign(body, results, budget=4, seed=1)
    assert len(rows) == 12 and abs(sum(r["probability"] for r in rows) - 4) < 1e-4
    prob = {r["prompt_id"]: r["probability"] for r in rows}
    assert prob["oe_0"] > 2 * prob["oe_1"]  # the position flips
    assert all(0 <= r["unresolved"] <= 1 for r in rows)  # how unresolved each model pair is
    _, flat = select_for_campaign(body, results, budget=4, seed=1, pair_boost=0)
    assert all("unresolved" not in r for r in flat)
    chosen = {(r["prompt_id"], r["model_a"], r["model_b"]) for r in rows if r["selected"]}
    assert len(drawn["items"]) == len(chosen) > 0
    assert all(i["id"].split(":")[0] in {p for p, _, _ in chosen} for i in drawn["items"])
    with pytest.raises(ValueError, match="no judge votes for criterion 'alignment'"):
        select_for_campaign(dict(body, criterion="alignment"), results, budget=4)
    with pytest.raises(ValueError, match="--from-judge works with --kind pairwise"):
        select_for_campaign(dict(body, kind="rating"), results, budget=4)


def test_create_from_judge_against_the_service(
    service: LiveService, admin: httpx.Client, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    source = study_run(tmp_path / "run")
    results = judge_results(tmp_path / "judge.jsonl", flips={"oe_2", "oe_3"})
    selection = tmp_path / "selection.jsonl"
    args = ["create", str(source), "--url", service.base_url, "--id", "active-1", "--kind",
            "pairwise", "--from-judge", str(results)]  # fmt: skip
    assert main(args) == 2
    assert "--from-judge needs --budget N and --selection-out FILE" in capsys.readouterr().err
    more = [
        "--budget",
        "6",
        "--floor",
        "0.2",
        "--pair-boost",
        "1",
        "--selection-out",
        str(selection),
    ]
    assert main([*args, *more]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in selection.read_text().splitlines()]
    n = sum(r["selected"] for r in rows)
    assert f"{n} of 12 judged pairs drawn for humans" in out
    assert f"campaign 'active-1': {n} items" in out
    assert min(r["probability"] for r in rows) >= 0.2
    record = admin.get(f"{service.base_url}/v1/campaigns/active-1").json()
    assert record["n_items"] == n
