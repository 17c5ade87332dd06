"""The typed campaign record (eval/campaigns/record.py) writes, stores and serves the same JSON
the dict record did: the bytes in tests/campaigns/data/records were captured from the code
before the record was typed (see tests/campaigns/record_cases.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from api.campaigns.serving import public_task
from eval.campaigns.exports import (
    RATING_FIELDS,
    VOTE_FIELDS,
    rating_rows,
    to_csv,
    to_jsonl,
    vote_rows,
)
from eval.campaigns.ingest import ingest
from eval.campaigns.models import CampaignCreate
from eval.campaigns.record import CampaignRecord
from eval.campaigns.report import build_report
from judge.config import JudgeSettings
from tests.campaigns.record_cases import attempts, bodies, counted_keys

PINNED = Path(__file__).parent / "data" / "records"
CASES = sorted(bodies())


def _built(cid: str) -> CampaignRecord:
    with counted_keys():
        record, _ = ingest(CampaignCreate.model_validate(bodies()[cid]), JudgeSettings())
    return record


def _rounded(x: Any) -> Any:
    """Floats to 9 significant digits (a bootstrap's last bits may differ by machine)."""
    if isinstance(x, float):
        return float(f"{x:.9g}") if math.isfinite(x) else x
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    return x


def _without_validation(raw: str) -> str:
    """The stored JSON without the generated validation items and their images' entries
    (since issue 48 those are copies and disguised spoilers, not the earlier ones)."""
    rec = json.loads(raw)
    rec["items"] = [i for i in rec["items"] if not i["id"].startswith("~val-")]
    real = {json.dumps(i) for i in rec["items"]}
    rec["image_ext"] = {k: v for k, v in rec["image_ext"].items() if any(k in i for i in real)}
    return json.dumps(rec)


@pytest.mark.parametrize("cid", CASES)
def test_a_new_campaign_is_stored_as_before(cid: str) -> None:
    """Byte for byte, but for the generated validation items (whole for a campaign
    without them)."""
    pinned = (PINNED / f"{cid}.meta.json").read_text(encoding="utf-8")
    built = _built(cid).dumps()
    assert _without_validation(built) == _without_validation(pinned)
    if bodies()[cid].get("validation") == "none":
        assert built == pinned


@pytest.mark.parametrize("cid", CASES)
def test_a_stored_record_reads_and_writes_back_byte_for_byte(cid: str) -> None:
    pinned = (PINNED / f"{cid}.meta.json").read_bytes()
    assert CampaignRecord.loads(pinned).dumps().encode() == pinned


def test_a_record_stored_before_newer_settings_keeps_its_bytes() -> None:
    """A campaign written before lease_seconds, extra_votes and the other later settings
    reads with their defaults and writes back without them."""
    old = json.loads((PINNED / "pin-pref.meta.json").read_text(encoding="utf-8"))
    later = ("extra_votes", "lease_seconds", "translate_prompts", "prompt_language",
             "demographics", "demographics_reference", "compared", "validation_every")  # fmt: skip
    for name in later:
        del old[name]
    old["from_a_newer_service"] = {"kept": True}
    raw = json.dumps(old)
    rec = CampaignRecord.loads(raw)
    assert rec.lease_seconds == 600.0 and rec.extra_votes == 0 and rec.validation_every == 4
    assert rec.dumps() == raw


@pytest.mark.parametrize("cid", CASES)
def test_what_is_served_from_a_record_is_as_before(cid: str) -> None:
    wire = json.loads((PINNED / f"{cid}.wire.json").read_text(encoding="utf-8"))
    record = CampaignRecord.loads((PINNED / f"{cid}.meta.json").read_bytes())
    items = json.loads(record.dumps())["items"]
    tasks = []
    for n, item in enumerate(record.items):
        orders = {"pairwise": [[0, 1], [1, 0]], "rating": [[0]],
                  "ranking": [list(range(len(item.outputs or [])))[::-1]]}[record.kind]  # fmt: skip
        for order in orders:
            task = {"id": f"t{n:016x}", "item": item.id, "order": order,
                    "session": {"index": 1, "size": 3, "number": n + 1}}  # fmt: skip
            shown = public_task(record, task, lambda k: f"/v1/campaign-images/{cid}/{k}")
            tasks.append(json.dumps(shown))
    assert tasks == wire["tasks"]
    atts = attempts(items, record.kind)
    if record.kind == "rating":
        rows, fields = rating_rows(record, atts, {"bot"}), RATING_FIELDS
    else:
        rows, fields = vote_rows(record, atts, {"bot"}), VOTE_FIELDS
    assert to_jsonl(rows) == wire["rows_jsonl"]
    assert to_csv(rows, fields) == wire["rows_csv"]
    profiles = {"a01": {"age_band": "18-24"}, "a02": {}} if record.demographics else None
    report = build_report(record, atts, n_boot=50, profiles=profiles)
    again = json.loads(json.dumps(report))
    pinned = json.loads(wire["report"])
    assert list(again) == list(pinned)  # the same keys in the same order
    assert _rounded(again) == _rounded(pinned)
