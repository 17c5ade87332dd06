"""``POST /v1/compare`` and comparisons in batches, against a live service and the fake
provider (a judge that prefers the red image wherever it is shown)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from judge.modes.compare.result import ComparisonResult
from tests.api.conftest import (
    LiveService,
    assert_error,
    batch_results,
    fake_judge_env,
    live_service,
)
from tests.conftest import png_data_url, submission
from tests.fakes.provider import FakeProvider
from tests.modes.test_compare import is_pairwise, prefers_red
from tests.studies.edit_helpers import prefer_darker

RED, BLUE, GREEN = png_data_url("red"), png_data_url("blue"), png_data_url("green")


def comparison(prompt: str = "a red kite", **over: object) -> dict:
    data = {
        "prompt": prompt,
        "a": {"image": BLUE, "model": "sd3"},
        "b": {"image": RED, "model": "flux"},
        "criteria": ["preference", "alignment"],
    }
    data.update(over)
    return data


@pytest.fixture(scope="module")
def service(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    provider_session.reset()
    with live_service(fake_judge_env(provider_session), module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService, provider_session: FakeProvider) -> Iterator[httpx.Client]:
    provider_session.reset()
    provider_session.on(is_pairwise, prefers_red)
    with service.client() as c:
        yield c


def test_compare_takes_two_edits_of_one_source(
    client: httpx.Client, provider_session: FakeProvider
) -> None:
    prefer_darker(provider_session)
    edits = {"mode": "edit_compare", "instruction": "Make it darker.",
             "source_image": png_data_url("gray"), "a": {"image": png_data_url("white"),
             "model": "x"}, "b": {"image": png_data_url("black"), "model": "y"}}  # fmt: skip
    r = client.post("/v1/compare", json=edits)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["mode"] == "edit_compare" and set(got["criteria"]) == {
        "instruction_following", "image_consistency", "visual_quality"}  # fmt: skip
    assert all(c["winner"] == "b" and c["position_consistent"] for c in got["criteria"].values())
    wrapped = {"mode": "edit_compare", "options": {"allow_tie": True},
               "edit_comparison": {k: v for k, v in edits.items() if k != "mode"}}  # fmt: skip
    assert client.post("/v1/compare", json=wrapped).json()["criteria"] == got["criteria"]
    assert_error(client.post("/v1/compare", json={**edits, "criteria": ["preference"]}), 400,
                 "criteria[0]")  # fmt: skip


def test_compare_bare_and_wrapped(client: httpx.Client) -> None:
    r = client.post("/v1/compare", json=comparison(id="c1"))
    assert r.status_code == 200, r.text
    body = r.json()
    ComparisonResult.model_validate(body)
    assert body["comparison_id"] == "c1" and body["models"] == {"a": "sd3", "b": "flux"}
    assert {c: v["winner"] for c, v in body["criteria"].items()} == {
        "preference": "b",
        "alignment": "b",
    }
    wrapped = {"comparison": comparison("a red kite, wrapped"), "options": {"allow_tie": True}}
    r = client.post("/v1/compare", json=wrapped)
    assert r.status_code == 200, r.text
    assert r.json()["provenance"]["options"]["compare_allow_tie"] is True


def test_mode_field_routes_a_comparison_through_score(client: httpx.Client) -> None:
    r = client.post("/v1/score", json={"mode": "compare", **comparison("via score")})
    assert r.status_code == 200, r.text
    assert r.json()["mode"] == "compare"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (comparison(b={"model": "flux"}), "b.image"),
        (comparison(b={"image": BLUE}), "b.image"),
        (comparison(a={"image": "data:image/png;base64,bm90IGFuIGltYWdl"}), "a.image"),
        (comparison(criteria=["beauty"]), "criteria[0]"),
        ({"comparison": comparison(), "options": {"allow_tie": "maybe"}}, "options.allow_tie"),
        ({"comparison": comparison(), "options": {"retrieval": "none"}}, "options.retrieval"),
        ({"comparison": comparison(criteria=["x"])}, "comparison.criteria[0]"),
        ({"mode": "contrast", **comparison()}, "mode"),
        ([1, 2], "(comparison)"),
    ],
)
def test_bad_comparisons_are_4xx_naming_the_field(
    client: httpx.Client, body: object, field: str
) -> None:
    assert_error(client.post("/v1/compare", json=body), 400, field)


def test_a_batch_mixes_submissions_and_comparisons(client: httpx.Client) -> None:
    items = [
        submission("OE", n_checks=1, prompt="a quiet pond, batch"),
        {"mode": "compare", **comparison("a red kite, batch")},
        {"mode": "compare", "comparison": comparison("wrapped in batch", a={"image": GREEN})},
    ]
    lines = batch_results(client, {"items": items, "options": {"cache": False}})
    assert [x["index"] for x in lines] == [0, 1, 2]
    assert "submission_id" in lines[0]["result"]
    assert lines[1]["result"]["criteria"]["preference"]["winner"] == "b"
    assert lines[2]["result"]["criteria"]["preference"]["winner"] == "b"


def test_a_bad_comparison_rejects_the_batch(client: httpx.Client) -> None:
    items = [submission("OE", n_checks=1), {"mode": "compare", **comparison(criteria=["nope"])}]
    assert_error(client.post("/v1/batches", json=items), 400, "items[1].criteria[0]")
    opts = {"items": [{"mode": "compare", **comparison()}], "options": {"allow_tie": 3}}
    assert_error(client.post("/v1/batches", json=opts), 400, "options.allow_tie")


def edit_body(**over: object) -> dict:
    body = {
        "mode": "edit",
        "id": "ed-api",
        "instruction": "Add a small star in the corner.",
        "source_image": png_data_url("white", (64, 64)),
        "images": [png_data_url("yellow", (64, 64))],
        "editor": "m",
    }
    body.update(over)
    return body


def test_edit_through_score_and_in_a_batch(client: httpx.Client) -> None:
    r = client.post("/v1/score", json=edit_body())
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == "edit" and set(body["criteria"]) == {
        "instruction_following",
        "image_consistency",
        "visual_quality",
    }
    # "add a star" asks for no colour change, so the shift applies and is measured: white to
    # yellow is far beyond the ~2 ΔE a viewer notices (which instructions make it not
    # applicable is tests/metrics/test_applicability.py's subject)
    shift = body["metrics"]["color_shift"]
    assert shift["applicable"] is True and shift["value"] > 20, shift
    wrapped = {"mode": "edit", "edit": edit_body(id="ed-2"), "options": {"samples": 2}}
    r = client.post("/v1/score", json=wrapped)
    assert r.status_code == 200, r.text
    assert r.json()["provenance"]["options"]["edit_samples"] == 2
    assert_error(client.post("/v1/score", json=edit_body(images=[])), 400, "images")
    long = edit_body(instruction="x" * 5000)
    assert_error(client.post("/v1/score", json=long), 400, "instruction")
    bad = {"mode": "edit", "edit": edit_body(), "options": {"samples": 99}}
    assert_error(client.post("/v1/score", json=bad), 400, "options.samples")
