"""Policies read and applied by the engine (judge.trust): hand edits refused, results of another
judge refused naming both, trusted/abstained_by/interval on every decision kind, cascades."""

from __future__ import annotations

import copy
import json

import pytest

from judge.trust import TrustError, TrustMismatch, apply, apply_stages, parse_policy, read_policy

FP = {"judge_models": ["openai/judge"], "confidence": "samples:5", "options": {"temperature": 0.0},
      "cards": {"appeal": "1"}}  # fmt: skip


def policy(**kinds):
    return parse_policy({"target": 0.9, "delta": 0.1,
                         "stages": [{"name": "openai/judge", "fingerprint": FP}],
                         "kinds": kinds})  # fmt: skip


def entry(threshold, **extra):
    return {"certified": True, "thresholds": [threshold], "n": 100, "kept": 80, "coverage": 0.8,
            **extra}  # fmt: skip


def provenance(models=("openai/judge",), method="samples:5", cards=None):
    return {"judge_models": list(models), "confidence": method, "options": {"temperature": 0.0},
            "skills": cards if cards is not None else {"appeal": "1"}}  # fmt: skip


def score_result():
    return {
        "submission_id": "s1", "provenance": provenance(),
        "subjective": {"prompt": {}, "image": {"appeal": {"score": 3.4, "confidence": 0.9}}},
        "objective": {"prompt": {"items": []}, "image": {"rate": 50.0, "items": [
            {"id": "c1", "verdict": True, "confidence": 0.95},
            {"id": "c2", "verdict": False, "confidence": 0.4},
            {"id": "c3", "verdict": None, "reason": "timeout", "confidence": None}]}},
    }  # fmt: skip


def test_every_decision_gets_trusted_and_ratings_an_interval():
    interval = {"alpha": 0.1, "quantile": 1.2, "n": 100}
    p = policy(verdict=entry(0.8), **{"rating.image.appeal": entry(0.5, interval=interval)})
    out = apply(score_result(), p)
    items = out["objective"]["image"]["items"]
    assert [(i["trusted"], i.get("abstained_by")) for i in items] == [
        (True, None), (False, "openai/judge"), (False, "openai/judge")]  # fmt: skip
    appeal = out["subjective"]["image"]["appeal"]
    assert appeal["trusted"] is True and appeal["interval"] == [3.0, 4.0]
    assert "trusted" not in score_result()["objective"]["image"]["items"][0]  # input untouched


def test_a_kind_the_policy_did_not_certify_is_abstained_by_the_policy():
    p = policy(verdict={"certified": False, "n": 30, "kept": 0, "coverage": 0.0})
    out = apply(score_result(), p)
    assert {i["abstained_by"] for i in out["objective"]["image"]["items"]} == {"policy"}
    assert out["subjective"]["image"]["appeal"]["abstained_by"] == "policy"  # no entry at all


def test_comparison_and_edit_criteria():
    p = policy(**{"winner.preference": entry(0.7), "rating.edit.visual_quality": entry(0.7)})
    cmp = {"comparison_id": "c1", "mode": "compare", "provenance": provenance(),
           "criteria": {"preference": {"winner": "a", "confidence": 0.8}}}  # fmt: skip
    assert apply(cmp, p)["criteria"]["preference"]["trusted"] is True
    edit = {"submission_id": "e1", "mode": "edit", "provenance": provenance(),
            "criteria": {"visual_quality": {"score": 4, "confidence": 0.6}}}  # fmt: skip
    assert apply(edit, p)["criteria"]["visual_quality"]["abstained_by"] == "openai/judge"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"models": ("openai/other",)}, "openai/other"),
        ({"method": "swap"}, "confidence swap"),
        ({"cards": {"appeal": "2"}}, "version 2"),
    ],
)
def test_results_of_another_judge_are_refused_naming_both(change, named):
    result = score_result()
    result["provenance"] = provenance(**change)
    with pytest.raises(TrustMismatch) as err:
        apply(result, policy(verdict=entry(0.8)))
    assert named in str(err.value) and "openai/judge" in str(err.value)


def cascade_policy():
    cheap = {**FP, "judge_models": ["openai/cheap"]}
    return parse_policy({"target": 0.9, "delta": 0.1, "stages": [
        {"name": "openai/cheap", "fingerprint": cheap},
        {"name": "openai/judge", "fingerprint": FP}],
        "kinds": {"verdict": {"certified": True, "thresholds": [0.9, 0.6], "n": 9, "kept": 9,
                              "coverage": 1.0}}})  # fmt: skip


def test_a_cascade_takes_the_first_confident_stage_and_recounts():
    cheap = score_result()
    cheap["provenance"] = provenance(models=("openai/cheap",))
    strong = copy.deepcopy(score_result())
    strong["objective"]["image"]["items"][1].update(verdict=True, confidence=0.7)
    first = apply_stages([cheap], cascade_policy())
    c2 = first["objective"]["image"]["items"][1]
    assert c2["trusted"] is False and c2["escalate"] is True and c2["stage"] == "openai/cheap"
    both = apply_stages([cheap, strong], cascade_policy())
    items = both["objective"]["image"]["items"]
    assert [i["stage"] for i in items] == ["openai/cheap", "openai/judge", "openai/judge"]
    assert items[1]["verdict"] is True and items[1]["trusted"] is True
    assert both["objective"]["image"]["rate"] == 100.0  # c1 and c2 passed, c3 undecided
    with pytest.raises(TrustError, match="one result per stage"):
        apply_stages([cheap, strong, strong], cascade_policy())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["kinds"]["verdict"].update(thresholds=[-0.1]), "kinds.verdict.thresholds.0"),
        (lambda d: d["stages"][0].pop("fingerprint"), "stages.0.fingerprint: missing"),
        (lambda d: d["stages"][0]["fingerprint"].update(judge_models=["x"]), "hand edit"),
        (lambda d: d["kinds"]["verdict"].update(thresholds=[0.5, 0.5]), "one threshold per stage"),
        (lambda d: d.update(target=1.5), "target"),
        (lambda d: d["kinds"]["verdict"].pop("thresholds"), "needs its thresholds"),
    ],
)
def test_a_hand_edited_policy_is_refused_naming_the_field(tmp_path, edit, message):
    data = json.loads(policy(verdict=entry(0.8)).to_json())
    edit(data)
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TrustError) as err:
        read_policy(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_a_policy_round_trips_and_bad_files_are_named(tmp_path):
    p = policy(verdict=entry(0.8))
    path = tmp_path / "p.json"
    path.write_text(p.to_json())
    assert read_policy(path) == p
    path.write_text("{not json")
    with pytest.raises(TrustError, match="not a JSON policy"):
        read_policy(path)
    with pytest.raises(TrustError, match="no such policy file"):
        read_policy(tmp_path / "missing.json")
