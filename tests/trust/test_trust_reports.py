"""The risk–coverage section of the reports (eval.trust.coverage, eval.trust.report): the curve
against a direct count, the policy's operating point and the agreement on labelled items that
did not calibrate it; the study report (``--human-ratings``, ``--trust-policy``) and the
meta-eval report's section. The campaign report's is in
tests/campaigns/test_campaign_abstained.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

from eval.datasets.votes import VotesDataset
from eval.metaeval.trust_report import add_trust
from eval.trust.calibrate import calibrate
from eval.trust.coverage import Decision, curve, decisions, trust_section
from eval.trust.human import read_human
from eval.trust.report import trust_lines, trust_plot
from eval.trust.results_io import read_results
from judge.cli.main import main
from judge.trust import apply, unwrap
from tests.campaigns.helpers import COLOURS, png
from tests.studies.report_data import rows as study_rows
from tests.studies.report_data import write_study

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "trust"


def test_curve_matches_a_direct_count() -> None:
    rng = np.random.default_rng(3)
    conf = rng.uniform(size=400).round(2)  # ties of confidence: one point per distinct value
    agrees = rng.uniform(size=400) < 0.5 + 0.5 * conf
    ds = [Decision("verdict", f"s{i}", float(c), bool(a)) for i, (c, a) in
          enumerate(zip(conf, agrees, strict=True))]  # fmt: skip
    points = curve(ds)
    assert len(points) <= 60 and points[-1]["coverage"] == 1.0
    for p in points:
        kept = conf >= p["threshold"]
        assert p["kept"] == kept.sum()
        assert abs(p["agreement"] - agrees[kept].mean()) < 1e-4
        ci = binomtest(int(agrees[kept].sum()), int(kept.sum())).proportion_ci(0.95, "exact")
        assert abs(p["ci95"][0] - ci.low) < 1e-3 and abs(p["ci95"][1] - ci.high) < 1e-3
    # decisions without a confidence are never kept, but count in the coverage
    none = [Decision("verdict", "x", None, True)] * 100
    assert curve([*ds, *none])[-1]["coverage"] == 0.8
    assert curve(none) == [] and trust_section(none) == {}


def test_operating_point_and_held_out_agreement() -> None:
    cal_results = [unwrap(x) for x in read_results(EXAMPLES / "calibration.jsonl")]
    new_results = [unwrap(x) for x in read_results(EXAMPLES / "new.jsonl")]
    cal_rows = read_human(EXAMPLES / "labels.jsonl")
    new_rows = read_human(EXAMPLES / "export.jsonl")
    policy = calibrate([cal_results], cal_rows, target=0.9, delta=0.1).policy
    assert policy.calibrated_on == sorted(r["submission_id"] for r in cal_results)

    ds = decisions(cal_results + new_results, cal_rows + new_rows)
    section = trust_section(ds, policy)
    verdict = section["kinds"]["verdict"]
    assert verdict["n"] == 600 + 120  # two checkpoints of 300 + 60 labelled items
    # the operating point is calibration's own figure on the calibration items ...
    entry = policy.kinds["verdict"]
    cal_only = trust_section([d for d in ds if d.item.startswith("cal-")], policy)
    op = cal_only["kinds"]["verdict"]["operating_point"]
    assert (op["kept"], op["coverage"]) == (entry.kept, round(entry.coverage, 4))
    # ... and held out are the 60 labelled new items, counted directly
    cut = entry.thresholds[0]
    held = [d for d in ds if d.kind == "verdict" and d.item.startswith("new-")]
    kept = [d for d in held if d.confidence is not None and d.confidence >= cut]
    out = verdict["held_out"]
    assert (out["n"], out["kept"]) == (len(held), len(kept)) == (120, len(kept))
    assert out["agreement"] == round(sum(d.agrees for d in kept) / len(kept), 4)
    assert out["target"] == 0.9 and out["meets_target"] == (out["agreement"] >= 0.9)

    # results already marked by the policy: their flags are the operating point
    marked = [apply(r, policy) for r in new_results]
    flagged = trust_section(decisions(marked, new_rows), policy)["kinds"]["verdict"]
    assert flagged["operating_point"]["kept"] == len(kept)

    lines = trust_lines(section)
    assert "## Trust: agreement against coverage" in lines
    assert any(line.startswith("| verdict | 720 |") for line in lines)


def test_plot_is_drawn(tmp_path: Path) -> None:
    ds = [Decision("winner.preference", f"c{i}", i / 50, i % 4 != 0) for i in range(50)]
    path = trust_plot(trust_section(ds), tmp_path / "trust.png")
    assert path is not None and path.stat().st_size > 5000
    assert trust_plot({}, tmp_path / "none.png") is None


def _study_with_confidence(folder: Path) -> tuple[Path, Path]:
    """The report tests' study, each scored line with its judge result (an image ``appeal``
    with a confidence), and people's ratings that agree where the judge is sure."""
    lines, ratings = study_rows(), []
    for n, line in enumerate(lines):
        if line["status"] not in ("scored", "partial"):
            continue
        score = line["summary"]["subjective_image"]
        if score is None:
            continue
        conf = (n % 10) / 10
        line["result"] = {"submission_id": f"s{n}", "status": "scored",
                          "subjective": {"image": {"appeal": {
                              "score": score, "confidence": conf,
                              "confidence_method": "samples:5"}}},
                          "provenance": {"judge_models": ["mock/judge"],
                                         "confidence": "samples:5"}}  # fmt: skip
        human = score if conf >= 0.5 else 5.0 if score < 3 else 1.0
        item = f"{line['task_id']}.{line['prompter']}:{line['prompter']}/{line['backend']}"
        ratings.append({"item": item, "rating": round(min(max(human, 1), 5)),
                        "criterion": "appeal", "annotator": "r1"})  # fmt: skip
    write_study(folder, lines)
    path = folder.parent / "ratings.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ratings))
    return folder, path


