"""RichHF-18K end to end on a miniature in its published layout (test.tfrecord written with
the protobuf library, Pick-a-Pic v1 test shards beside it): the four scores onto rubric
dimensions, the misaligned words onto checklist failures, recomputed here with scipy and
numpy from the records and the shards alone; malformed copies name the record and feature."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from eval.datasets import get_dataset
from eval.datasets.public import richhf as richhf_module
from eval.datasets.public import shard_index as shard_index_module
from eval.datasets.public.base import LayoutError
from eval.datasets.public.parquet_rows import parquet_rows
from eval.datasets.public.richhf import FUNCTION_WORDS, words
from judge.cli.main import main
from skills.local.feature_cache import cache_dir
from tests.eval.public_sets.miniatures import RICHHF_RECORDS, richhf
from tests.eval.public_sets.tf_example import write_tfrecord


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return richhf(tmp_path_factory.mktemp("richhf") / "richhf-18k")


def test_records_become_items_with_pickapic_images_and_prompts(mini: Path) -> None:
    items = get_dataset("richhf").load(mini)
    assert [i.submission["prompt"] for i in items] == [p for p, _, _ in RICHHF_RECORDS]
    first = items[0]
    assert first.labels == pytest.approx(
        {"plausibility": 0.8, "aesthetics": 0.6, "alignment": 0.5, "overall": 0.7}
    )
    # "a red fox reading a newspaper", labels 1 0 1 1 1 0: "red" and "newspaper" misaligned
    checks = first.submission["task"]["checklist"]
    assert [c["image_check"] for c in checks] == [
        "The image shows: red.",
        "The image shows: fox.",
        "The image shows: reading.",
        "The image shows: newspaper.",
    ]
    assert first.objective == {"image": {"w2": False, "w3": True, "w4": True, "w6": False}}
    image = Path(first.submission["images"][0])
    assert image.is_relative_to(cache_dir() / "richhf") and image.is_file()
    assert items[3].objective == {}  # 5 words, 4 labels: scores kept, no checkpoints


def test_mock_run_scores_rubric_and_checklist_like_scipy(mini: Path, tmp_path: Path) -> None:
    args = ["meta-eval", "--dataset", "richhf", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--model", "mock/judge", "--no-safety", "--n-boot", "30"]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    preds = [json.loads(x) for x in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    section = report["public_set"]
    for k, target in enumerate(("plausibility", "aesthetics", "alignment", "overall")):
        judge = [p["scores"][target] for p in preds]
        human = [np.float32(s[k]) for _, _, s in RICHHF_RECORDS]
        fig = section["figures"][target]
        assert fig["n"] == 4
        assert fig["spearman"] == pytest.approx(stats.spearmanr(judge, human).statistic)
    said, gold = [], []
    for (prompt, marks, _), p in zip(RICHHF_RECORDS, preds, strict=True):
        toks, labels = words(prompt), marks.split()
        if len(toks) != len(labels):
            continue
        for k, (tok, mark) in enumerate(zip(toks, labels, strict=True), 1):
            if tok.lower() not in FUNCTION_WORDS:
                said.append(p["objective"]["image"][f"w{k}"])
                gold.append(mark == "1")
    checks = section["checklist"]["all"]
    assert checks["n"] == len(gold) == 12
    assert checks["accuracy"] == pytest.approx(np.mean(np.array(said) == np.array(gold)))
    assert report["richhf"]["word_labels_unmatched"] == [preds[3]["id"]]
    assert section["baselines"] == []


def test_the_offline_backend_says_a_model_is_needed(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["meta-eval", "--dataset", "richhf", "--data", str(mini), "--out", str(tmp_path)]
    assert main([*args, "--n-boot", "0", "--limit", "2"]) == 4
    assert "needs a vision-language model" in capsys.readouterr().out


def _record(n: int, edit) -> list[dict]:
    from tests.eval.public_sets.miniatures import pickapic_columns

    cols = pickapic_columns(tuple((p, 1.0, 0.0, "sdxl", "sd21") for p, _, _ in RICHHF_RECORDS))
    out = []
    for k, (_, marks, (art, aes, mis, ovr)) in enumerate(RICHHF_RECORDS):
        rec = {
            "filename": [f"x/{cols[f'image_{k % 2}_uid'][k]}.png".encode()],
            "artifact_score": [art],
            "aesthetics_score": [aes],
            "misalignment_score": [mis],
            "overall_score": [ovr],
            "prompt_misalignment_label": [marks.encode()],
        }
        if k == n:
            edit(rec)
        out.append(rec)
    return out


@pytest.mark.parametrize(
    ("n", "edit", "expected"),
    [
        (1, lambda r: r.pop("overall_score"), r'record 1: feature "overall_score" is missing'),
        (
            2,
            lambda r: r.__setitem__("aesthetics_score", [b"high"]),
            r'record 2, feature "aesthetics_score": expected one float value, got bytes',
        ),
        (
            0,
            lambda r: r.__setitem__("prompt_misalignment_label", [b"1 yes 0"]),
            r'record 0, feature "prompt_misalignment_label": expected 0/1 per word',
        ),
        (
            3,
            lambda r: r.__setitem__("filename", [b"x/no-such-uid.png"]),
            r"record 3: image no-such-uid is in none of the 2 shards",
        ),
    ],
)
def test_a_malformed_copy_names_record_and_feature(
    mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int, edit, expected: str
) -> None:
    copy = shutil.copytree(mini, tmp_path / "copy")
    write_tfrecord(copy / "test.tfrecord", _record(n, edit))
    with pytest.raises(LayoutError, match=r"test.tfrecord: " + expected):
        get_dataset("richhf").load(copy)
    args = ["meta-eval", "--dataset", "richhf", "--data", str(copy), "--out", str(tmp_path / "o")]
    assert main(args) == 2 and "test.tfrecord" in capsys.readouterr().err


def test_a_folder_without_the_records_or_the_shards_lists_the_layout(
    mini: Path, tmp_path: Path
) -> None:
    with pytest.raises(LayoutError, match=r"test.tfrecord not found.*\n  test.tfrecord "):
        get_dataset("richhf").load(tmp_path)
    copy = shutil.copytree(mini, tmp_path / "copy")
    shutil.rmtree(copy / "pickapic_v1")
    with pytest.raises(LayoutError, match=r"pickapic_v1/data/test-\*.parquet not found"):
        get_dataset("richhf").load(copy)


def test_a_second_load_reads_no_shard_until_one_changes(
    mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shards' index lives under the cache folder (not the data folder): a new process
    finds the prompts there and the images already written, and reads no shard; a missing
    cached image rereads its own shard only; a touched shard rebuilds the index."""
    copy = shutil.copytree(mini, tmp_path / "copy")
    before = sorted(p.relative_to(copy) for p in copy.rglob("*"))
    first = get_dataset("richhf").load(copy)
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == before
    assert list((cache_dir() / "richhf").glob("index-*.json"))
    reads: list[str] = []

    def counting(path: Path, *args, **kwargs):
        reads.append(Path(path).name)
        yield from parquet_rows(path, *args, **kwargs)

    monkeypatch.setattr(richhf_module, "parquet_rows", counting)
    monkeypatch.setattr(shard_index_module, "parquet_rows", counting)

    def load_in_a_new_process() -> list:
        monkeypatch.setattr(shard_index_module, "_MEMORY", {})
        reads.clear()
        return get_dataset("richhf").load(copy)

    seen = [(i.id, i.submission["prompt"], i.submission["images"]) for i in first]
    again = load_in_a_new_process()
    assert reads == []
    assert [(i.id, i.submission["prompt"], i.submission["images"]) for i in again] == seen

    Path(first[0].submission["images"][0]).unlink()
    load_in_a_new_process()
    shards = sorted(p.name for p in (copy / "pickapic_v1" / "data").glob("*.parquet"))
    assert len(reads) == 1 and reads[0] in shards  # the images of one shard, no index rebuild

    touched = copy / "pickapic_v1" / "data" / shards[0]
    st = touched.stat()
    os.utime(touched, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    load_in_a_new_process()
    assert sorted(reads) == shards  # the small columns of every shard, once
