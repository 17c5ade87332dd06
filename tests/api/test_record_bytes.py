"""The typed probe and study records (api/probes/record.py, api/studies/record.py) store and
serve the same bytes the dict records did: the cases in tests/api/data/records were captured
from the code before the records were typed (see tests/api/record_cases.py), and a live
service on loopback with its real Redis runs them again here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from api.probes.record import ProbeRecord
from api.studies.record import StudyRecord
from tests.api.record_cases import PROBES, run_cases, study_bodies

PINNED = Path(__file__).parent / "data" / "records"


def _pinned(name: str) -> dict[str, Any]:
    return json.loads((PINNED / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now(module_tmp: Path) -> dict[str, dict[str, Any]]:
    """Every case as the code under test stores and serves it."""
    return run_cases(module_tmp / "data")


@pytest.mark.parametrize("name", sorted(study_bodies()))
def test_a_study_is_stored_and_served_as_before(now: dict, name: str) -> None:
    pinned = _pinned(name)
    assert now[name]["meta"] == pinned["meta"]  # the Redis value, byte for byte
    for part in ("created", "answers", "info", "export", "history"):  # the wire
        assert now[name][part] == pinned[part], part


@pytest.mark.parametrize("name", sorted(study_bodies()))
def test_a_stored_study_reads_and_writes_back_byte_for_byte(name: str) -> None:
    raw = _pinned(name)["meta"]
    record = StudyRecord.loads(raw)
    assert record.dumps() == raw
    assert record.task_ids == [t["id"] for t in json.loads(raw)["tasks"]]


def test_a_study_stored_before_kind_and_instructions_keeps_its_bytes() -> None:
    """An early study (no ``kind``, no ``instructions``) reads with the defaults and writes
    back without them; a field from a newer service survives."""
    old = json.loads(_pinned("pin-prompt")["meta"])
    del old["kind"], old["instructions"]
    old["from_a_newer_service"] = {"kept": True}
    old["tasks"][0]["a_newer_task_field"] = 1
    raw = json.dumps(old)
    record = StudyRecord.loads(raw)
    assert (record.kind, record.instructions) == ("prompt", "")
    assert record.dumps() == raw


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_probe_is_stored_and_served_as_before(now: dict, name: str) -> None:
    pinned = _pinned(name)
    assert now[name]["id"] == pinned["id"]
    for part in ("meta", "meta_after"):  # the Redis hash: every field's bytes
        assert now[name][part] == pinned[part], part
    for part in ("running", "cancelled", "after"):  # the wire
        assert now[name][part] == pinned[part], part


def test_the_probe_listing_is_served_as_before(now: dict) -> None:
    assert now["pin-probe-listing"] == _pinned("pin-probe-listing")


@pytest.mark.parametrize("name", sorted(PROBES))
@pytest.mark.parametrize("part", ["meta", "meta_after"])
def test_a_stored_probe_reads_and_writes_back_byte_for_byte(name: str, part: str) -> None:
    fields = _pinned(name)[part]
    record = ProbeRecord.from_hash({k.encode(): v.encode() for k, v in fields.items()})
    assert record.hash_fields() == fields
    assert record.params == json.loads(fields["params"])
    assert record.running == (fields["status"] == "running")


def test_a_probe_field_from_a_newer_service_survives() -> None:
    fields = {**_pinned("pin-probe-plain")["meta"], "priority": "high"}
    assert ProbeRecord.from_hash(fields).hash_fields() == fields