def test_study_report_shows_the_curve(tmp_path: Path, capsys) -> None:
    folder, ratings = _study_with_confidence(tmp_path / "s")
    args = ["study", "report", str(folder), "--bootstrap", "0", "--human-ratings", str(ratings)]
    assert main(args) == 0, capsys.readouterr().err
    report = json.loads((folder / "report.json").read_text())
    appeal = report["trust"]["kinds"]["rating.image.appeal"]
    assert appeal["n"] == len(ratings.read_text().splitlines())
    assert all(p["agreement"] == 1.0 for p in appeal["curve"] if p["threshold"] >= 0.5)
    assert appeal["curve"][-1]["agreement"] < 0.8
    assert "operating_point" not in appeal  # no policy given
    assert "plots/trust.png" in report["plots"] and (folder / "plots" / "trust.png").is_file()
    assert "## Trust: agreement against coverage" in (folder / "report.md").read_text()

    policy = tmp_path / "policy.json"
    fp = {"judge_models": ["mock/judge"], "confidence": "samples:5"}
    policy.write_text(json.dumps({"target": 0.9, "delta": 0.1,
        "stages": [{"name": "mock/judge", "fingerprint": fp}], "calibrated_on": [],
        "kinds": {"rating.image.appeal": {"certified": True, "thresholds": [0.5], "n": 100,
                                          "kept": 50, "coverage": 0.5}}}))  # fmt: skip
    assert main([*args, "--no-plots", "--trust-policy", str(policy)]) == 0
    appeal = json.loads((folder / "report.json").read_text())["trust"]["kinds"][
        "rating.image.appeal"
    ]
    assert appeal["operating_point"]["agreement"] == 1.0
    assert appeal["held_out"]["meets_target"] is True  # nothing of the study calibrated it
    policy.write_text("{}")
    assert main([*args, "--no-plots", "--trust-policy", str(policy)]) == 2
    assert f"{policy}: target: missing" in capsys.readouterr().err


def test_meta_eval_report_section(tmp_path: Path) -> None:
    votes = tmp_path / "votes.jsonl"
    for i in range(80):
        (tmp_path / f"i{i}.png").write_bytes(png(COLOURS[i % 8], i))
    rows = [{"prompt_id": f"p{i}", "prompt": f"a kite {i}", "model_a": "x", "model_b": "y",
             "image_a": f"i{2 * i}.png", "image_b": f"i{2 * i + 1}.png",
             "winner": "a" if i % 3 else "b", "criterion": "preference", "annotator": "h"}
            for i in range(40)]  # fmt: skip
    votes.write_text("".join(json.dumps(r) + "\n" for r in rows))
    dataset = VotesDataset()
    items = dataset.load(votes)
    preds = [{"id": it.id, "scores": {"preference": 1.0}, "objective": {},
              "confidence": {"criteria.preference": 0.9 if n % 3 else 0.2}}
             for n, it in enumerate(items)]  # fmt: skip
    report: dict = {"config": {}}
    assert add_trust(report, items, preds, dataset, tmp_path) == tmp_path / "trust.png"
    points = report["trust"]["kinds"]["winner.preference"]["curve"]
    assert points[0]["agreement"] == 1.0 and points[-1]["agreement"] == round(26 / 40, 4)
    # predictions without confidence (the default run): no section, no plot
    assert add_trust({"config": {}}, items, [dict(p, confidence={}) for p in preds],
                     dataset, tmp_path / "x") is None  # fmt: skip
