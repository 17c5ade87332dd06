"""``--confidence`` on `judge score`, `judge compare` and `judge meta-eval` (and
``--confidence-memory``), against the fake provider; bad method strings are refused with
what to write instead."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from judge.cli.main import main
from memory.exemplar import load_exemplars
from memory.store import MemoryStore
from tests.eval.conftest import cli_args, write_csv
from tests.judge.test_cli import write_submission
from tests.judge.test_score_flags import score
from tests.memory.conftest import prompt_records, write_jsonl
from tests.modes.test_compare import is_pairwise, prefers_red
from tests.modes.test_compare_cli import model_flags
from tests.modes.test_compare_cli import write_jsonl as write_comparisons


@pytest.fixture(autouse=True)
def _no_judge_env(monkeypatch):
    for var in [v for v in os.environ if v.startswith("JUDGE_")]:
        monkeypatch.delenv(var)


def test_score_confidence_samples(provider, tmp_path, capsys):
    result = score(provider, tmp_path, capsys, "--confidence", "samples:3")
    items = result["objective"]["image"]["items"]
    assert items and all(i["confidence_method"] == "samples:3" for i in items)
    assert all(0 <= i["confidence"] <= 1 for i in items)
    assert result["provenance"]["confidence"] == "samples:3"
    assert result["usage"]["confidence_calls"] > 0


@pytest.mark.parametrize(
    ("method", "says"),
    [
        ("sample:3", "--confidence 'sample:3': unknown confidence method 'sample'; did you mean"),
        ("samples:40", "K must be from 2 to 20"),
        ("samples", "samples needs a count: samples:K"),
        ("swap:2", "swap takes no count"),
        ("swap", "swap compares the two orders of a comparison"),
        ("panel", "panel needs at least two judge models"),
    ],
)
def test_score_refuses_a_bad_method(provider, tmp_path, capsys, method, says):
    path = write_submission(tmp_path / "sub", None)
    flags = ["--model", "openai/fake-judge", "--api-base", provider.base_url, "--api-key", "k"]
    assert main(["score", str(path), *flags, "--confidence", method]) == 2
    assert says in capsys.readouterr().err
    assert provider.calls == 0


def test_score_confidence_memory_flag(provider, tmp_path, capsys):
    path = write_jsonl(tmp_path / "p.jsonl", prompt_records())
    MemoryStore(tmp_path / "store").build("my-labels", load_exemplars(path), base_dir=tmp_path)
    result = score(provider, tmp_path, capsys, "--memory-dir", str(tmp_path / "store"),
                   "--confidence", "annotators:2", "--confidence-memory", "my-labels")  # fmt: skip
    items = result["objective"]["prompt"]["items"]
    assert all(i["confidence"] is not None for i in items)  # checkpoints see my-labels too
    assert result["provenance"]["options"]["confidence_memory"] == "my-labels"


def test_compare_confidence_swap(provider, tmp_path, capsys):
    provider.on(is_pairwise, prefers_red)
    src = write_comparisons(tmp_path / "cmp.jsonl", 2)
    assert main(["compare", str(src), *model_flags(provider), "--confidence", "swap"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["criteria"]["preference"]["confidence"] for r in rows] == [1.0, 1.0]
    assert all(r["provenance"]["confidence"] == "swap" for r in rows)


def test_meta_eval_confidence_reaches_the_predictions(provider, tmp_path: Path):
    data = tmp_path / "d"
    (data / "pics").mkdir(parents=True)
    rows = []
    for k, color in enumerate(["red", "navy", "olive"]):
        Image.new("RGB", (48, 48), color).save(data / "pics" / f"{k}.png")
        rows.append({"path": f"pics/{k}.png", "text": f"a {color} field", "mos": str(1 + k)})
    write_csv(data / "labels.csv", ["path", "text", "mos"], rows)
    out = tmp_path / "out"
    args = ["--dataset", "csv", "--data", data, "--out", out, "--columns",
            "image=path,prompt=text,target.appeal=mos", "--skills", "avt_appeal"]  # fmt: skip
    assert main(cli_args(provider, *args, "--confidence", "samples:2")) == 0
    preds = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(preds) == 3 and provider.calls == 3 * 3  # the ordinary call and 2 samples
    for p in preds:
        assert p["confidence_method"] == "samples:2"
        assert set(p["confidence"]) == {"subjective.image.appeal"}
        assert p["confidence"]["subjective.image.appeal"] in (0.0, 0.5, 1.0)


def test_meta_eval_refuses_a_bad_method(provider, tmp_path: Path, capsys):
    args = ["--dataset", "csv", "--data", tmp_path, "--confidence", "panels"]
    assert main(cli_args(provider, *args)) == 2
    assert "did you mean 'panel'?" in capsys.readouterr().err
