"""``judge datasets fetch`` against loopback stand-ins, never the internet.

The Hub's files are served by :class:`tests.fakes.hf_hub.FakeHub` reached through
``HF_ENDPOINT`` (and the library's own endpoint constant, so that nothing it sends on its own
leaves the machine); the authors' repository files by the same server as a ``--mirror``. Each
set is served as its publisher lays it out (archives, split parts, pinned files), built from
the miniatures the adapters' tests use, and the fetched folder must read as the set: the same
items as the miniature itself. Resuming, checksums, the manual step, offline mode and hostile
archives are checked too.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from eval.datasets import get_dataset
from eval.datasets.fetch.catalog import SOURCES
from eval.datasets.fetch.state import STATE
from judge.cli.main import main
from tests.eval.public_sets import miniatures
from tests.fakes.hf_hub import FakeHub

CATALOG = tomllib.loads(SOURCES.read_text(encoding="utf-8"))


def fetch(*args: str | Path) -> list[str]:
    return ["datasets", "fetch", *map(str, args), "--no-progress"]


def zipped(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def tarred(folder: Path, arcname: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(folder, arcname=arcname)
    return buf.getvalue()


def files_under(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def ids(name: str, folder: Path) -> list[str]:
    return sorted(i.id for i in get_dataset(name).load(folder))


def raw_path(url: str) -> str:
    return "/" + url.split("://", 1)[1]


def serve_hpdv2(hub: FakeHub, tmp: Path) -> Path:
    mini = miniatures.hpdv2(tmp / "hpdv2-published")
    hub.dataset("zhwang/HPDv2", {
        "test.json": (mini / "test.json").read_bytes(),
        "test.tar.gz": tarred(mini / "test", "test"),
        "README.md": b"---\nlicense: apache-2.0\n---\n",
    })  # fmt: skip
    return mini


def test_list_names_each_set_its_source_licence_and_whether_it_can_be_fetched(capsys) -> None:
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    for name, entry in CATALOG.items():
        assert f"{name:<12} fetch: " in out and entry["source"] in out and entry["licence"] in out
    assert "tifa         fetch: labels; images by hand" in out
    assert main(["datasets", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["hpdv2"]["fetch"] == "yes" and rows["hpdv2"]["licence"].startswith("Apache-2.0")
    assert set(rows) == set(CATALOG) and all(r["citation"] for r in rows.values())


def test_hpdv2_from_the_hub_reads_as_the_set_and_a_second_run_fetches_nothing(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    mini = serve_hpdv2(hub, tmp_path)
    to = tmp_path / "HPDv2"
    assert main(fetch("hpdv2", "--to", to)) == 0
    out = capsys.readouterr().out
    assert "licence: Apache-2.0" in out and "cite:    Wu et al. 2023" in out
    assert f"the hpdv2 adapter reads 12 items from {to}" in out
    assert ids("hpdv2", to) == ids("hpdv2", mini)
    assert not (to / "test.tar.gz").exists()  # unpacked, then removed
    served = hub.body_bytes
    assert main(fetch("hpdv2", "--to", to)) == 0
    assert "0 file(s) fetched, 2 already there" in capsys.readouterr().out
    assert hub.body_bytes == served  # nothing downloaded again


def test_genai_bench_archives_are_unpacked_into_model_folders(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    mini = miniatures.genai_bench(tmp_path / "genai-published")
    files = {n: (mini / n).read_bytes() for n in ("genai_image.json", "genai_skills.json")}
    for model in CATALOG["genai-bench"]["hub"][0]["files"][2:]:
        name = model.removesuffix(".zip")
        folder = mini / name
        images = files_under(folder) if folder.is_dir() else {"00001.jpeg": b"not in the json"}
        files[model] = zipped({f"{name}/{k}": v for k, v in images.items()})
    files["Gen2.zip"] = b"a video archive the image set does not need"
    hub.dataset("zhiqiulin/GenAI-Bench-527", files)
    to = tmp_path / "GenAI-Image-527"
    assert main(fetch("genai-bench", "--to", to)[:-1]) == 0  # with the progress bars
    err = capsys.readouterr().err
    assert "DALLE_3.zip: 100%" in err and "unpacking DALLE_3.zip: 100%" in err
    assert ids("genai-bench", to) == ids("genai-bench", mini)
    assert not hub.gets("Gen2.zip") and not list(to.glob("*.zip"))


def test_pickapic_shards_are_found_by_pattern(hub: FakeHub, tmp_path: Path) -> None:
    mini = miniatures.pickapic(tmp_path / "pickapic-published")
    hub.dataset("yuvalkirstain/pickapic_v2", {
        **{f"data/{p.name}": p.read_bytes() for p in (mini / "data").glob("*.parquet")},
        "data/train-00000-of-00001-aaaa.parquet": b"not fetched",
    })  # fmt: skip
    to = tmp_path / "pickapic_v2"
    assert main(fetch("pickapic", "--to", to)) == 0
    assert ids("pickapic", to) == ids("pickapic", mini)
    assert not hub.gets("train-00000-of-00001-aaaa.parquet")


def test_evalmuse_split_parts_are_joined_and_unpacked(hub: FakeHub, tmp_path: Path) -> None:
    mini = miniatures.evalmuse(tmp_path / "evalmuse-published")
    archive = zipped({f"images/{k}": v for k, v in files_under(mini / "images").items()})
    third = len(archive) // 3 + 1
    parts = {f"images.zip.part-a{c}": archive[k * third : (k + 1) * third] for k, c in
             enumerate("abc")}  # fmt: skip
    hub.dataset("DY-Evalab/EvalMuse", {"train_list.json": (mini / "train_list.json").read_bytes(),
                                       "test.json": b"[]", **parts})  # fmt: skip
    to = tmp_path / "EvalMuse"
    assert main(fetch("evalmuse", "--to", to, "--keep-archives")) == 0
    assert ids("evalmuse", to) == ids("evalmuse", mini)
    assert sorted(p.name for p in to.glob("images.zip.part-*")) == sorted(parts)
    assert not hub.gets("test.json")


def manual_set(hub: FakeHub, tmp: Path, name: str) -> tuple[Path, bytes]:
    """The set's pinned files on the mirror, and its images as a drive archive would hold
    them (in a folder of the archive's own, with a macOS resource fork besides)."""
    mini = (miniatures.tifa if name == "tifa" else miniatures.agiqa3k)(tmp / f"{name}-published")
    for entry in CATALOG[name]["url"]:
        hub.raw[raw_path(entry["url"])] = (mini / entry["path"]).read_bytes()
    images = {  # some under a folder, some as a zip made on Windows names them
        (f"inner/folder/{p.name}" if k % 2 else f"win\\dir\\{p.name}"): p.read_bytes()
        for k, p in enumerate(sorted(mini.glob("*.jpg")))
    }
    images["__MACOSX/inner/._x.jpg"] = b"resource fork"
    return mini, zipped(images)


@pytest.mark.parametrize("name", ["tifa", "agiqa-3k"])
def test_a_manual_step_says_which_file_goes_where_then_takes_the_archive(
    hub: FakeHub, tmp_path: Path, capsys, name: str
) -> None:
    mini, archive = manual_set(hub, tmp_path, name)
    to = tmp_path / name
    args = fetch(name, "--to", to, "--mirror", hub.url)
    assert main(args) == 3
    out = capsys.readouterr().out
    manual = CATALOG[name]["manual"][0]
    assert f"download it from {manual['url']}" in out
    assert f"judge datasets fetch {name} --to {to} --archive PATH/TO/THE/ARCHIVE" in out
    assert f"move the *.jpg files into {to / 'images'}/" in out
    (tmp_path / "download.zip").write_bytes(archive)
    assert main([*args, "--archive", str(tmp_path / "download.zip")]) == 0
    out = capsys.readouterr().out
    assert "0 file(s) fetched" in out and ids(name, to) == ids(name, mini)
    assert not (to / "images" / "._x.jpg").exists()


def test_an_interrupted_download_resumes_where_it_stopped(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    mini = serve_hpdv2(hub, tmp_path)
    size = len(hub.repos["zhwang/HPDv2"]["test.tar.gz"])
    hub.fault("test.tar.gz", "drop", 700)  # the connection breaks after 700 bytes
    to = tmp_path / "HPDv2"
    assert main(fetch("hpdv2", "--to", to)) == 2
    assert "run the same command again to resume" in capsys.readouterr().err
    assert (to / "test.tar.gz.part").stat().st_size == 700
    served = hub.body_bytes
    assert main(fetch("hpdv2", "--to", to)) == 0
    assert hub.gets("test.tar.gz") == [None, "bytes=700-"]
    assert hub.body_bytes - served == size - 700  # the first 700 bytes were not sent again
    assert ids("hpdv2", to) == ids("hpdv2", mini)
    # the authors' own files resume the same way
    mini, _ = manual_set(hub, tmp_path, "agiqa-3k")
    hub.fault("data.csv", "drop", 100)
    args = fetch("agiqa-3k", "--to", tmp_path / "agiqa", "--mirror", hub.url)
    assert main(args) == 2 and "run the same command again" in capsys.readouterr().err
    assert main(args) == 3
    assert hub.gets("/data.csv") == [None, "bytes=100-"]
    assert (tmp_path / "agiqa" / "data.csv").read_bytes() == (mini / "data.csv").read_bytes()


def test_a_file_that_fails_its_checksum_is_removed_not_kept_as_complete(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    serve_hpdv2(hub, tmp_path)
    hub.corrupt.add("test.tar.gz")
    to = tmp_path / "HPDv2"
    assert main(fetch("hpdv2", "--to", to)) == 2
    err = capsys.readouterr().err
    assert "/test.tar.gz: the downloaded file does not match (sha256 " in err
    assert not (to / "test.tar.gz").exists() and not (to / "test").exists()
    assert "test.tar.gz" not in json.loads((to / STATE).read_text())["files"]
    hub.corrupt.clear()
    assert main(fetch("hpdv2", "--to", to)) == 0  # the next run fetches it whole
    hub.corrupt = {"test.json"}  # a small file: checked against its git blob id
    assert main(fetch("hpdv2", "--to", tmp_path / "again")) == 2
    err = capsys.readouterr().err
    assert "zhwang/HPDv2/test.json: the downloaded file does not match the Hub's checksum" in err
    assert "git blob id" in err and not (tmp_path / "again" / "test.json").exists()


def test_the_publishers_sha256_is_checked_for_the_authors_files(
    hub: FakeHub, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RichHF-18K's test.tfrecord is pinned to its Git LFS sha256: the miniature is not it."""
    mini = miniatures.richhf(tmp_path / "richhf-published")
    (entry,) = CATALOG["richhf"]["url"]
    hub.raw[raw_path(entry["url"])] = (mini / "test.tfrecord").read_bytes()
    shards = {f"data/{p.name}": p.read_bytes() for p in (mini / "pickapic_v1/data").iterdir()}
    hub.dataset("yuvalkirstain/pickapic_v1", shards)
    to = tmp_path / "richhf-18k"
    args = fetch("richhf", "--to", to, "--mirror", hub.url)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "test.tfrecord: the downloaded file does not match" in err and entry["sha256"] in err
    assert not (to / "test.tfrecord").exists() and not (to / "test.tfrecord.part").exists()
    # the same file, pinned to its own sha256 in a copy of the catalog, goes through
    data = (mini / "test.tfrecord").read_bytes()
    text = SOURCES.read_text(encoding="utf-8").replace(entry["sha256"], hashlib.sha256(data)
                                                        .hexdigest())  # fmt: skip
    text = text.replace(f"size = {entry['size']}", f"size = {len(data)}")
    own = tmp_path / "sources.toml"
    own.write_text(text, encoding="utf-8")
    monkeypatch.setattr("eval.datasets.fetch.catalog.SOURCES", own)
    assert main(args) == 0
    assert ids("richhf", to) == ids("richhf", mini)


def test_offline_mode_stops_with_a_message_before_anything_is_fetched(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    to = tmp_path / "HPDv2"
    assert main(fetch("hpdv2", "--to", to)) == 2
    err = capsys.readouterr().err
    assert "HF_HUB_OFFLINE is set" in err and "HF_HUB_OFFLINE=0" in err
    assert list(to.iterdir()) == []


def test_an_archive_member_leading_out_of_the_folder_is_refused(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    mini = serve_hpdv2(hub, tmp_path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b"planted"
        info = tarfile.TarInfo("../planted.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    hub.repos["zhwang/HPDv2"]["test.tar.gz"] = buf.getvalue()
    to = tmp_path / "HPDv2"
    assert main(fetch("hpdv2", "--to", to)) == 2
    assert "test.tar.gz: member refused" in capsys.readouterr().err
    assert not (tmp_path / "planted.txt").exists() and not (to / "test").exists()
    assert mini.is_dir()


def test_unknown_set_and_wrong_archive_count_are_clear_errors(tmp_path: Path, capsys) -> None:
    assert main(fetch("tiffa", "--to", tmp_path / "x")) == 2
    assert "unknown set 'tiffa'; did you mean tifa?" in capsys.readouterr().err
    extra = tmp_path / "a.zip"
    extra.write_bytes(zipped({"a.jpg": b"x"}))
    assert main(fetch("hpdv2", "--to", tmp_path / "y", "--archive", extra)) == 2
    assert "hpdv2 has 0 manual download(s); 1 --archive given" in capsys.readouterr().err
