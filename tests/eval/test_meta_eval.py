"""``judge meta-eval`` end to end against the fake provider: the output contract, leakage,
leave-one-prompt-out, resume, calibration, ablations, expert-jsonl, IQA baselines."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from scipy.stats import spearmanr

from eval.datasets.avt import AvtDataset
from eval.datasets.base import EvalItem
from eval.kit.client import LocalJudge
from eval.metaeval.meta_eval import REFERENCE, MetaEvalConfig, run_meta_eval
from judge.calibration import Calibration
from judge.cli.main import main
from judge.config import JudgeSettings
from judge.engine import Judge
from memory.store import MemoryStore
from tests.eval.conftest import (
    AVT_SKILLS,
    BLANK_APPEAL2,
    EXPERT,
    cli_args,
    read_csv,
    require_dev,
    write_csv,
)
from tests.fakes.provider import FakeProvider

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

AVT_TARGETS = ["prompt_matching", "appeal", "realism", "quality", "appeal2"]
METRIC_KEYS = {"spearman", "kendall", "pearson", "mae", "within1", "n", "ci95"}
CALLS_PER_AVT_ITEM = 4  # one call per AVT card, safety off
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_preds(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def read_report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def is_png(path: Path) -> bool:
    return path.is_file() and path.read_bytes()[:8] == PNG_MAGIC


def record_id(image: str) -> str:
    """The avt-image memory's id for a labels.csv image path."""
    return image.removeprefix("images/").removesuffix(".png")


def permute_labels(src: Path, dst: Path, shift: int = 3) -> Path:
    """A copy of an AVT split whose label columns and individual ratings are rotated across rows."""
    shutil.copytree(src, dst)
    header, rows = read_csv(src / "labels.csv")
    cols = [c for c in header if c.endswith("_mean") or c.endswith("_std")]
    rotated = rows[shift:] + rows[:shift]
    out = [{**r, **{c: other[c] for c in cols}} for r, other in zip(rows, rotated, strict=True)]
    assert all(a["appeal_mean"] != b["appeal_mean"] for a, b in zip(rows, out, strict=True))
    write_csv(dst / "labels.csv", header, out)
    rh, ratings = read_csv(src / "ratings.csv")
    values = [r["rating"] for r in ratings]
    values = values[7:] + values[:7]
    write_csv(
        dst / "ratings.csv", rh, [{**r, "rating": v} for r, v in zip(ratings, values, strict=True)]
    )
    return dst


def request_texts(requests: list[dict]) -> set[str]:
    return {json.dumps(r["messages"], sort_keys=True) for r in requests}


# ------------------------------------------------------------------------------ the contract


def test_contract_files(
    meta_eval: Callable[..., dict], split_a: Path, split_b: Path, tmp_path: Path
):
    out = tmp_path / "out"
    report = meta_eval(split_a, out, memory_from=split_b)
    _, rows = read_csv(split_a / "labels.csv")

    preds = read_preds(out)
    assert [p["image"] for p in preds] == [r["image"] for r in rows]  # exactly as in labels.csv
    for p in preds:
        assert "error" not in p and p["status"] == "scored"
        assert set(p["scores"]) == set(AVT_TARGETS)
        for v in p["scores"].values():
            assert isinstance(v, int | float) and not isinstance(v, bool) and 1 <= v <= 5
        assert p["exemplars"], "a memory was given: every item is calibrated by exemplars"
        assert {e.split("/")[1] for e in p["exemplars"]} <= {"p05", "p07"}

    on_disk = read_report(out)
    assert on_disk["targets"] == json.loads(json.dumps(report["targets"]))
    assert list(on_disk["targets"]) == AVT_TARGETS
    labels = {r["image"]: r for r in rows}
    for t, m in on_disk["targets"].items():
        assert set(m) >= METRIC_KEYS
        assert set(m["ci95"]) >= {"spearman", "kendall", "pearson", "mae", "within1"}
        labelled = [i for i, r in labels.items() if r[f"{t}_mean"] != ""]
        assert m["n"] == len(labelled)
        # the metrics are computed over every labelled item, against the published means
        p = [next(x for x in preds if x["image"] == i)["scores"][t] for i in labelled]
        h = [float(labels[i][f"{t}_mean"]) for i in labelled]
        assert m["mae"] == pytest.approx(float(np.mean(np.abs(np.subtract(p, h)))))
        rho = spearmanr(p, h).statistic
        if m["spearman"] is None:
            assert np.isnan(rho)
        else:
            assert m["spearman"] == pytest.approx(rho)
    assert on_disk["targets"]["appeal2"]["n"] == 8 - len(BLANK_APPEAL2)
    assert on_disk["n_items"] == on_disk["n_predicted"] == 8 and on_disk["n_errors"] == 0
    assert on_disk["config"]["memory_from"] == str(split_b)
    assert list(on_disk["config"]["memories"]) == ["avt-image"]
    assert "api_key" not in on_disk["config"]["settings"]
    assert "test-key" not in (out / "report.json").read_text()
    assert (out / "report.md").read_text().startswith("# Meta-evaluation: avt")
    assert is_png(out / "scatter.png")
    assert "scatter.png" in on_disk["plots"]


