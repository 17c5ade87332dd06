"""Optional self-reported demographics: the profile route (every field optional, values
checked), the report's section comparing the crowd with the admin's reference, and a
campaign that does not ask refusing profiles."""

from __future__ import annotations

import httpx
import pytest

from eval.campaigns.demographics import section
from tests.api.conftest import assert_error
from tests.campaigns.helpers import invite, pairwise_body

REFERENCE = {"age_band": {"18-24": 0.25, "25-34": 0.25, "35-44": 0.5},
             "country": {"DE": 0.5, "IN": 0.5}}  # fmt: skip


def test_profiles_and_the_report_section(admin: httpx.Client, anon: httpx.Client) -> None:
    body = pairwise_body("demo-1", demographics=True, demographics_reference=REFERENCE)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    people = invite(admin, "demo-1", 4)
    said = [{"age_band": "25-34", "country": "DE", "gender": "woman"},
            {"age_band": "25-34", "country": "IN"}, {"age_band": "65+"}, {}]  # fmt: skip
    for p, profile in zip(people, said, strict=True):
        got = anon.post(f"/v1/label/{p['token']}/profile", json=profile)
        assert got.status_code == 204, got.text
    token = people[0]["token"]
    for bad, field in (({"age_band": "30"}, "age_band"), ({"country": "Germany"}, "country"),
                       ({"gender": "x"}, "gender"), ({"email": "a@b"}, "email")):  # fmt: skip
        assert_error(anon.post(f"/v1/label/{token}/profile", json=bad), 400, field)
    report = admin.get("/v1/campaigns/demo-1/report", params={"bootstrap": 10}).json()
    demo = report["demographics"]
    assert demo["age_band"]["counts"] == {"25-34": 2, "65+": 1}
    assert demo["age_band"]["not_said"] == 1 and demo["gender"]["answered"] == 1
    # crowd 25-34: 2/3, 65+: 1/3 vs reference 18-24 .25, 25-34 .25, 35-44 .5
    assert demo["age_band"]["distance"] == pytest.approx(0.5 * (0.25 + (2 / 3 - 0.25) + 0.5
                                                                + 1 / 3), abs=1e-3)  # fmt: skip
    assert demo["country"]["distance"] == 0.0 and "reference" not in demo["gender"]


def test_a_campaign_that_does_not_ask_refuses_profiles(
    admin: httpx.Client, anon: httpx.Client
) -> None:
    assert admin.post("/v1/campaigns", json=pairwise_body("demo-2")).status_code == 201
    token = invite(admin, "demo-2", 1)[0]["token"]
    assert_error(anon.post(f"/v1/label/{token}/profile", json={}), 400, "(body)")
    report = admin.get("/v1/campaigns/demo-2/report", params={"bootstrap": 10}).json()
    assert "demographics" not in report
    bad = pairwise_body("demo-3", demographics_reference={"gender": {"woman": 0.9}})
    err = assert_error(admin.post("/v1/campaigns", json=bad), 400, "demographics_reference.gender")
    assert "sum to 0.900" in err["message"]


def test_section_without_answers() -> None:
    demo = section([{}, {}], REFERENCE)
    assert demo["age_band"] == {"answered": 0, "not_said": 2, "counts": {}, "shares": {},
                                "reference": REFERENCE["age_band"], "distance": None}  # fmt: skip
