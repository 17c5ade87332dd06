"""``judge trust calibrate|apply|merge`` on the files of examples/trust/ and on bad input:
unknown ids, duplicate annotators, NaN or out-of-scale ratings, labels of another kind, an
uncertifiable target (exit 2, no policy written), a policy for another judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import trust_examples
from judge.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "trust"


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_the_examples_are_what_their_script_writes(tmp_path):
    trust_examples.main(["--out", str(tmp_path)])
    for f in EXAMPLES.iterdir():
        assert (tmp_path / f.name).read_text() == f.read_text(), f.name


def test_calibrate_apply_merge(tmp_path, capsys):
    policy, trusted, final = tmp_path / "p.json", tmp_path / "t.jsonl", tmp_path / "f.jsonl"
    assert main(["trust", "calibrate", "--results", str(EXAMPLES / "calibration.jsonl"),
                 "--human", str(EXAMPLES / "labels.jsonl"), "--target", "0.9", "--delta", "0.1",
                 "--alpha", "0.1", "--out", str(policy)]) == 0  # fmt: skip
    data = json.loads(policy.read_text())
    assert data["kinds"]["verdict"]["certified"] and data["kinds"]["verdict"]["upper_bound"] <= 0.1
    assert data["kinds"]["rating.image.appeal"]["interval"]["step"] == 1.0
    assert main(["trust", "apply", "--results", str(EXAMPLES / "new.jsonl"), "--policy",
                 str(policy), "--out", str(trusted)]) == 0  # fmt: skip
    out = lines(trusted)
    items = [i for r in out for i in r["objective"]["image"]["items"]]
    assert all(isinstance(i["trusted"], bool) for i in items)
    assert all("abstained_by" in i for i in items if not i["trusted"])
    assert all("interval" in r["subjective"]["image"]["appeal"] for r in out)
    assert main(["trust", "merge", "--results", str(trusted), "--human",
                 str(EXAMPLES / "export.jsonl"), "--out", str(final)]) == 0  # fmt: skip
    merged = [i for r in lines(final) for i in r["objective"]["image"]["items"]]
    assert {i["decided_by"] for i in merged} == {"judge", "people", None}
    assert all(i["trusted"] for i in merged if i["decided_by"] == "judge")
    assert "decided by the judge" in capsys.readouterr().err


def test_a_cascade_from_campaign_votes(tmp_path):
    policy = tmp_path / "cascade.json"
    assert main(["trust", "calibrate", "--results", str(EXAMPLES / "cheap.jsonl"), "--results",
                 str(EXAMPLES / "strong.jsonl"), "--human", str(EXAMPLES / "votes.jsonl"),
                 "--out", str(policy)]) == 0  # fmt: skip
    entry = json.loads(policy.read_text())["kinds"]["winner.preference"]
    assert len(entry["thresholds"]) == 2 and entry["stage_share"][0] > 0.3
    out = tmp_path / "o.jsonl"
    assert main(["trust", "apply", "--results", str(EXAMPLES / "cheap.jsonl"), "--results",
                 str(EXAMPLES / "strong.jsonl"), "--policy", str(policy),
                 "--out", str(out)]) == 0  # fmt: skip
    stages = {r["criteria"]["preference"]["stage"] for r in lines(out)}
    assert stages == {"openai/cheap", "openai/strong"}


def test_an_uncertifiable_target_exits_2_and_writes_nothing(tmp_path, capsys):
    policy = tmp_path / "p.json"
    code = main(["trust", "calibrate", "--results", str(EXAMPLES / "calibration.jsonl"),
                 "--human", str(EXAMPLES / "labels.jsonl"), "--target", "0.995",
                 "--out", str(policy)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and not policy.exists()
    assert "cannot be certified" in err and "largest target these items certify is" in err
    assert "labelled items would certify 0.995" in err or "no number of labels" in err


def test_a_policy_for_another_judge_is_refused(tmp_path, capsys):
    policy = tmp_path / "p.json"
    main(["trust", "calibrate", "--results", str(EXAMPLES / "cheap.jsonl"), "--human",
          str(EXAMPLES / "votes.jsonl"), "--out", str(policy)])  # fmt: skip
    out = tmp_path / "o.jsonl"
    code = main(["trust", "apply", "--results", str(EXAMPLES / "strong.jsonl"), "--policy",
                 str(policy), "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "openai/cheap" in err and "openai/strong" in err


def bad_labels(tmp_path: Path, rows: list, name: str = "h.jsonl") -> tuple[int, str, Path]:
    human = tmp_path / name
    if name.endswith(".csv"):
        human.write_text(rows[0])
    else:
        human.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "p.json"
    code = main(["trust", "calibrate", "--results", str(EXAMPLES / "calibration.jsonl"),
                 "--human", str(human), "--out", str(out)])  # fmt: skip
    assert not out.exists()
    return code, human


GOOD = {"id": "cal-001", "criterion": "image.c1", "verdict": True, "annotator": "a"}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([GOOD, {**GOOD, "id": "nope"}], ":2: field 'id': 'nope' is not an item of the results"),
        ([GOOD, GOOD], ":2: a second label of annotator 'a' for cal-001 image.c1"),
        (
            [{**GOOD, "criterion": "image.appeal", "verdict": None, "rating": "NaN"}],
            ":1: field 'rating': 'NaN' is not a finite number",
        ),
        (
            [{"id": "cal-001", "criterion": "appeal", "rating": 7, "annotator": "a"}],
            ":1: field 'rating': 7 is outside the 1–5 scale",
        ),
        (
            [{"id": "cal-001", "criterion": "image.appeal", "verdict": True, "annotator": "a"}],
            ":1: field 'verdict': image.appeal of cal-001 is a rating",
        ),
        ([{"id": "cal-001", "criterion": "c9", "verdict": True}], ":1: field 'criterion': 'c9'"),
        (
            [{"item": "cal-001", "annotator": "a", "accepted": True, "rating": 3}],
            ":1: a campaign's attempts name no criterion",
        ),
    ],
)
def test_bad_human_files_are_named_by_file_line_and_field(tmp_path, capsys, rows, message):
    for row in rows:
        row.pop("verdict", None) if row.get("verdict") is None and "rating" in row else None
    code, human = bad_labels(tmp_path, rows)
    err = capsys.readouterr().err
    assert code == 2 and f"{human}{message}" in err, err


def test_csv_votes_turned_round_match_by_prompt_and_models(tmp_path):
    votes = tmp_path / "votes.csv"
    rows = [r for r in lines(EXAMPLES / "votes.jsonl")]
    text = "prompt_id,model_a,model_b,winner,criterion,annotator\n" + "".join(
        f"{r['prompt_id']},sd3,flux,{ {'a': 'b', 'b': 'a'}[r['winner']] },preference,"
        f"{r['annotator']}\n"
        for r in rows
    )
    votes.write_text(text)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    args = ["trust", "calibrate", "--results", str(EXAMPLES / "strong.jsonl"), "--human"]
    assert main([*args, str(votes), "--out", str(a)]) == 0
    assert main([*args, str(EXAMPLES / "votes.jsonl"), "--out", str(b)]) == 0
    assert json.loads(a.read_text())["kinds"] == json.loads(b.read_text())["kinds"]


def test_merge_needs_applied_results(tmp_path, capsys):
    shutil.copy(EXAMPLES / "new.jsonl", tmp_path / "new.jsonl")
    code = main(["trust", "merge", "--results", str(tmp_path / "new.jsonl"), "--human",
                 str(EXAMPLES / "export.jsonl"), "--out", str(tmp_path / "f.jsonl")])  # fmt: skip
    assert code == 2 and "judge trust apply" in capsys.readouterr().err


def test_help_lists_the_documented_flags(capsys):
    for action, flags in {
        "calibrate": ["--results", "--human", "--human-dataset", "--criterion", "--target",
                      "--delta", "--alpha", "--out"],
        "apply": ["--results", "--policy", "--out"],
        "merge": ["--results", "--human", "--human-dataset", "--criterion", "--out"],
    }.items():  # fmt: skip
        with pytest.raises(SystemExit):
            main(["trust", action, "--help"])
        out = capsys.readouterr().out
        assert all(f in out for f in flags), action
        page = (EXAMPLES.parents[1] / "docs" / "trust.md").read_text()
        assert all(f"`{f}" in page for f in flags), (
            action,
            [f for f in flags if f"`{f}" not in page],
        )


EXPERT = Path(__file__).resolve().parents[1] / "eval" / "fixtures" / "expert"


def expert_results(path: Path) -> None:
    """Results of the expert fixture's items that agree with its labels, all fairly sure."""
    out = []
    for row in lines(EXPERT / "items.jsonl"):
        objective = {
            side: {"items": [{"id": cid, "verdict": v, "confidence": 0.9}
                             for cid, v in checks.items()]}
            for side, checks in row["objective"].items()
        }  # fmt: skip
        subjective = {
            side: {dim: {"score": lab["mean"], "confidence": 0.9} for dim, lab in dims.items()}
            for side, dims in row["subjective"].items()
        }
        out.append({"submission_id": row["id"], "objective": objective, "subjective": subjective,
                    "provenance": {"judge_models": ["openai/fake-judge"],
                                   "confidence": "samples:5"}})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in out))


