"""The loop closes: a rating campaign answered by simulated annotators through the live
service, its kept ratings added to an exemplar memory with `judge campaign add-to-memory`
(a contrarian rater flagged by the consensus rule and absent from the memory, a seeded share
of items held out), then the report with judge–human agreement before and after on the
held-out items only."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import numpy as np
import pytest

from api.state import state_of
from eval.campaigns.cli import main
from eval.campaigns.loop import split_items
from tests.api.conftest import LiveService
from tests.campaigns.helpers import (
    COLOURS,
    answer_all,
    data_url,
    fingerprint,
    invite,
    png,
    stored,
)

pytestmark = pytest.mark.slow

N_ITEMS = 10
TRUE = {f"r{i}": 1 + i % 5 for i in range(N_ITEMS)}  # each item's true quality
OFFSET = {"a01": 0, "a02": 0, "a03": 1, "a04": 0}  # a03 rates one point high (kept)


def rating_campaign(cid: str) -> tuple[dict, dict[str, str]]:
    """A rating campaign body and the stored image's fingerprint -> item map."""
    items, key_of = [], {}
    for i in range(N_ITEMS):
        raw = png(COLOURS[i % 8], i)
        key_of[fingerprint(stored(raw))] = f"r{i}"
        items.append({"id": f"r{i}", "prompt": f"a lighthouse at dusk, take {i}",
                      "image": data_url(raw), "model": f"m{i % 2}"})  # fmt: skip
    body = {"id": cid, "kind": "rating", "criterion": "visual_quality", "items": items,
            "votes_per_item": 4, "session_size": 5, "min_seconds": 0.0,
            "validation": "none", "seed": 2}  # fmt: skip
    return body, key_of


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_kept_ratings_to_memory_and_before_after_report(
    service: LiveService, admin: httpx.Client, anon: httpx.Client, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    url, cid, name = service.base_url, "loop-1", "loop-raters"
    body, key_of = rating_campaign(cid)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    given: dict[tuple[str, str], int] = {}
    for inv in invite(admin, cid, 4):
        who = inv["annotator"]

        def pick(task: dict, who: str = who) -> dict:
            item = key_of[fingerprint(anon.get(task["images"][-1]).content)]
            true = TRUE[item]
            rating = 6 - true if who == "a04" else min(5, true + OFFSET[who])
            given[(who, item)] = rating
            return {"rating": rating, "reason": f"{who} on {item}"}

        assert answer_all(anon, inv["token"], pick) == N_ITEMS

    split_file = tmp_path / "split.json"
    code, out, err = run("add-to-memory", cid, "--url", url, "--memory", name, "--holdout",
                         "0.3", "--seed", "7", "--split-out", str(split_file),
                         capsys=capsys)  # fmt: skip
    assert code == 0, err
    split = json.loads(split_file.read_text())
    expect_mem, expect_out = split_items(TRUE, holdout=0.3, seed=7)
    assert (split["memory"], split["held_out"]) == (expect_mem, expect_out)
    assert len(expect_out) == 3 and "added 7 items" in out and "held out 3" in out

    # the memory holds exactly the kept items' aggregated scores, the contrarian a04 absent
    mem = state_of(service.app).judge.store.load(name)
    got = {r.meta["item"]: r for r in mem.records}
    assert sorted(got) == expect_mem and not set(got) & set(expect_out)
    for item, rec in got.items():
        kept = [given[(w, item)] for w in ("a01", "a02", "a03")]
        assert rec.scores == {"visual_quality": pytest.approx(np.mean(kept), abs=1e-4)}
        assert rec.score_n == {"visual_quality": 3}
        assert rec.score_sd["visual_quality"] == pytest.approx(np.std(kept), abs=1e-4)
        assert "a04" not in rec.rationales["visual_quality"]
        assert all(f"{w} on {item}" in rec.rationales["visual_quality"]
                   for w in ("a01", "a02", "a03"))  # fmt: skip
        assert rec.modality == "image" and mem.image_path(rec).is_file()
    assert mem.manifest.count == 7

    # judge answers before/after: before is one point off on the held-out items, after is on
    # target; on the memory items both are wildly off, which must not reach the figures
    mean = {i: np.mean([given[(w, i)] for w in ("a01", "a02", "a03")]) for i in TRUE}
    before = [{"item": i, "score": 5.0 if mean[i] < 3 else 1.0} for i in TRUE]
    after = [{"submission_id": i, "subjective": {"image": {"visual_quality": {
        "score": round(mean[i]) if i in expect_out else (5.0 if mean[i] < 3 else 1.0)}}}}
        for i in TRUE]  # fmt: skip
    for fname, rows in (("before.jsonl", before), ("after.jsonl", after)):
        (tmp_path / fname).write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = run("report", cid, "--url", url, "--out", str(tmp_path / "rep"),
                         "--bootstrap", "30", "--split", str(split_file), "--judge-before",
                         str(tmp_path / "before.jsonl"), "--judge-after",
                         str(tmp_path / "after.jsonl"), capsys=capsys)  # fmt: skip
    assert code == 0, err
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    flagged = {a["id"] for a in report["annotators"] if a["flagged"]}
    assert flagged == {"a04"}
    ma = report["judge_memory_agreement"]
    assert ma["held_out_items"] == 3 and ma["memory"] == name
    # independent recomputation on the held-out items: within one point of the kept mean
    hits_before = sum(abs(b["score"] - mean[b["item"]]) <= 1 for b in before
                      if b["item"] in expect_out)  # fmt: skip
    assert ma["before"]["judge_human"]["pairs"] == 3
    assert ma["before"]["judge_human"]["rate"] == pytest.approx(hits_before / 3, abs=1e-4)
    assert ma["after"]["judge_human"]["rate"] == 1.0
    assert ma["after"]["judge_human"]["pairs"] == 3
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "before/after the memory" in md and "3 held-out items" in md

    # errors say what to do
    code, _, err = run("report", cid, "--url", url, "--out", str(tmp_path / "r2"), "--split",
                       str(split_file), capsys=capsys)  # fmt: skip
    assert code == 2 and "go together" in err
    code, _, err = run("add-to-memory", cid, "--url", url, "--memory", name, "--holdout", "1",
                       "--split-out", str(tmp_path / "s2.json"), capsys=capsys)  # fmt: skip
    assert code == 2 and "fraction" in err
    code, _, err = run("add-to-memory", cid, "--url", url, "--memory", name, "--split-out",
                       str(tmp_path / "s3.json"), capsys=capsys)  # fmt: skip
    assert code == 2 and "already in memory" in err
    assert state_of(service.app).judge.store.load(name).manifest.count == 7