def test_iqa_baselines_and_human_agreement_in_an_avt_report(
    meta_eval: Callable[..., dict], split_a: Path, split_b: Path, tmp_path: Path
):
    report = meta_eval(split_a, tmp_path / "out", memory_from=split_b)
    iqa = report["baselines"]["iqa"]
    assert sorted(iqa) == ["BRISQUE", "DBCNN", "ILNIQE", "MANIQA", "MUSIQ", "NIQE"]
    _, rows = read_csv(split_a / "labels.csv")
    _, scores = read_csv(split_a / "iqa_baselines.csv")
    by = {(s["metric"], s["image"]): float(s["score"]) for s in scores}
    for metric, sign in (("MUSIQ", 1.0), ("BRISQUE", -1.0)):  # lower is better for BRISQUE
        x = [sign * by[(metric, r["image"])] for r in rows]
        h = [float(r["appeal_mean"]) for r in rows]
        assert iqa[metric]["appeal"]["spearman"] == pytest.approx(spearmanr(x, h).statistic)
        assert iqa[metric]["appeal"]["n"] == 8
    assert iqa["MUSIQ"]["appeal2"]["n"] == 8 - len(BLANK_APPEAL2)
    best = report["baselines"]["best_iqa"]
    assert set(best) == set(AVT_TARGETS)
    for t, b in best.items():
        assert b["spearman"] == max(m[t]["spearman"] for m in iqa.values())
        assert iqa[b["model"]][t]["spearman"] == b["spearman"]
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Against published IQA models" in md
    # coverage (scored/total) next to every correlation, and the paired margin per target
    assert "| 8/8 |" in md and f"| {8 - len(BLANK_APPEAL2)}/{8 - len(BLANK_APPEAL2)} |" in md
    assert report["targets"]["appeal"]["n_total"] == 8
    assert report["targets"]["appeal"]["coverage"] == 1.0
    for t, g in report["baselines"]["margin"].items():
        assert t in AVT_TARGETS and g["model"] in iqa and g["n"] == report["targets"][t]["n"]
        assert set(g) >= {"margin", "ci95", "ci_excludes_zero", "iqa_spearman"}
    # the individual ratings give a human baseline; image_quality is the quality target
    assert set(report["humans"]) == set(AVT_TARGETS)
    assert report["humans"]["quality"]["inter_rater"]["raters"] > 5


# ------------------------------------------------------------------------------ leakage


