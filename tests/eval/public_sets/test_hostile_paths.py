"""The public-set adapters never read outside ``--data`` (issue 48, item 4).

Each adapter gets a miniature in its published layout with one record edited to name an image
outside the folder — by an absolute path, by ``..``, or through a symlink inside the folder
that points out — and a real JPEG waiting there (the file the old code opened and sent to the
provider). ``judge meta-eval`` must refuse the run with an error naming the record and the
path, and make no provider call. The parquet- and TFRecord-backed sets read no path from their
records, but a shard that is a symlink out of the folder is refused too.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.eval.conftest import cli_args
from tests.eval.public_sets import miniatures
from tests.eval.public_sets.miniatures import tiny_image
from tests.fakes.provider import FakeProvider


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A real image outside every data folder: the file a hostile record points at."""
    path = tmp_path / "elsewhere" / "secret.jpg"
    tiny_image(path, 999)
    return path


def _json(path: Path, edit: Callable[[object], None]) -> None:
    raw = json.loads(path.read_text())
    edit(raw)
    path.write_text(json.dumps(raw))


def tifa(root: Path, ref: str) -> tuple[Path, str]:
    data = miniatures.tifa(root)
    key = "drawbench_52_vq_diffusion"
    _json(data / "human_annotations.json", lambda j: j[key].__setitem__("image_path", ref))
    return data, f'human_annotations.json: key "{key}" → "image_path"'


def hpdv2(root: Path, ref: str) -> tuple[Path, str]:
    data = miniatures.hpdv2(root)
    _json(data / "test.json", lambda j: j[1]["image_path"].__setitem__(0, ref))
    return data, 'test.json: key "1" → "image_path" → "0"'


def evalmuse(root: Path, ref: str) -> tuple[Path, str]:
    data = miniatures.evalmuse(root)
    _json(data / "train_list.json", lambda j: j[2].__setitem__("img_path", ref))
    return data, 'train_list.json: key "2" → "img_path"'


def agiqa(root: Path, ref: str) -> tuple[Path, str]:
    data = miniatures.agiqa3k(root)
    rows = list(csv.reader((data / "data.csv").open(newline="")))
    rows[3][0] = ref
    with (data / "data.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return data, "data.csv:4: column 'name'"


def genai(root: Path, ref: str) -> tuple[Path, str]:
    """GenAI-Bench names no file: the path is built from the model key and the prompt id, so
    a hostile model key (or a model folder that is a symlink out) is the attack."""
    data = miniatures.genai_bench(root)
    model = ref.removesuffix("/00002.jpeg")

    def edit(j: dict) -> None:
        j["00002"]["models"][model] = j["00002"]["models"].pop("SDXL_Turbo")

    _json(data / "genai_image.json", edit)
    return data, f'genai_image.json: key "00002" → "models" → "{model}"'


ADAPTERS = {"tifa": tifa, "hpdv2": hpdv2, "evalmuse": evalmuse, "agiqa-3k": agiqa,
            "genai-bench": genai}  # fmt: skip


def hostile_ref(kind: str, data: Path, secret: Path, adapter: str) -> str:
    """The path a record names: absolute, climbing with ``..``, or a symlink inside."""
    if adapter == "genai-bench":  # the image is MODEL/ID.jpeg: attack through the model key
        secret.rename(secret.with_name("00002.jpeg"))
        folder = secret.parent
        if kind == "absolute":
            return f"{folder}/00002.jpeg"
        if kind == "dotdot":
            return f"{os.path.relpath(folder, data)}/00002.jpeg"
        (data / "evil").symlink_to(folder)
        return "evil/00002.jpeg"
    if kind == "absolute":
        return str(secret)
    if kind == "dotdot":
        base = data / "test" if adapter == "hpdv2" else data
        return os.path.relpath(secret, base)
    link = data / "test" / "link.jpg" if adapter == "hpdv2" else data / "link.jpg"
    link.symlink_to(secret)
    return "link.jpg"


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink"])
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_record_naming_a_file_outside_data_is_refused_before_any_call(
    provider: FakeProvider,
    tmp_path: Path,
    outside: Path,
    capsys: pytest.CaptureFixture[str],
    adapter: str,
    kind: str,
) -> None:
    build = ADAPTERS[adapter]
    root = tmp_path / "data"
    if adapter == "genai-bench":
        miniatures.genai_bench(root)  # to know the folder before naming the path
    elif adapter == "hpdv2":
        (root / "test").mkdir(parents=True)
    else:
        root.mkdir(parents=True)
    ref = hostile_ref(kind, root, outside, adapter)
    data, record = build(root, ref)
    args = cli_args(provider, "--dataset", adapter, "--data", data, "--out", tmp_path / "out")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert record in err, err
    assert "leaves the data folder (--data)" in err and "refused" in err
    assert "Traceback" not in err
    assert provider.calls == 0


@pytest.mark.parametrize("adapter", ["pickapic", "richhf"])
def test_a_shard_that_is_a_symlink_out_of_data_is_refused(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str], adapter: str
) -> None:
    build = miniatures.pickapic if adapter == "pickapic" else miniatures.richhf
    real = build(tmp_path / "real")
    data = tmp_path / "data"
    if adapter == "pickapic":
        (data / "data").mkdir(parents=True)
        shard = next((real / "data").glob("*.parquet"))
        (data / "data" / shard.name).symlink_to(shard)
    else:
        (data / "pickapic_v1" / "data").mkdir(parents=True)
        (data / "test.tfrecord").write_bytes((real / "test.tfrecord").read_bytes())
        for shard in (real / "pickapic_v1" / "data").glob("*.parquet"):
            (data / "pickapic_v1" / "data" / shard.name).symlink_to(shard)
    args = cli_args(provider, "--dataset", adapter, "--data", data, "--out", tmp_path / "out")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert ".parquet" in err and "leaves the data folder (--data)" in err, err
    assert provider.calls == 0


def test_a_symlinked_labels_file_leading_out_is_refused(
    provider: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = miniatures.tifa(tmp_path / "real")
    data = tmp_path / "data"
    data.mkdir()
    (data / "human_annotations.json").symlink_to(real / "human_annotations.json")
    args = cli_args(provider, "--dataset", "tifa", "--data", data, "--out", tmp_path / "out")
    assert main(args) == 2
    assert "human_annotations.json' leaves the data folder" in capsys.readouterr().err
    assert provider.calls == 0


def test_a_symlink_that_stays_inside_data_is_followed(
    provider: FakeProvider, tmp_path: Path
) -> None:
    """Refusing escapes must not refuse a folder that links its images within itself."""
    data = miniatures.tifa(tmp_path / "data")
    key = "drawbench_52_vq_diffusion"
    (data / "images").mkdir()
    (data / f"{key}.jpg").rename(data / "images" / "kept.jpg")
    (data / "alias.jpg").symlink_to(data / "images" / "kept.jpg")
    _json(data / "human_annotations.json", lambda j: j[key].__setitem__("image_path", "alias.jpg"))
    args = cli_args(provider, "--dataset", "tifa", "--data", data, "--out", tmp_path / "out")
    assert main([*args, "--limit", "2"]) == 0
