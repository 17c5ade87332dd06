"""``judge campaign create SOURCE --from-abstained RESULTS``: the items no judge trusted go to
people; the campaign's export then goes into ``judge trust merge`` (every decision says who
decided it) and reads as calibration labels — end to end against a live service."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from eval.campaigns.abstained import abstained_for_campaign
from eval.campaigns.cli import main
from eval.campaigns.sources import campaign_body
from eval.leaderboards.votes import majority
from eval.trust.human import read_human
from eval.trust.labels import match
from judge.cli.main import main as judge_main
from judge.trust.errors import TrustError
from tests.api.conftest import LiveService
from tests.campaigns.helpers import COLOURS, answer_all, png

from .test_campaign_cli import study_run

PROVENANCE = {"judge_models": ["mock/judge"], "confidence": "samples:5",
              "options": {"backend": "litellm", "temperature": 0.0}}  # fmt: skip
FP = PROVENANCE


def policy(path: Path, kind: str) -> Path:
    """A one-stage policy trusting ``kind`` (and checklist verdicts) at confidence 0.8."""
    kinds = {k: {"certified": True, "thresholds": [0.8], "n": 100, "kept": 60, "coverage": 0.6,
                 "agreement": 0.95} for k in (kind, "verdict")}  # fmt: skip
    body = {"target": 0.9, "delta": 0.1, "stages": [{"name": "mock/judge", "fingerprint": FP}],
            "kinds": kinds}  # fmt: skip
    path.write_text(json.dumps(body))
    return path


def comparisons(path: Path) -> Path:
    """Compare results of the study run's 12 pairs; the judge is sure on tasks oe_0 and oe_1
    only. The results show the models the other way round from the source's pairs."""
    rows = []
    for t in range(4):
        for a, b in (("dalle", "flux"), ("dalle", "sd3"), ("flux", "sd3")):
            verdict = {"winner": "a", "confidence": 0.9 if t < 2 else 0.6,
                       "confidence_method": "samples:5"}  # fmt: skip
            rows.append({"comparison_id": f"cmp-{t}-{a}-{b}", "prompt_id": f"oe_{t}",
                         "status": "scored", "models": {"a": b, "b": a},
                         "criteria": {"preference": verdict},
                         "provenance": PROVENANCE})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def scores(path: Path) -> Path:
    """Score results of the folder's 6 images (``p0:x`` ...): visual_quality sure on model
    x only; each has one untrusted checklist verdict."""
    rows = []
    for model in ("x", "y"):
        for p in range(3):
            conf = 0.95 if model == "x" else 0.4
            dim = {"score": 4.0, "confidence": conf, "confidence_method": "samples:5"}
            check = {"id": "c1", "verdict": True, "confidence": 0.3,
                     "confidence_method": "samples:5"}  # fmt: skip
            rows.append({"submission_id": f"p{p}:{model}", "status": "scored",
                         "subjective": {"image": {"visual_quality": dim}},
                         "objective": {"image": {"items": [check]}},
                         "provenance": PROVENANCE})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def trust(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert judge_main(["trust", *argv]) == 0
    return capsys.readouterr().err


def test_untrusted_pairs_to_people_and_back(
    service: LiveService, anon: httpx.Client, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    url, source = service.base_url, study_run(tmp_path / "run")
    raw = comparisons(tmp_path / "compare.jsonl")
    marked = tmp_path / "trusted.jsonl"
    trust(capsys, "apply", "--results", str(raw), "--policy",
          str(policy(tmp_path / "p.json", "winner.preference")), "--out", str(marked))  # fmt: skip

    # unmarked results are refused: nothing says what was trusted
    code, _, err = run(capsys, "create", str(source), "--url", url, "--id", "x",
                       "--from-abstained", str(raw))  # fmt: skip
    assert code == 2 and "apply a policy first" in err
    code, out, err = run(capsys, "create", str(source), "--url", url, "--id", "abst-1",
                         "--kind", "pairwise", "--criterion", "preference", "--votes-per-item",
                         "2", "--min-seconds", "0", "--validation", "none",
                         "--from-abstained", str(marked))  # fmt: skip
    assert code == 0, err
    assert "6 of 6 untrusted preference comparisons sent to people" in out
    assert "campaign 'abst-1': 6 items" in out
    for who in ("a01", "a02"):
        answer_all(anon, invite_token(url, "abst-1", who, capsys), lambda task: {"choice": "a"})
    votes = tmp_path / "votes"
    assert run(capsys, "votes", "abst-1", "--url", url, "--out", str(votes))[0] == 0
    rows = [json.loads(x) for x in (votes / "votes.jsonl").read_text().splitlines()]
    assert {r["item"] for r in rows} == {f"cmp-{t}-{a}-{b}" for t in (2, 3)
                                         for a, b in (("dalle", "flux"), ("dalle", "sd3"),
                                                      ("flux", "sd3"))}  # fmt: skip
    # the campaign shows each pair as the result does, so its a/b are the result's
    results = {json.loads(x)["comparison_id"]: json.loads(x) for x in raw.read_text().splitlines()}
    assert all(r["model_a"] == results[r["item"]]["models"]["a"] for r in rows)

    final = tmp_path / "final.jsonl"
    err = trust(capsys, "merge", "--results", str(marked), "--human",
                str(votes / "votes.jsonl"), "--out", str(final))  # fmt: skip
    assert "6 decided by the judge, 6 by people, 0 still open" in err
    merged = [json.loads(x) for x in final.read_text().splitlines()]
    by_people = [r for r in merged if r["criteria"]["preference"]["decided_by"] == "people"]
    assert {r["prompt_id"] for r in by_people} == {"oe_2", "oe_3"}
    assert all(r["criteria"]["preference"]["people"] == 2 for r in by_people)
    # the campaign report sets the judge's confidence against the campaign's labels
    report_dir = tmp_path / "report"
    code, _, err = run(capsys, "report", "abst-1", "--url", url, "--out", str(report_dir),
                       "--bootstrap", "20", "--trust-results", str(raw),
                       "--trust-policy", str(tmp_path / "p.json"))  # fmt: skip
    assert code == 0, err
    section = json.loads((report_dir / "report.json").read_text())["trust"]
    pref = section["kinds"]["winner.preference"]
    said: dict[str, list[str]] = {}
    for r in rows:
        said.setdefault(r["item"], []).append(r["winner"])
    agreed = sum(majority(w) == "a" for w in said.values())  # the judge said a everywhere
    assert pref["n"] == 6 and pref["curve"][-1]["agreement"] == round(agreed / 6, 4)
    assert pref["operating_point"]["kept"] == 0  # every labelled pair was one it did not trust
    assert (report_dir / "trust.png").is_file()
    assert "## Trust: agreement against coverage" in (report_dir / "report.md").read_text()
    # the same export is a calibration label file for these results
    matched = match(
        read_human(votes / "votes.jsonl"), [json.loads(x) for x in raw.read_text().splitlines()]
    )
    assert len(matched) == 6


def invite_token(url: str, cid: str, who: str, capsys: pytest.CaptureFixture[str]) -> str:
    """One annotator's token, through ``judge campaign invite --names`` (printed CSV)."""
    code, out, err = run(capsys, "invite", cid, "--url", url, "--names", who)
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith(f"{who},"))
    return line.rsplit(",", 1)[-1]


def test_untrusted_ratings_and_verdicts(
    service: LiveService, anon: httpx.Client, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    url, folder = service.base_url, tmp_path / "imgs"
    for m, model in enumerate(("x", "y")):
        for p in range(3):
            (folder / model).mkdir(parents=True, exist_ok=True)
            (folder / model / f"p{p}.png").write_bytes(png(COLOURS[m + p], p))
    marked = tmp_path / "trusted.jsonl"
    trust(capsys, "apply", "--results", str(scores(tmp_path / "scores.jsonl")), "--policy",
          str(policy(tmp_path / "p.json", "rating.image.visual_quality")),
          "--out", str(marked))  # fmt: skip
    code, out, err = run(capsys, "create", str(folder), "--url", url, "--id", "abst-rate",
                         "--kind", "rating", "--criterion", "visual_quality",
                         "--votes-per-item", "1", "--min-seconds", "0", "--validation", "none",
                         "--from-abstained", str(marked))  # fmt: skip
    assert code == 0, err
    assert "3 of 3 untrusted visual_quality ratings sent to people" in out
    assert "6 untrusted checklist verdicts left out (a campaign has no yes/no task" in out
    token = invite_token(url, "abst-rate", "r1", capsys)
    assert answer_all(anon, token, lambda task: {"rating": 2}) == 3
    export = tmp_path / "ratings"
    assert run(capsys, "votes", "abst-rate", "--url", url, "--out", str(export))[0] == 0
    final = tmp_path / "final.jsonl"
    err = trust(capsys, "merge", "--results", str(marked), "--human",
                str(export / "ratings.jsonl"), "--out", str(final))  # fmt: skip
    assert "3 decided by the judge, 3 by people, 6 still open" in err  # verdicts: nobody yet
    merged = {}
    for line in final.read_text().splitlines():
        r = json.loads(line)
        merged[r["submission_id"]] = r["subjective"]["image"]["visual_quality"]
    assert {k for k, v in merged.items() if v["decided_by"] == "people"} == {"p0:y", "p1:y", "p2:y"}
    assert all(v["score"] == 2.0 and v["judge_answer"] == 4.0 for k, v in merged.items()
               if k.endswith(":y"))  # fmt: skip


def test_what_cannot_be_sent(tmp_path: Path) -> None:
    source = study_run(tmp_path / "run")
    marked = tmp_path / "trusted.jsonl"
    assert judge_main(["trust", "apply", "--results", str(comparisons(tmp_path / "c.jsonl")),
                       "--policy", str(policy(tmp_path / "p.json", "winner.preference")),
                       "--out", str(marked)]) == 0  # fmt: skip
    body = campaign_body(source, campaign_id="c", kind="pairwise", criterion="preference")
    with pytest.raises(TrustError, match="no untrusted comparisons of criterion 'alignment'"):
        abstained_for_campaign(dict(body, criterion="alignment"), marked)
    with pytest.raises(TrustError, match="--from-abstained works with --kind pairwise or rating"):
        abstained_for_campaign(dict(body, kind="ranking"), marked)
    other = campaign_body(source, campaign_id="c", kind="pairwise", criterion="preference",
                          compare="outputs")  # fmt: skip
    other["items"] = [dict(i, id="zz:" + i["id"].split(":", 1)[1]) for i in other["items"]]
    with pytest.raises(TrustError, match="name none of the source's items"):
        abstained_for_campaign(other, marked)
    assert main(["create", str(source), "--url", "http://127.0.0.1:9", "--id", "c",
                 "--from-judge", str(marked), "--from-abstained", str(marked)]) == 2  # fmt: skip