def test_permuting_the_scored_splits_labels_changes_no_prediction(
    meta_eval: Callable[..., dict],
    provider: FakeProvider,
    split_a: Path,
    split_b: Path,
    tmp_path: Path,
):
    first = meta_eval(split_a, tmp_path / "out1", memory_from=split_b)
    calls1 = provider.requests
    permuted = permute_labels(split_a, tmp_path / "split-a-permuted")
    second = meta_eval(permuted, tmp_path / "out2", memory_from=split_b)
    calls2 = provider.requests[len(calls1) :]

    p1, p2 = read_preds(tmp_path / "out1"), read_preds(tmp_path / "out2")
    assert [p["image"] for p in p1] == [p["image"] for p in p2]
    for a, b in zip(p1, p2, strict=True):
        assert a["scores"] == b["scores"], a["image"]
        assert a["exemplars"] == b["exemplars"]
    assert request_texts(calls1) == request_texts(calls2)
    # the labels did change, and the reports see it
    assert first["targets"]["appeal"]["mae"] != second["targets"]["appeal"]["mae"]

    # the test has teeth: the same split scored with a memory built from permuted labels gets
    # other exemplar scores in its requests, and other answers from the content-hashing fake
    before = provider.calls
    permuted_b = permute_labels(split_b, tmp_path / "split-b-permuted")
    meta_eval(split_a, tmp_path / "out3", memory_from=permuted_b)
    calls3 = provider.requests[before:]
    assert request_texts(calls3) != request_texts(calls1)
    p3 = read_preds(tmp_path / "out3")
    assert any(a["scores"] != c["scores"] for a, c in zip(p1, p3, strict=True))


def test_memory_from_the_scored_split_is_refused(
    provider: FakeProvider, split_a: Path, tmp_path: Path, capsys
):
    for same in (split_a, split_a.parent / ".." / split_a.parent.name / split_a.name):
        rc = main(
            cli_args(
                provider,
                "--dataset",
                "avt",
                "--data",
                split_a,
                "--out",
                tmp_path / "out",
                "--memory-from",
                same,
            )
        )
        assert rc == 2
        assert "own labels" in capsys.readouterr().err
    assert provider.calls == 0
    with pytest.raises(ValueError, match="own labels"):
        run_meta_eval(
            MetaEvalConfig(dataset="avt", data=split_a, out=tmp_path / "o", memory_from=split_a)
        )


def test_memory_from_the_scored_file_by_another_spelling_is_refused(
    provider: FakeProvider, tmp_path: Path, capsys
):
    """expert-jsonl (and csv) accept the data file itself: ``--data DIR/items.jsonl
    --memory-from DIR`` is still the scored split's own labels."""
    rc = main(
        cli_args(
            provider,
            "--dataset",
            "expert-jsonl",
            "--data",
            EXPERT / "items.jsonl",
            "--out",
            tmp_path / "out",
            "--memory-from",
            EXPERT,
        )
    )
    assert rc == 2, "the scored split's own labels were used as its exemplar memory"
    assert "own labels" in capsys.readouterr().err


