"""A probe run folder's ``probe.json`` is read and written through the typed
:class:`eval.probing.run_record.ProbeRun`, byte for byte as runs wrote it before: the files in
tests/probing/data/probe_json_pins are pinned bytes, written by ``judge probe run`` before the
record was typed (an image-model run, one with ``--criterion``, and an editor run with its
source folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.i2i.spec import EditorSpec
from eval.probing.params import ProbeParams
from eval.probing.run_record import ProbeRun
from eval.t2i.spec import BackendSpec

RUNS = Path(__file__).parent / "data" / "probe_json_pins"
CASES = sorted(p.name for p in RUNS.glob("*.json"))


def _folder(tmp_path: Path, name: str) -> Path:
    out = tmp_path / name.removesuffix(".json")
    out.mkdir()
    (out / "probe.json").write_bytes((RUNS / name).read_bytes())
    return out


@pytest.mark.parametrize("name", CASES)
def test_a_stored_run_reads_and_writes_back_byte_for_byte(tmp_path: Path, name: str) -> None:
    run = ProbeRun.read(_folder(tmp_path, name))
    assert run is not None
    again = tmp_path / "again"
    run.write(again)
    assert (again / "probe.json").read_bytes() == (RUNS / name).read_bytes()


@pytest.mark.parametrize("name", CASES)
def test_a_new_run_is_recorded_as_before(tmp_path: Path, name: str) -> None:
    """The same options, backend and sources give the same file as the untyped writer."""
    stored = json.loads((RUNS / name).read_text(encoding="utf-8"))
    spec_model = EditorSpec if stored.get("kind") == "edit" else BackendSpec
    spec = spec_model.model_validate(stored["backend"])
    sources = Path(stored["sources"]) if stored.get("sources") else None
    ProbeRun.of(ProbeParams.model_validate(stored["params"]), spec, sources).write(tmp_path)
    assert (tmp_path / "probe.json").read_bytes() == (RUNS / name).read_bytes()


def test_an_editor_run_says_so_and_a_folder_without_a_run_reads_none(tmp_path: Path) -> None:
    run = ProbeRun.read(_folder(tmp_path, "editor.json"))
    assert run is not None and run.is_edit and run.sources
    model = ProbeRun.read(_folder(tmp_path, "model.json"))
    assert model is not None and not model.is_edit and model.sources is None
    assert ProbeRun.read(tmp_path / "nothing-here") is None


def test_a_field_from_a_newer_version_survives(tmp_path: Path) -> None:
    stored = json.loads((RUNS / "model.json").read_text(encoding="utf-8"))
    stored["from_a_newer_version"] = {"kept": True}
    raw = json.dumps(stored, indent=1, ensure_ascii=False)
    (tmp_path / "probe.json").write_text(raw, encoding="utf-8")
    run = ProbeRun.read(tmp_path)
    assert run is not None
    run.write(tmp_path / "again")
    assert (tmp_path / "again" / "probe.json").read_text(encoding="utf-8") == raw
