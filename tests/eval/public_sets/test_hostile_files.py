"""Hostile data files name the record instead of a traceback (issue 48, item 11).

``judge meta-eval`` on: JSON nested deeper than Python's parser recurses (a labels file and a
JSON-lines file), a TFRecord whose length field lies (with a valid CRC), a parquet shard whose
image column is a decompression bomb, files that are not UTF-8 (JSON, CSV, JSON lines), and
TIFA ratings that are NaN or infinite. Each exits 2 with an error naming the file (and the
line, record or key), no traceback, and no provider call.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.cli.main import main
from memory.io.jsonl import JsonlError, read_jsonl
from tests.eval.conftest import cli_args
from tests.eval.public_sets import miniatures
from tests.eval.public_sets.tf_example import _masked
from tests.fakes.provider import FakeProvider

DEEP = "[" * 200_000 + "]" * 200_000


def refused(provider: FakeProvider, capsys, dataset: str, data: Path, out: Path) -> str:
    """Run meta-eval on ``data``; assert exit 2, no traceback, no call; the error text."""
    assert main(cli_args(provider, "--dataset", dataset, "--data", data, "--out", out)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "RecursionError" not in err, err
    assert provider.calls == 0
    return err


def test_deeply_nested_json_names_the_file(provider: FakeProvider, tmp_path: Path, capsys):
    data = miniatures.tifa(tmp_path / "tifa")
    (data / "human_annotations.json").write_text(DEEP)
    err = refused(provider, capsys, "tifa", data, tmp_path / "out")
    assert "human_annotations.json: JSON nested too deeply" in err


def test_deeply_nested_json_lines_name_the_line(tmp_path: Path):
    path = tmp_path / "votes.jsonl"
    path.write_text('{"a": 1}\n' + DEEP + "\n")
    with pytest.raises(JsonlError, match=r"votes.jsonl:2: JSON nested too deeply"):
        read_jsonl(path)


def test_a_tfrecord_with_a_lying_length_names_the_record(
    provider: FakeProvider, tmp_path: Path, capsys
):
    data = miniatures.richhf(tmp_path / "richhf")
    good = (data / "test.tfrecord").read_bytes()
    length = struct.pack("<Q", 2**62)  # 4 EiB announced, its CRC right, so it is believed
    (data / "test.tfrecord").write_bytes(good + length + struct.pack("<I", _masked(length)))
    err = refused(provider, capsys, "richhf", data, tmp_path / "out")
    assert "test.tfrecord: record 4 (byte " in err
    assert f"announces {2**62} bytes of data, the file has 0 left" in err


def test_a_parquet_decompression_bomb_is_refused_before_it_is_read(
    provider: FakeProvider, tmp_path: Path, capsys
):
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "pickapic"
    (data / "data").mkdir(parents=True)
    cols = miniatures.pickapic_columns(miniatures.PICKAPIC_ROWS[:1])
    cols["jpg_0"] = [bytes(70 * 2**20)]  # 70 MiB of zeros: a few kilobytes compressed
    path = data / "data" / "test_unique-00000-of-00001-bomb.parquet"
    pq.write_table(pa.table(cols), path, compression="zstd")
    assert path.stat().st_size < 2**20
    err = refused(provider, capsys, "pickapic", data, tmp_path / "out")
    assert f'{path}: row group 0, column "jpg_0"' in err and "decompression bomb" in err


def _bad_byte(path: Path, old: str, new: bytes) -> None:
    raw = path.read_bytes()
    assert old.encode() in raw
    path.write_bytes(raw.replace(old.encode(), new, 1))


NOT_UTF8: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    "tifa": (miniatures.tifa, "human_annotations.json", "A red colored car."),
    "agiqa-3k": (miniatures.agiqa3k, "data.csv", "a tray of sushi"),
    "hpdv2": (miniatures.hpdv2, "test.json", "a corgi astronaut"),
}


@pytest.mark.parametrize("dataset", sorted(NOT_UTF8))
def test_a_file_that_is_not_utf8_is_named_with_its_line(
    provider: FakeProvider, tmp_path: Path, capsys, dataset: str
):
    build, name, text = NOT_UTF8[dataset]
    data = build(tmp_path / dataset)
    _bad_byte(data / name, text, text.encode().replace(b"a", b"\xe9", 1))
    line = (data / name).read_bytes().split(b"\xe9")[0].count(b"\n") + 1
    err = refused(provider, capsys, dataset, data, tmp_path / "out")
    assert f"{data / name}:{line}: not UTF-8 text (byte 0xe9" in err, err


def test_a_jsonl_file_that_is_not_utf8_is_named_with_its_line(tmp_path: Path):
    path = tmp_path / "votes.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "caf\xe9"}\n')
    with pytest.raises(JsonlError, match=r"votes.jsonl:2: not UTF-8 text \(byte 0xe9"):
        read_jsonl(path)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_tifa_refuses_ratings_that_are_not_finite(
    provider: FakeProvider, tmp_path: Path, capsys, bad: str
):
    data = miniatures.tifa(tmp_path / "tifa")
    path = data / "human_annotations.json"
    raw = json.loads(path.read_text())
    raw["partiprompt_17_mini_dalle"]["human_scores"] = [4, "BAD"]
    path.write_text(json.dumps(raw).replace('"BAD"', bad))
    err = refused(provider, capsys, "tifa", data, tmp_path / "out")
    where = 'key "partiprompt_17_mini_dalle" → "human_scores" → "1"'
    assert f"{where}: expected a rating 1–5, got " in err and "NaN and infinities" in err