def test_without_a_memory_source_no_exemplar_comes_from_the_scored_split(
    meta_eval: Callable[..., dict], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """No --memory-from and no --cv: the shipped avt-image memory (built from the dev split's
    labels) must not calibrate predictions on the dev split itself."""
    monkeypatch.delenv("JUDGE_MEMORY_DIR", raising=False)
    dev = require_dev()
    assert MemoryStore().exists("avt-image")  # the default store reads the shipped one
    meta_eval(dev, tmp_path / "out", limit=3, n_boot=0)
    scored_split = {record_id(i.id) for i in AvtDataset().load(dev)}
    for p in read_preds(tmp_path / "out"):
        assert "error" not in p
        leaked = set(p["exemplars"]) & scored_split
        assert not leaked, f"{p['image']} was calibrated by scored-split labels: {sorted(leaked)}"


def test_leave_one_prompt_out(meta_eval: Callable[..., dict], split_a: Path, tmp_path: Path):
    out = tmp_path / "out"
    report = meta_eval(split_a, out, cv="lopo", n_boot=0)
    assert report["config"]["cv"] == "lopo"
    assert report["config"]["memory_from"] == str(split_a)
    records = {r.id: r for r in MemoryStore(out / "memory").load("avt-image").records}
    assert len(records) == 8
    items = {i.id: i for i in AvtDataset().load(split_a)}
    for p in read_preds(out):
        assert p["exemplars"], p["image"]
        assert record_id(p["image"]) not in p["exemplars"]
        for e in p["exemplars"]:
            assert records[e].meta["prompt_id"] != items[p["image"]].group, (p["image"], e)


def test_unknown_cv_is_an_error(split_a: Path, tmp_path: Path):
    with pytest.raises(ValueError, match="unknown --cv 'kfold'"):
        run_meta_eval(MetaEvalConfig(dataset="avt", data=split_a, out=tmp_path / "o", cv="kfold"))


# ------------------------------------------------------------------------------ resume


def test_resume_after_an_interrupted_run(
    provider: FakeProvider, split_a: Path, split_b: Path, tmp_path: Path
):
    out = tmp_path / "out"
    args = ["--dataset", "avt", "--data", split_a, "--out", out, "--memory-from", split_b]
    assert main(cli_args(provider, *args, "--limit", "3")) == 0
    assert provider.calls == 3 * CALLS_PER_AVT_ITEM
    partial = read_preds(out)
    assert len(partial) == 3

    assert main(cli_args(provider, *args)) == 0
    assert provider.calls == 8 * CALLS_PER_AVT_ITEM  # the first three were not sent again
    full = read_preds(out)
    assert full[:3] == partial and len(full) == 8
    assert read_report(out)["n_predicted"] == 8

    # a torn last line (a write interrupted mid-way) is tolerated and that item re-scored
    lines = (out / "predictions.jsonl").read_text().splitlines(keepends=True)
    (out / "predictions.jsonl").write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    before = provider.calls
    assert main(cli_args(provider, *args)) == 0
    assert provider.calls - before == CALLS_PER_AVT_ITEM
    assert read_preds(out) == full

    # nothing left to do: a rerun sends nothing
    before = provider.calls
    assert main(cli_args(provider, *args)) == 0
    assert provider.calls == before


def test_failed_items_are_reported_and_retried_on_the_next_run(
    meta_eval: Callable[..., dict],
    provider: FakeProvider,
    split_a: Path,
    split_b: Path,
    tmp_path: Path,
):
    _, rows = read_csv(split_a / "labels.csv")
    broken = [rows[1]["image"], rows[6]["image"]]
    saved = {b: (split_a / b).read_bytes() for b in broken}
    for b in broken:
        (split_a / b).write_bytes(b"this is not a png")
    out = tmp_path / "out"
    report = meta_eval(split_a, out, memory_from=split_b)
    assert provider.calls == 6 * CALLS_PER_AVT_ITEM
    preds = {p["image"]: p for p in read_preds(out)}
    assert len(preds) == 8
    for b in broken:
        assert "error" in preds[b] and "scores" not in preds[b]
    assert report["n_errors"] == 2 and report["n_predicted"] == 6
    assert sorted(e["id"] for e in report["errors"]) == sorted(broken)
    assert report["targets"]["appeal"]["n"] == 6

    for b, data in saved.items():
        (split_a / b).write_bytes(data)
    before = provider.calls
    report = meta_eval(split_a, out, memory_from=split_b)
    assert provider.calls - before == 2 * CALLS_PER_AVT_ITEM  # only the failed ones
    assert report["n_errors"] == 0 and report["targets"]["appeal"]["n"] == 8
    again = {p["image"]: p for p in read_preds(out)}
    assert all("error" not in p for p in again.values())
    assert all(again[i] == preds[i] for i in preds if i not in broken)


# ------------------------------------------------------------------------------ calibration


def test_fit_and_apply_calibration(
    meta_eval: Callable[..., dict],
    provider: FakeProvider,
    split_a: Path,
    split_b: Path,
    tmp_path: Path,
):
    fit_out = tmp_path / "fit"
    report = meta_eval(split_a, fit_out, memory_from=split_b, fit_calibration="meanvar")
    cal_path = fit_out / "calibration.json"
    cal = json.loads(cal_path.read_text())
    assert cal["method"] == "meanvar"
    # keyed by the dimension the engine scores: appeal2 reads the appeal dimension
    assert sorted(cal["maps"]) == ["appeal", "prompt_matching", "quality", "realism"]
    preds = read_preds(fit_out)
    _, rows = read_csv(split_a / "labels.csv")
    for dim, m in cal["maps"].items():
        assert m["method"] == "meanvar" and m["target"] == dim and m["n"] == 8
        p = np.array([x["scores"][dim] for x in preds], float)
        h = np.array([float(r[f"{dim}_mean"]) for r in rows])
        assert m["mu_p"] == pytest.approx(p.mean()) and m["mu_h"] == pytest.approx(h.mean())
        assert m["sd_h"] == pytest.approx(h.std())
        assert m["sd_p"] == pytest.approx(p.std() or 1.0)
    assert report["calibration"]["method"] == "meanvar"
    assert is_png(fit_out / "calibration.png")
    assert "calibration.png" in read_report(fit_out)["plots"]

    raw = meta_eval(split_b, tmp_path / "raw", memory_from=split_a)
    calibrated = meta_eval(
        split_b, tmp_path / "cal", memory_from=split_a, overrides={"calibration": str(cal_path)}
    )
    assert calibrated["config"]["settings"]["calibration"] == str(cal_path)
    apply = Calibration(cal["maps"])
    dim_of = {t.name: t.dimension for t in AvtDataset.targets}
    changed = 0
    for r, c in zip(read_preds(tmp_path / "raw"), read_preds(tmp_path / "cal"), strict=True):
        assert r["image"] == c["image"]
        for t, v in c["scores"].items():
            assert 1.0 <= v <= 5.0
            assert v == pytest.approx(apply.apply(dim_of[t], r["scores"][t]))
            changed += v != r["scores"][t]
    assert changed > 0
    assert raw["targets"] != calibrated["targets"]

    # the Result keeps the raw score beside the calibrated one
    item: EvalItem = AvtDataset().load(split_b)[0]
    settings = JudgeSettings(
        model="openai/fake",
        api_base=provider.base_url,
        api_key="k",
        safety=False,
        skills=AVT_SKILLS,
        calibration=str(cal_path),
        retrieval="none",
    )
    result = asyncio.run(LocalJudge(judge=Judge(settings)).score(item.submission, item.base_dir))
    dims = result.subjective["image"]
    assert set(dims) == {"prompt_matching", "appeal", "realism", "quality"}
    for dim, d in dims.items():
        assert d.raw_score in (1, 2, 3, 4, 5)
        assert 1.0 <= d.score <= 5.0
        assert d.score == pytest.approx(apply.apply(dim, d.raw_score))


def test_isotonic_calibration_through_the_cli(
    provider: FakeProvider, split_a: Path, split_b: Path, tmp_path: Path
):
    out = tmp_path / "out"
    args = ["--dataset", "avt", "--data", split_a, "--out", out, "--memory-from", split_b]
    assert main(cli_args(provider, *args, "--fit-calibration", "isotonic")) == 0
    maps = json.loads((out / "calibration.json").read_text())["maps"]
    for m in maps.values():
        assert m["method"] == "isotonic"
        assert m["x"] == sorted(m["x"]) and m["x"][0] == 1.0 and m["x"][-1] == 5.0
        assert all(1.0 <= y <= 5.0 for y in m["y"])
        assert all(a <= b for a, b in itertools.pairwise(m["y"]))
    assert is_png(out / "calibration.png")
    # and applied at scoring time from the CLI
    out2 = tmp_path / "out2"
    args2 = ["--dataset", "avt", "--data", split_b, "--out", out2, "--memory-from", split_a]
    assert main(cli_args(provider, *args2, "--calibration", str(out / "calibration.json"))) == 0
    report = read_report(out2)
    assert report["config"]["settings"]["calibration"] == str(out / "calibration.json")
    assert all(1 <= v <= 5 for p in read_preds(out2) for v in p["scores"].values())


# ------------------------------------------------------------------------------ ablations


def test_ablation_k(meta_eval: Callable[..., dict], split_a: Path, split_b: Path, tmp_path: Path):
    out = tmp_path / "out"
    report = meta_eval(split_a, out, memory_from=split_b, ablation="k", n_boot=0)
    abl = read_report(out)["ablation"]
    assert abl == json.loads(json.dumps(report["ablation"]))
    assert abl["kind"] == "k"
    assert list(abl["rows"]) == ["k=1", "k=2", "k=3", "k=4"]
    for k, (name, row) in enumerate(abl["rows"].items(), start=1):
        assert set(row) == {"mae", "within1", "spearman", "variant"}
        assert row["variant"] == f"retrieval_k={k}"
        assert row["mae"] is not None and 0 <= row["within1"] <= 1
        preds = read_preds(out / "ablations" / name.replace("=", "-"))
        assert len(preds) == 8
        assert max(len(p["exemplars"]) for p in preds) == k
    assert is_png(out / "ablation.png")
    assert "## Ablation: k" in (out / "report.md").read_text()


def test_ablation_retrieval_through_the_cli(
    provider: FakeProvider, split_a: Path, split_b: Path, tmp_path: Path
):
    out = tmp_path / "out"
    args = ["--dataset", "avt", "--data", split_a, "--out", out, "--memory-from", split_b]
    assert main(cli_args(provider, *args, "--ablation", "retrieval", "--limit", "4")) == 0
    rows = read_report(out)["ablation"]["rows"]
    assert list(rows) == ["none", "fixed", "random", "similarity"]
    assert all(not p["exemplars"] for p in read_preds(out / "ablations" / "none"))
    fixed = read_preds(out / "ablations" / "fixed")
    assert len({tuple(p["exemplars"]) for p in fixed}) == 1 and fixed[0]["exemplars"]
    assert is_png(out / "ablation.png")


# ------------------------------------------------------------------------------ expert-jsonl


def test_expert_jsonl_end_to_end_with_objective_labels(
    meta_eval: Callable[..., dict], provider: FakeProvider, tmp_path: Path
):
    # two checks the fake judge fails; everything else it passes (the schema default)
    no = {"rationale": "not what the constraint asks", "verdict": False}
    provider.on("Exactly three seagulls are in the sky.", no)
    provider.on("The prompt rules out boats.", no)
    out = tmp_path / "out"
    report = meta_eval(EXPERT, out, dataset="expert-jsonl")
    preds = {p["id"]: p for p in read_preds(out)}
    assert list(preds) == ["co_501-human", "co_501-mllm", "oe_502-human", "im_503-mllm"]
    assert all("error" not in p for p in preds.values())
    assert preds["co_501-human"]["objective"]["image"]["c1"] is False
    assert preds["co_501-human"]["objective"]["prompt"]["c3"] is False
    assert preds["co_501-human"]["objective"]["prompt"]["c1"] is True
    # a prompt-only item's image checks are unscored, never failed
    assert all(v is None for v in preds["co_501-mllm"]["objective"]["image"].values())
    # prompt-only and IM items have no image-side subjective score
    assert preds["co_501-mllm"]["scores"]["visual_composition"] is None
    assert preds["co_501-human"]["scores"]["visual_composition"] in (1, 2, 3, 4, 5)

    gold = {
        json.loads(line)["id"]: json.loads(line)["objective"]
        for line in (EXPERT / "items.jsonl").read_text().splitlines()
    }
    pairs: dict[str, list[tuple[bool, bool]]] = {"prompt": [], "image": []}
    for item_id, sides in gold.items():
        for side, checks in sides.items():
            for cid, g in checks.items():
                pairs[side].append((preds[item_id]["objective"][side][cid], g))
    obj = report["objective"]
    assert set(obj) == {"prompt", "image", "overall"}
    for side in ("prompt", "image"):
        acc = sum(p == g for p, g in pairs[side]) / len(pairs[side])
        assert obj[side]["accuracy"] == pytest.approx(acc)
        assert obj[side]["n"] == len(pairs[side])
    everything = pairs["prompt"] + pairs["image"]
    assert obj["overall"]["accuracy"] == pytest.approx(
        sum(p == g for p, g in everything) / len(everything)
    )
    assert obj["overall"]["n"] == 16
    # by hand: the judge fails image c1 of co_501-human (rightly) and prompt c3 (wrongly), and
    # passes what the experts failed elsewhere
    confusion = {s: {k: obj[s][k] for k in ("tp", "fp", "tn", "fn")} for s in obj}
    assert confusion["image"] == {"tp": 5, "fp": 1, "tn": 1, "fn": 0}
    assert confusion["prompt"] == {"tp": 6, "fp": 2, "tn": 0, "fn": 1}
    assert confusion["overall"] == {"tp": 11, "fp": 3, "tn": 1, "fn": 1}
    assert obj["overall"]["accuracy"] == pytest.approx(12 / 16)

    on_disk = read_report(out)
    assert on_disk["reference"] == json.loads(REFERENCE.read_text())
    assert on_disk["reference"]["objective"]["accuracy"] == 0.955
    assert set(on_disk["reference"]["subjective"]) == {"zero_shot", "with_memory", "humans"}
    assert on_disk["targets"]["visual_composition"]["n"] == 2
    assert on_disk["targets"]["instructional_clarity"]["n"] == 4
    assert "instructional_clarity" in on_disk["humans"]
    assert is_png(out / "objective_confusion.png")
    md = (out / "report.md").read_text()
    assert "## Objective checks" in md and "## Reference figures from the paper" in md


def test_expert_jsonl_leave_one_task_out(meta_eval: Callable[..., dict], tmp_path: Path):
    out = tmp_path / "out"
    meta_eval(EXPERT, out, dataset="expert-jsonl", cv="lopo", n_boot=0)
    store = MemoryStore(out / "memory")
    assert set(store.names()) == {"image-CO", "image-OE", "prompt-CO", "prompt-IM", "prompt-OE"}
    preds = {p["id"]: p for p in read_preds(out)}
    # each task is alone in its category's memories, or shares them only with itself
    for item_id, p in preds.items():
        task = item_id.split("-")[0]
        assert all(not e.startswith(task) for e in p["exemplars"]), (item_id, p["exemplars"])


# ------------------------------------------------------------------------------ csv


def test_csv_end_to_end_through_the_cli(provider: FakeProvider, tmp_path: Path):
    data = tmp_path / "d"
    (data / "pics").mkdir(parents=True)
    rows = []
    for k, color in enumerate(["red", "navy", "olive", "teal", "white"]):
        Image.new("RGB", (48, 48), color).save(data / "pics" / f"{k}.png")
        rows.append({"path": f"pics/{k}.png", "text": f"a {color} field", "mos": str(1 + k * 0.9)})
    write_csv(data / "labels.csv", ["path", "text", "mos"], rows)
    out = tmp_path / "out"
    rc = main(
        cli_args(
            provider,
            "--dataset",
            "csv",
            "--data",
            data,
            "--out",
            out,
            "--columns",
            "image=path,prompt=text,target.appeal=mos",
            "--skills",
            "avt_appeal",
        )
    )
    assert rc == 0
    assert provider.calls == 5
    preds = read_preds(out)
    assert [p["image"] for p in preds] == [r["path"] for r in rows]
    assert all(set(p["scores"]) == {"appeal"} for p in preds)
    assert read_report(out)["targets"]["appeal"]["n"] == 5