def test_a_meta_eval_datasets_labels_through_its_adapter(tmp_path, capsys):
    results, a, b = tmp_path / "r.jsonl", tmp_path / "a.json", tmp_path / "b.json"
    expert_results(results)
    base = ["trust", "calibrate", "--results", str(results), "--target", "0.8"]
    assert main([*base, "--human-dataset", "expert-jsonl", "--human", str(EXPERT),
                 "--out", str(a)]) == 0  # fmt: skip
    verdict = json.loads(a.read_text())["kinds"]["verdict"]
    assert verdict["certified"] and verdict["agreement"] == 1.0
    # the same file read line by line as expert-jsonl rows gives the same policy
    assert main([*base, "--human", str(EXPERT / "items.jsonl"), "--out", str(b)]) == 0
    assert json.loads(a.read_text())["kinds"] == json.loads(b.read_text())["kinds"]


def test_a_campaigns_attempts_with_their_criterion(tmp_path):
    attempts = tmp_path / "attempts.jsonl"
    rows = []
    for v in lines(EXAMPLES / "votes.jsonl"):
        rows.append({"annotator": v["annotator"], "item": v["item"], "accepted": True,
                     "validation": False, "choice": v["winner"], "seconds": 3.0})  # fmt: skip
    rows.append({"annotator": "x", "item": "cmp-001", "accepted": False, "choice": "a"})
    rows.append({"annotator": "x", "item": "validation-1", "accepted": True, "validation": True})
    attempts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    base = ["trust", "calibrate", "--results", str(EXAMPLES / "strong.jsonl"), "--human"]
    assert main([*base, str(attempts), "--criterion", "preference", "--out", str(a)]) == 0
    assert main([*base, str(EXAMPLES / "votes.jsonl"), "--out", str(b)]) == 0
    assert json.loads(a.read_text())["kinds"] == json.loads(b.read_text())["kinds"]


def test_results_without_confidence_or_of_other_items_are_refused(tmp_path, capsys):
    plain = tmp_path / "plain.jsonl"
    rows = lines(EXAMPLES / "strong.jsonl")
    for r in rows:
        r["criteria"]["preference"].pop("confidence")
        r["criteria"]["preference"].pop("confidence_method")
        r["provenance"].pop("confidence")
    plain.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "p.json"
    args = ["trust", "calibrate", "--human", str(EXAMPLES / "votes.jsonl"), "--out", str(out)]
    assert main([*args, "--results", str(plain)]) == 2
    assert "no decision carries a confidence" in capsys.readouterr().err
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("".join(json.dumps(r) + "\n" for r in lines(EXAMPLES / "strong.jsonl")[:-1]))
    assert main([*args, "--results", str(EXAMPLES / "cheap.jsonl"), "--results", str(fewer)]) == 2
    assert "not of the same items" in capsys.readouterr().err and not out.exists()
