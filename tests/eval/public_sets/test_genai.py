"""GenAI-Bench end to end on a miniature in its published layout: the mock model and the offline
backend, malformed copies, the stratified subset, the dry run, and every statistic recomputed
here with scipy from the files alone."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import judge
from eval.datasets import get_dataset
from eval.datasets.public.base import LayoutError
from judge.cli.main import main
from tests.eval.public_sets.miniatures import GENAI_MODELS, genai_bench

MOCK = ["--model", "mock/judge", "--no-safety", "--n-boot", "40"]


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return genai_bench(tmp_path_factory.mktemp("genai") / "GenAI-Image-527")


@pytest.fixture(scope="module")
def run(mini: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mock-model run over the whole miniature, shared by the checks below."""
    out = tmp_path_factory.mktemp("genai-run")
    assert (
        main(
            ["meta-eval", "--dataset", "genai-bench", "--data", str(mini), "--out", str(out), *MOCK]
        )
        == 0
    )
    return out


def brute_pairwise(metric: list[float], human: list[float]) -> float:
    """Deutsch et al.'s acc_23 with tie calibration, pair by pair: every threshold tried."""
    pairs = list(itertools.combinations(range(len(metric)), 2))
    gaps = {0.0} | {abs(metric[i] - metric[j]) for i, j in pairs}
    best = 0.0
    for eps in gaps:
        ok = 0
        for i, j in pairs:
            dm, dh = metric[i] - metric[j], human[i] - human[j]
            m_tie, h_tie = abs(dm) <= eps + 1e-12, abs(dh) < 1e-9
            ok += (m_tie and h_tie) or (not m_tie and not h_tie and dm * dh > 0)
        best = max(best, ok / len(pairs))
    return best


def test_report_matches_scipy_on_the_files(mini: Path, run: Path) -> None:
    raw = json.loads((mini / "genai_image.json").read_text())
    skills = json.loads((mini / "genai_skills.json").read_text())
    human = {
        f"{m}/{pid}": float(np.mean(r)) for pid, e in raw.items() for m, r in e["models"].items()
    }
    preds = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    judge_score = {p["id"]: p["scores"]["alignment"] for p in preds}
    assert set(judge_score) == set(human) and len(human) == 12
    report = json.loads((run / "report.json").read_text())
    section = report["public_set"]

    def check(fig: dict, ids: list[str]) -> None:
        p = [judge_score[i] for i in ids]
        h = [human[i] for i in ids]
        assert fig["n"] == len(ids)
        assert fig["spearman"] == pytest.approx(stats.spearmanr(p, h).statistic)
        assert fig["kendall"] == pytest.approx(stats.kendalltau(p, h).statistic)  # τ-b
        assert fig["pearson"] == pytest.approx(stats.pearsonr(p, h).statistic)
        assert fig["pairwise_accuracy"] == pytest.approx(brute_pairwise(p, h))

    check(section["figures"]["alignment"], sorted(human))
    lo, hi = section["figures"]["alignment"]["ci95"]["pairwise_accuracy"]
    assert lo <= section["figures"]["alignment"]["pairwise_accuracy"] <= hi
    tags = section["slices"]["skill"]["alignment"]
    assert list(tags) == list(skills)
    for tag, numbers in skills.items():
        ids = sorted(f"{m}/{n:05d}" for n in numbers for m in GENAI_MODELS)
        if len(ids) >= 3 and len({judge_score[i] for i in ids}) > 1:
            check(tags[tag], ids)
    md = (run / "report.md").read_text()
    assert "| alignment | skill: counting |" in md
    # quoted from the EvalMuse README on an unnamed GenAI-Bench subset: no judge figure beside it
    assert "split: GenAI-Bench, as the README's column names it" in md
    assert "| VQAScore | 0.5534 |" in md and "judge (this run" not in md


