"""Judging under a trust policy at run time: ``--trust POLICY.json`` on `judge score`,
`judge compare` and `judge meta-eval`, ``trust=`` in Python (``judge.score``,
``judge.compare``, ``Judge``), and a cascade whose second judge runs only where the first
abstained, with ``usage.stages`` — against the fake provider."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image

import judge
from judge.cli.main import main
from judge.engine import Judge
from judge.trust.errors import TrustMismatch
from judge.trust.fingerprint import Fingerprint, fingerprint
from tests.conftest import submission
from tests.eval.conftest import cli_args, write_csv
from tests.judge.test_cli import write_submission
from tests.judge.test_score_flags import score
from tests.modes.test_compare import is_pairwise, prefers_red
from tests.modes.test_compare_cli import model_flags
from tests.modes.test_compare_cli import write_jsonl as write_comparisons


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch):
    for var in [v for v in os.environ if v.startswith("JUDGE_")]:
        monkeypatch.delenv(var)


def kind(thresholds: list) -> dict:
    return {"certified": True, "thresholds": thresholds, "n": 200, "kept": 150,
            "coverage": 0.75, "agreement": 0.95}  # fmt: skip


def write_policy(path: Path, stages: list[dict], kinds: dict) -> Path:
    path.write_text(json.dumps({"target": 0.9, "delta": 0.1, "stages": stages, "kinds": kinds}))
    return path


def stage(result: dict, name: str | None = None) -> dict:
    fp = fingerprint(result)
    return {"name": name or fp.label, "fingerprint": fp.model_dump()}


def test_score_cli_under_a_policy(provider, tmp_path: Path, capsys) -> None:
    seen = score(provider, tmp_path, capsys, "--confidence", "samples:2")
    policy = write_policy(tmp_path / "p.json", [stage(seen)], {"verdict": kind([0.5])})
    provider.reset()
    result = score(provider, tmp_path, capsys, "--trust", str(policy))  # no --confidence:
    items = result["objective"]["image"]["items"]  # the policy's method is used
    assert items and all(i["confidence_method"] == "samples:2" for i in items)
    assert all(i["trusted"] is (i["confidence"] >= 0.5) for i in items)
    assert all(("abstained_by" in i) is (not i["trusted"]) for i in items)
    # ratings of a kind the policy did not certify: never trusted, abstained by 'policy'
    dims = result["subjective"]["image"].values()
    assert all(d["trusted"] is False and d["abstained_by"] == "policy" for d in dims)

    # a policy calibrated with other options: refused before any call, naming both
    other = Fingerprint.model_validate({**fingerprint(seen).model_dump(), "digest": "",
        "options": {**seen["provenance"]["options"], "retrieval": "none"}})  # fmt: skip
    bad = write_policy(tmp_path / "bad.json", [{"name": "x", "fingerprint": other.model_dump()}],
                       {"verdict": kind([0.5])})  # fmt: skip
    provider.reset()
    path = write_submission(tmp_path / "sub2")
    code = main(["score", str(path), "--model", "openai/fake-judge", "--api-base",
                 provider.base_url, "--api-key", "k", "--trust", str(bad)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "was calibrated for" in err and "retrieval" in err
    assert provider.calls == 0
    assert main(["score", str(path), "--trust", str(tmp_path / "none.json")]) == 2
    assert "no such policy file" in capsys.readouterr().err


def test_compare_cli_and_python(provider, tmp_path: Path, capsys) -> None:
    provider.on(is_pairwise, prefers_red)
    src = write_comparisons(tmp_path / "cmp.jsonl", 2)
    assert main(["compare", str(src), *model_flags(provider), "--confidence", "swap"]) == 0
    seen = json.loads(capsys.readouterr().out.splitlines()[0])
    policy = write_policy(tmp_path / "p.json", [stage(seen)], {"winner.preference": kind([0.9])})
    assert main(["compare", str(src), *model_flags(provider), "--trust", str(policy)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["criteria"]["preference"]["trusted"] for r in rows] == [True, True]

    red, blue = Image.new("RGB", (64, 64), "red"), Image.new("RGB", (64, 64), "blue")
    got = judge.compare("a red square", blue, red, criteria=["preference"],
                        model="openai/fake-judge", api_base=provider.base_url, api_key="k",
                        trust=str(policy))  # fmt: skip
    assert got.criteria["preference"].trusted is True and got.criteria["preference"].winner == "b"


def test_a_cascade_in_python(provider, tmp_path: Path) -> None:
    sub = submission("CO", n_checks=1, prompt="a cascade")
    conn = {"api_base": provider.base_url, "api_key": "k", "cache": False}
    cheap = Judge(model="openai/fake-judge", confidence="samples:2", **conn).score(sub)
    strong = Judge(model="openai/fake-strong", confidence="samples:2", **conn).score(sub)
    stages = [stage(cheap.to_dict()), stage(strong.to_dict())]
    policy = write_policy(tmp_path / "cascade.json", stages, {"verdict": kind([None, 0.5])})
    provider.reset()
    result = Judge(model="openai/fake-judge", trust=policy, **conn).score(sub)
    items = result.objective["image"].items + result.objective["prompt"].items
    assert {i.stage for i in items} == {"openai/fake-strong"}  # the cheap one never decides
    assert all(i.trusted is (i.confidence >= 0.5) for i in items)
    usage = result.usage
    assert [s.name for s in usage.stages] == ["openai/fake-judge", "openai/fake-strong"]
    assert usage.stages[1].decisions == 2 and usage.llm_calls == provider.calls
    assert usage.llm_calls == sum(s.llm_calls for s in usage.stages)
    # a policy whose only kind the cheap judge decides never calls the strong one
    easy = write_policy(tmp_path / "easy.json", stages, {"verdict": kind([0.0, 0.5])})
    provider.reset()
    once = Judge(model="openai/fake-judge", trust=easy, **conn).score(sub)
    assert [s.name for s in once.usage.stages] == ["openai/fake-judge"]
    assert all(i.stage == "openai/fake-judge" for i in once.objective["image"].items)
    with pytest.raises(TrustMismatch, match="was calibrated for"):
        Judge(model="openai/fake-judge", retrieval="none", trust=policy, **conn)


def test_meta_eval_under_a_policy(provider, tmp_path: Path) -> None:
    data = tmp_path / "d"
    (data / "pics").mkdir(parents=True)
    rows = []
    for k, color in enumerate(["red", "navy", "olive", "teal"]):
        Image.new("RGB", (48, 48), color).save(data / "pics" / f"{k}.png")
        rows.append({"path": f"pics/{k}.png", "text": f"a {color} field", "mos": str(1 + k % 3)})
    write_csv(data / "labels.csv", ["path", "text", "mos"], rows)
    args = ["--dataset", "csv", "--data", data, "--columns",
            "image=path,prompt=text,target.appeal=mos", "--skills", "avt_appeal"]  # fmt: skip
    first = tmp_path / "first"
    assert main(cli_args(provider, *args, "--out", first, "--confidence", "samples:2")) == 0
    # the judge the run used: the same settings in this process (an empty memory folder)
    (tmp_path / "no-memory").mkdir()
    seen = Judge(model="openai/fake", api_base=provider.base_url, api_key="test-key",
                 safety=False, skills=["avt_appeal"], confidence="samples:2",
                 memory_dir=str(first / "no-memory")).score(
        {"task": {"id": "t", "category": "OE", "brief": "a red field"}, "prompt": "a red field",
         "images": [str(data / "pics" / "0.png")]})  # fmt: skip
    policy = write_policy(tmp_path / "p.json", [stage(seen.to_dict())],
                          {"rating.image.appeal": kind([0.5])})  # fmt: skip
    out = tmp_path / "out"
    assert main(cli_args(provider, *args, "--out", out, "--trust", policy)) == 0
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert all(set(p["trusted"]) == {"subjective.image.appeal"} for p in preds)
    report = json.loads((out / "report.json").read_text())
    assert report["config"]["trust"] == str(policy)
    appeal = report["trust"]["kinds"]["rating.image.appeal"]
    assert appeal["n"] == 4 and appeal["operating_point"]["kept"] == sum(
        p["trusted"]["subjective.image.appeal"] for p in preds
    )
    assert (out / "trust.png").is_file()
    assert "## Trust: agreement against coverage" in (out / "report.md").read_text()
    assert main(cli_args(provider, *args, "--out", out, "--trust", policy, "--url",
                         "http://127.0.0.1:9")) == 2  # fmt: skip
