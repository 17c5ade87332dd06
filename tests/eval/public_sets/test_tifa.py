"""TIFA v1.0 human judgments end to end on a miniature in the repository's published layout:
the mock model and the offline backend, malformed copies, and every figure (the judge's and the
published metrics' recomputed on the same items) checked against scipy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scipy import stats

from eval.datasets import get_dataset
from eval.datasets.public.base import LayoutError
from judge.cli.main import main
from tests.eval.public_sets.miniatures import TIFA_METRICS, tifa
from tests.eval.public_sets.test_genai import brute_pairwise


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tifa(tmp_path_factory.mktemp("tifa") / "human_annotations")


def test_mock_run_matches_scipy_and_recomputes_the_published_metrics(
    mini: Path, tmp_path: Path
) -> None:
    args = ["meta-eval", "--dataset", "tifa", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "30"]) == 0
    raw = json.loads((mini / "human_annotations_with_scores.json").read_text())
    preds = {
        p["id"]: p["scores"]["faithfulness"]
        for p in map(json.loads, (tmp_path / "predictions.jsonl").read_text().splitlines())
    }
    keys = sorted(raw)
    human = [raw[k]["human_avg"] for k in keys]
    section = json.loads((tmp_path / "report.json").read_text())["public_set"]
    for name, scores in [("judge", [preds[k] for k in keys])] + [
        (m, [raw[k][m] for k in keys]) for m in TIFA_METRICS
    ]:
        fig = section["figures"]["faithfulness"] if name == "judge" else section["recomputed"][name]
        assert fig["n"] == 9
        assert fig["spearman"] == pytest.approx(stats.spearmanr(scores, human).statistic)
        assert fig["kendall"] == pytest.approx(stats.kendalltau(scores, human).statistic)
        assert fig["pairwise_accuracy"] == pytest.approx(brute_pairwise(scores, human))
    md = (tmp_path / "report.md").read_text()
    assert "| tifa_mplug-large | published (recomputed) |" in md
    # the TIFA repository's own figures on all 800 images, quoted beside the judge's
    quoted = {(b["system"], b["metric"]): b for b in section["baselines"]}
    assert len(quoted) == 20 and all(b["quoted"] for b in quoted.values())
    mplug = quoted[("tifa_mplug-large", "kendall")]
    assert mplug["value"] == pytest.approx(0.4717, abs=1e-4)
    assert "human_annotations/compute_correlation.ipynb" in mplug["source"]
    assert "| tifa_mplug-large | 0.472 | 0.597 |" in md
    assert md.count(mplug["citation"]) == 1  # the citation once, for the 20 figures
    # the run scored the whole (miniature) set: the judge's figures join the source's table
    judge = section["figures"]["faithfulness"]
    cells = []
    for stat in ("kendall", "pearson"):
        lo, hi = judge["ci95"][stat]
        cells.append(f"{judge[stat]:.3f} [{lo:.2f}, {hi:.2f}] (n=9)")
    assert "| **judge (this run, same items)** | " + " | ".join(cells) + " |" in md


def test_a_limit_subset_figure_is_never_beside_the_quotes_on_all_images(
    mini: Path, tmp_path: Path
) -> None:
    """Issue 48 item 17: with --limit the judge's figure is on 5 of the images, the quotes on
    all of them: no row holds both, and the long citation is printed once."""
    args = ["meta-eval", "--dataset", "tifa", "--data", str(mini), "--out", str(tmp_path)]
    assert (
        main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "0", "--limit", "5"]) == 0
    )
    report = json.loads((tmp_path / "report.json").read_text())
    md = (tmp_path / "report.md").read_text()
    quotes = report["public_set"]["baselines"]
    start = md.index("### Published baselines")
    quoted_part = md[start : md.index("\n## ", start)]
    assert "judge (this run" not in quoted_part and "(n=5)" not in quoted_part
    assert md.count(quotes[0]["citation"]) == 1 and md.count(quotes[0]["note"]) == 1
    assert "on 5 item(s) of the set's 9, not on these sources' items" in quoted_part
    for q in quotes:  # every quoted figure is there, each in its own source's table
        assert f"| {q['system']} |" in quoted_part


def test_the_offline_backend_says_a_model_is_needed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "tifa", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--n-boot", "0", "--limit", "3"]) == 4
    out = capsys.readouterr().out
    assert "3/3 items judged" in out and "needs a vision-language model" in out


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (
            lambda d: _edit(d, lambda j: j["drawbench_52_vq_diffusion"].pop("human_scores")),
            r'human_annotations.json: key "drawbench_52_vq_diffusion": field "human_scores" is '
            r"missing",
        ),
        (
            lambda d: _edit(d, lambda j: j["coco_669925_mini_dalle"].__setitem__("text", 7)),
            r'key "coco_669925_mini_dalle" → "text": expected the text input, got int 7',
        ),
        (
            lambda d: (d / "partiprompt_17_mini_dalle.jpg").unlink(),
            r'key "partiprompt_17_mini_dalle" → "image_path": image '
            r"partiprompt_17_mini_dalle.jpg not found",
        ),
        (
            lambda d: (d / "human_annotations.json").unlink(),
            r"human_annotations.json not found; --data must be the set's folder",
        ),
    ],
)
def test_a_malformed_copy_names_file_key_and_field(
    mini: Path, tmp_path: Path, break_it, expected: str
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    break_it(copy)
    with pytest.raises(LayoutError, match=expected):
        get_dataset("tifa").load(copy)


def test_images_may_sit_in_an_images_folder(mini: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    (copy / "images").mkdir()
    for jpg in copy.glob("*.jpg"):
        jpg.rename(copy / "images" / jpg.name)
    items = get_dataset("tifa").load(copy)
    assert len(items) == 9 and all("/images/" in i.submission["images"][0] for i in items)
    assert {i.slices["model"] for i in items} == {
        "mini_dalle",
        "stable_diffusion_v1_5",
        "vq_diffusion",
    }


def _edit(d: Path, change) -> None:
    path = d / "human_annotations.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=4))
