"""Pick-a-Pic v2 test split end to end on a miniature parquet shard in its published layout,
through the compare mode: the mock model and the offline backend, malformed copies (missing
column, wrong type, missing and broken image bytes), the accuracy recomputed here with the
PickScore evaluation's rule for ties, and no baseline quoted for a split it was not
measured on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from eval.datasets import get_dataset
from eval.datasets.base import EvalItem
from eval.datasets.public.base import LayoutError
from eval.datasets.public.pickapic import preference_accuracy
from judge.cli.main import main
from skills.local.feature_cache import cache_dir
from tests.eval.public_sets.miniatures import PICKAPIC_ROWS, pickapic

SHARD = "data/test_unique-00000-of-00001-ecef20a3469ae6e6.parquet"


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pickapic(tmp_path_factory.mktemp("pap") / "pickapic_v2")


def test_items_carry_the_shard_images_and_labels(mini: Path) -> None:
    items = get_dataset("pickapic").load(mini)
    assert len(items) == len(PICKAPIC_ROWS)  # the has_label=false row is left out
    table = pq.read_table(mini / SHARD).to_pylist()
    for item, row in zip(items, table, strict=False):
        sub = item.submission
        assert sub["mode"] == "compare" and sub["prompt"] == row["caption"]
        assert Path(sub["a"]["image"]).read_bytes() == row["jpg_0"]  # written unchanged
        assert Path(sub["b"]["image"]).read_bytes() == row["jpg_1"]
        assert item.labels == {"preference": row["label_0"]}
        assert item.key["ranking_id"] == str(row["ranking_id"])
    assert items[2].slices == {"models": "sd21 vs sdxl"}
    # written once, under $JUDGE_CACHE_DIR/pickapic_v2/: a second load rewrites nothing
    first = Path(items[0].submission["a"]["image"])
    assert first.is_relative_to(cache_dir() / "pickapic_v2")
    stamp = first.stat().st_mtime_ns
    assert get_dataset("pickapic").load(mini)[0].submission["a"]["image"] == str(first)
    assert first.stat().st_mtime_ns == stamp


def test_the_whole_test_split_is_read_without_a_test_unique_file(
    mini: Path, tmp_path: Path
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    (copy / SHARD).rename(copy / "data" / "test-00000-of-00001-7e933a600b5af2c0.parquet")
    dataset = get_dataset("pickapic")
    items = dataset.load(copy)
    assert len(items) == len(PICKAPIC_ROWS) and dataset.split == "test"
    assert items[0].id == "test-00000-of-00001-7e933a600b5af2c0:0"


def test_mock_run_through_the_compare_mode_without_unverified_baselines(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "pickapic", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "40"]) == 0
    out = capsys.readouterr().out
    assert "accuracy" in out and "published baselines (quoted):" in out
    report = json.loads((tmp_path / "report.json").read_text())
    preds = [json.loads(x) for x in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    said = {p["id"]: p["scores"]["preference"] for p in preds}
    # independent: the PickScore script's get_label / calc_score, on the parquet rows
    table = pq.read_table(mini / SHARD).to_pylist()
    scores = []
    for n, row in enumerate(table):
        if not row["has_label"]:
            continue
        label = "tie" if row["label_0"] == 0.5 else "0" if row["label_0"] == 1 else "1"
        s = said[f"{Path(SHARD).stem}:{n}"]
        pred = "tie" if s == 0.5 else "0" if s == 1.0 else "1"
        scores.append(1.0 if label == pred else 0.5 if "tie" in (label, pred) else 0.0)
    pref = report["preferences"]
    assert pref["metric"] == "accuracy" and pref["split"] == "test_unique"
    assert pref["accuracy"] == pytest.approx(np.mean(scores))
    assert pref["n"] == 5 and pref["unlabelled_rows"] == 1
    assert pref["human_tie_rate"] == pytest.approx(1 / 5)
    lo, hi = pref["ci95"]
    assert lo <= pref["accuracy"] <= hi
    md = (tmp_path / "report.md").read_text()
    assert "Accuracy with the PickScore evaluation's rule" in md
    # the PickScore paper's figures are on Pick-a-Pic v1's test set: none is quoted for v2
    assert report["public_set"]["baselines"] == []
    assert "No published figure is quoted for this set. Sources read: " in md
    assert "yuvalkirstain/PickScore README.md gives no figure" in md
    assert "none could be verified for this set" in out


def test_the_tie_rule_against_hand_counts() -> None:
    """Label/answer pairs scored by hand: both ties 1, one tie 0.5, inverted 0."""
    labels = [1.0, 0.0, 0.5, 0.5, 1.0, 0.0]
    answers = [1.0, 1.0, 0.5, 0.0, 0.5, None]  # None: unscored, left out
    its = [EvalItem(str(k), {}, Path("."), labels={"preference": v}) for k, v in enumerate(labels)]
    preds = [{"id": str(k), "scores": {"preference": a}} for k, a in enumerate(answers)]
    got = preference_accuracy(its, preds, n_boot=0, seed=0)
    assert got["accuracy"] == pytest.approx((1 + 0 + 1 + 0.5 + 0.5) / 5)
    assert got["n"] == 5 and got["judge_tie_rate"] == pytest.approx(2 / 5)


def test_the_offline_backend_says_a_model_is_needed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "pickapic", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--n-boot", "0", "--limit", "2"]) == 4
    assert "pairwise judging needs a vision-language model" in capsys.readouterr().out


def _set(col: str, row: int, value: object):
    def edit(cols: dict) -> None:
        cols[col][row] = value

    return edit


@pytest.mark.parametrize(
    ("break_it", "expected"),
    [
        (lambda c: c.pop("label_1"), r'parquet: column "label_1" is missing \(the file has: '),
        (
            lambda c: c.__setitem__("label_0", [str(v) for v in c["label_0"]]),
            r'parquet: row 0, column "label_0": expected 0, 0.5 or 1, got str \'1.0\'',
        ),
        (
            _set("jpg_1", 3, None),
            r'parquet: row 3, column "jpg_1": expected the image bytes, got null',
        ),
        (_set("jpg_0", 2, b"not a jpeg"), r'row 2, column "jpg_0": not a readable image'),
        (_set("label_1", 1, 0.0), r'row 1, columns "label_0"/"label_1": 0.0 and 0.0 do not sum'),
    ],
)
def test_a_malformed_copy_names_file_row_and_column(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], break_it, expected: str
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    cols = pq.read_table(copy / SHARD).to_pydict()
    break_it(cols)
    pq.write_table(pa.table(cols), copy / SHARD)
    with pytest.raises(LayoutError, match=expected):
        get_dataset("pickapic").load(copy)
    args = ["meta-eval", "--dataset", "pickapic", "--data", str(copy), "--out", str(tmp_path / "o")]
    assert main(args) == 2 and "test_unique-00000" in capsys.readouterr().err


def test_a_folder_without_shards_lists_the_layout(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match=r"data/test_unique-\*.parquet not found.*\n  data/"):
        get_dataset("pickapic").load(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test-00000-of-00001-abc.parquet").write_bytes(b"PAR1 truncated")
    with pytest.raises(
        LayoutError, match=r"test-00000-of-00001-abc.parquet: not a readable parquet"
    ):
        get_dataset("pickapic").load(tmp_path)
