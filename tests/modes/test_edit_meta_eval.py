"""``judge meta-eval --dataset edit-ratings``: the edit mode against human edit ratings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data

from eval.datasets.edit_ratings import EditRatingsDataset
from judge.cli.main import main


def make_edits(folder: Path) -> Path:
    """Four edits of one photo, rated by two people: the more it shifts, the lower the
    consistency rating."""
    folder.mkdir(parents=True)
    src = Image.fromarray(data.coffee())
    src.save(folder / "src.png")
    arr = np.asarray(src).astype(float)
    edits = {
        "same": (src, 5),
        "mild": (Image.fromarray((arr * [1, 1, 0.85]).clip(0, 255).astype("uint8")), 4),
        "tint": (Image.fromarray((arr * [1, 1, 0.5]).clip(0, 255).astype("uint8")), 2),
        "other": (Image.fromarray(data.astronaut()).resize(src.size), 1),
    }
    lines = []
    for name, (img, consistency) in edits.items():
        img.save(folder / f"{name}.png")
        lines.append(
            {
                "id": name,
                "instruction": "Add a spoon next to the cup.",
                "source_image": "src.png",
                "edited_image": f"{name}.png",
                "editor": "x",
                "ratings": {
                    "instruction_following": {"r1": 2, "r2": 3},
                    "image_consistency": {"r1": consistency, "r2": consistency},
                    "visual_quality": {"r1": 4, "r2": 5},
                },
            }
        )
    path = folder / "edits.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.slow
def test_edit_meta_eval_on_the_local_backend(tmp_path: Path) -> None:
    data_ = make_edits(tmp_path / "data")
    out = tmp_path / "run"
    args = ["meta-eval", "--dataset", "edit-ratings", "--data", str(data_.parent)]
    assert main([*args, "--out", str(out), "--n-boot", "50"]) == 0  # no model: local backend
    report = json.loads((out / "report.json").read_text())
    ic = report["targets"]["image_consistency"]
    assert ic["n"] == 4 and ic["spearman"] > 0.7  # larger shifts, lower estimates
    # offline, instruction following is unscored: success is decided only where another
    # criterion already fails (the strongly shifted edits), and humans agree there
    assert report["edit"]["success_items"] == 2
    assert report["edit"]["success_agreement"] == 1.0
    assert report["edit"]["reference"]["judge_vs_human_spearman"]["visual_quality"] == 0.607
    assert "Edit success" in (out / "report.md").read_text()


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"id": "x"}, "instruction"),
        ({"ratings": {"beauty": {"r1": 3}}}, "unknown criterion"),
        ({"ratings": {"visual_quality": {"r1": 9}}}, "within 1–5"),
        ({"edited_image": "missing.png"}, "not found"),
    ],
)
def test_bad_rating_rows_name_the_line(tmp_path: Path, row: dict, message: str) -> None:
    path = make_edits(tmp_path / "d")
    first = json.loads(path.read_text().splitlines()[0])
    first.update(row)
    if row == {"id": "x"}:
        first.pop("instruction")
    path.write_text(json.dumps(first) + "\n")
    with pytest.raises(ValueError, match=message) as err:
        EditRatingsDataset().load(path)
    assert ":1:" in str(err.value)