def test_the_offline_backend_runs_and_says_why_nothing_is_scored(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "genai-bench", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--limit", "3", "--n-boot", "0", "--no-safety"]) == 4
    out = capsys.readouterr().out
    assert "0/3" not in out and "3/3 items judged" in out
    assert "3 item(s) unscored: needs a vision-language model" in out
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["public_set"]["figures"]["alignment"]["n"] == 0


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (
            lambda d: _edit(d, lambda j: j["00002"].pop("models")),
            r'genai_image.json: key "00002": field "models" is missing',
        ),
        (
            lambda d: _edit(d, lambda j: j["00003"]["models"]["SDXL_Turbo"].__setitem__(1, "five")),
            r'genai_image.json: key "00003" → "models" → "SDXL_Turbo" → "1": expected a rating '
            r'1–5, got str "five"',
        ),
        (
            lambda d: (d / "Midjourney_6" / "00004.jpeg").unlink(),
            r'genai_image.json: key "00004" → "models" → "Midjourney_6": image '
            r"Midjourney_6/00004.jpeg not found",
        ),
        (
            lambda d: (d / "genai_skills.json").unlink(),
            r"genai_skills.json not found; --data must be the set's folder as downloaded:\n"
            r"  genai_image.json",
        ),
        (
            lambda d: (d / "genai_skills.json").write_text('{"counting": [1,\n  "x"]}'),
            r'genai_skills.json: key "counting" → "1": expected a prompt number, got str "x"',
        ),
        (
            lambda d: (d / "genai_image.json").write_text('{"00001": {\n  "prompt": }'),
            r"genai_image.json:2: not valid JSON",
        ),
    ],
)
def test_a_malformed_copy_names_file_key_and_field(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], break_it, expected: str
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    break_it(copy)
    with pytest.raises(LayoutError, match=expected):
        get_dataset("genai-bench").load(copy)
    rc = main(
        ["meta-eval", "--dataset", "genai-bench", "--data", str(copy), "--out", str(tmp_path / "o")]
    )
    assert rc == 2 and str(copy) in capsys.readouterr().err


def _edit(d: Path, change) -> None:
    path = d / "genai_image.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))


def test_limit_is_stratified_by_model_and_grows_as_a_resume(mini: Path, tmp_path: Path) -> None:
    ds = get_dataset("genai-bench")
    items = ds.load(mini)
    from eval.metaeval.subsets import stratified

    six = stratified(items, 6, seed=3, strata=ds.strata)
    assert sorted(i.slices["model"] for i in six) == sorted(GENAI_MODELS * 2)
    assert [i.id for i in six] == [i.id for i in stratified(items, 6, seed=3, strata=ds.strata)]
    nine = stratified(items, 9, seed=3, strata=ds.strata)
    assert {i.id for i in six} <= {i.id for i in nine}  # a larger --limit resumes the smaller
    out = tmp_path / "o"
    first = judge.meta_eval(
        dataset="genai-bench",
        data=mini,
        out=out,
        limit=6,
        seed=3,
        model="mock/judge",
        safety=False,
        n_boot=0,
    )
    assert first["n_predicted"] == 6
    again = judge.meta_eval(
        dataset="genai-bench",
        data=mini,
        out=out,
        limit=9,
        seed=3,
        model="mock/judge",
        safety=False,
        n_boot=0,
    )
    lines = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert again["n_predicted"] == 9 and {x["id"] for x in lines} == {i.id for i in nine}


def test_dry_run_counts_calls_and_prices_them_without_scoring(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never"
    args = ["meta-eval", "--dataset", "genai-bench", "--data", str(mini), "--out", str(out)]
    assert main([*args, "--model", "openai/gpt-4o-mini", "--dry-run", "--limit", "6"]) == 0
    text = capsys.readouterr().out
    # one prompt-matching call per image, and 2 safety screens (prompt, image) per item
    assert "items: 6 (6 left to score" in text and "judge calls: 6 + 12 safety screens" in text
    assert "estimated cost: ~$0.0" in text and not out.exists()
    plan = judge.meta_eval(
        dataset="genai-bench", data=mini, out=out, model="someone/unpriced", dry_run=True
    )
    assert plan["dry_run"]["unpriced"] == ["someone/unpriced"] and plan["dry_run"]["calls"] == 12


def test_label_memories_are_refused_for_a_public_set(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "genai-bench", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--cv", "lopo"]) == 2
    assert "its runs are zero-shot" in capsys.readouterr().err
