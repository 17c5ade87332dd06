"""HPD v2 test split end to end on a miniature in its published layout, through the compare
mode: the mock model and the offline backend, malformed copies, the ranking accuracy
recomputed here from test.json (and against scipy's Kendall τ where no pair ties), and the
quoted baselines beside the judge's figure."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from eval.datasets import get_dataset
from eval.datasets.public.base import LayoutError
from eval.datasets.public.hpdv2 import ranking_accuracy
from judge.cli.main import main
from tests.eval.public_sets.miniatures import HPD_PROMPTS, hpdv2


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hpdv2(tmp_path_factory.mktemp("hpd") / "HPDv2")


def test_mock_run_through_the_compare_mode_with_quoted_baselines(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "hpdv2", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "40"]) == 0
    assert "published baselines (quoted): 7" in capsys.readouterr().out
    report = json.loads((tmp_path / "report.json").read_text())
    preds = {
        p["id"]: p
        for p in map(json.loads, (tmp_path / "predictions.jsonl").read_text().splitlines())
    }
    # independent: every pair of every prompt of test.json, the paper's rule for ties
    entries = json.loads((mini / "test.json").read_text())
    per_prompt = []
    for n, e in enumerate(entries):
        scores = []
        for i, j in itertools.combinations(range(len(e["rank"])), 2):
            p = preds[f"{n}:{i}-{j}"]
            assert p["comparison"]["criteria"]["preference"]["winner"] in ("a", "b", "tie")
            said = p["scores"]["preference"]
            ri, rj = e["rank"][i], e["rank"][j]
            human = 1.0 if ri < rj else 0.0 if ri > rj else 0.5
            scores.append(1.0 if human == 0.5 or said == human else 0.5 if said == 0.5 else 0.0)
        per_prompt.append(np.mean(scores))
    pref = report["preferences"]
    assert pref["ranking_accuracy"] == pytest.approx(np.mean(per_prompt))
    assert pref["n"] == sum(len(r) * (len(r) - 1) // 2 for _, r in HPD_PROMPTS) == 12
    assert pref["prompts"] == 3
    lo, hi = pref["ci95"]
    assert lo <= pref["ranking_accuracy"] <= hi
    quoted = report["public_set"]["baselines"]
    assert {b["system"]: b["value"] for b in quoted}["HPS v2"] == 0.833
    assert {b["system"]: b["value"] for b in quoted}["HPS v2.1"] == 0.841
    assert all(b["quoted"] and b["split"] == "HPD v2 test set" for b in quoted)
    assert all("tgxs002/HPSv2, README.md" in b["source"] for b in quoted)
    md = (tmp_path / "report.md").read_text()
    assert "| system | ranking_accuracy |" in md and "| HPS v2 | 0.833 |" in md
    assert md.count("split: HPD v2 test set") == 1  # the source is named once
    # the run scored every pair of the test split: the judge's figure joins the source's table
    own = f"{pref['ranking_accuracy']:.3f} [{lo:.2f}, {hi:.2f}] (n=12)"
    assert f"| **judge (this run, same items)** | {own} |" in md


def test_ranking_accuracy_is_kendall_in_disguise_without_ties(mini: Path) -> None:
    """With no tied pair, the share of pairs not inverted is (1 + τ) / 2 per prompt."""
    items = get_dataset("hpdv2").load(mini)
    rng = np.random.default_rng(0)
    judge_rank = {n: rng.permutation(len(r)) for n, (_, r) in enumerate(HPD_PROMPTS)}
    preds = []
    for item in items:
        n, pair = item.id.split(":")
        i, j = map(int, pair.split("-"))
        a_wins = judge_rank[int(n)][i] < judge_rank[int(n)][j]
        preds.append({"id": item.id, "scores": {"preference": 1.0 if a_wins else 0.0}})
    got = ranking_accuracy(items, preds, n_boot=0, seed=0)
    expected = []
    for n, (_, ranks) in enumerate(HPD_PROMPTS):
        if len(set(ranks)) == len(ranks):  # untied humans: Kendall's τ is exact
            tau = stats.kendalltau(judge_rank[n], ranks).statistic
            expected.append((1 + tau) / 2)
        else:  # the tied pair counts as agreement whatever the judge says
            pairs = list(itertools.combinations(range(len(ranks)), 2))
            ok = [
                ranks[i] == ranks[j]
                or (judge_rank[n][i] < judge_rank[n][j]) == (ranks[i] < ranks[j])
                for i, j in pairs
            ]
            expected.append(np.mean(ok))
    assert got["ranking_accuracy"] == pytest.approx(np.mean(expected))
    assert got["judge_tie_rate"] == 0.0


def test_the_offline_backend_says_a_model_is_needed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "hpdv2", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--n-boot", "0", "--limit", "3"]) == 4
    assert "pairwise judging needs a vision-language model" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (lambda e: e[1].pop("rank"), r'test.json: key "1": field "rank" is missing'),
        (
            lambda e: e[2]["rank"].__setitem__(0, "first"),
            r'test.json: key "2" → "rank" → "0": expected a rank \(a number\), got str "first"',
        ),
        (
            lambda e: e[0]["image_path"].__setitem__(1, "missing.jpg"),
            r'test.json: key "0" → "image_path" → "1": image test/missing.jpg not found',
        ),
        (lambda e: e[0]["rank"].pop(), r'key "0" → "rank": 2 ranks for 3 images'),
    ],
)
def test_a_malformed_copy_names_file_key_and_field(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], break_it, expected: str
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    entries = json.loads((copy / "test.json").read_text())
    break_it(entries)
    (copy / "test.json").write_text(json.dumps(entries))
    with pytest.raises(LayoutError, match=expected):
        get_dataset("hpdv2").load(copy)
    args = ["meta-eval", "--dataset", "hpdv2", "--data", str(copy), "--out", str(tmp_path / "o")]
    assert main(args) == 2 and "test.json" in capsys.readouterr().err


def test_a_folder_without_test_json_lists_the_layout(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match=r"test.json not found.*\n  test.json .*\n  test/IMAGE"):
        get_dataset("hpdv2").load(tmp_path)


def test_a_crashed_run_resumes_from_its_journal_and_dry_run_prices_what_is_left(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run cut after 5 of its 12 pairs (and a torn line): --dry-run counts the 7 pairs left,
    two calls each (both orders of one criterion), and the same command sends only those."""
    args = ["meta-eval", "--dataset", "hpdv2", "--data", str(mini), "--out", str(tmp_path)]
    run = [*args, "--model", "mock/judge", "--no-safety", "--n-boot", "0"]
    assert main(run) == 0
    journal = tmp_path / "predictions.jsonl"
    kept = [json.loads(x) for x in journal.read_text().splitlines()[:5]]
    for line in kept:
        line["usage"] = {"llm_calls": "kept from before the crash"}
    journal.write_text(
        "".join(json.dumps(x) + "\n" for x in kept) + '{"id": "2:0-1", "sco', encoding="utf-8"
    )
    capsys.readouterr()
    assert main([*args, "--model", "openai/gpt-4o-mini", "--no-safety", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "items: 12 (7 left to score" in out and "judge calls: 14 + 0 safety screens" in out
    assert main(run) == 0
    assert "12/12 items judged" in capsys.readouterr().out
    lines = {x["id"]: x for x in map(json.loads, journal.read_text().splitlines())}
    assert len(lines) == 12
    assert all(lines[x["id"]]["usage"] == x["usage"] for x in kept)  # not sent again
    assert sum(x["usage"]["llm_calls"] == "kept from before the crash" for x in lines.values()) == 5
