"""Probe starts and unknown prices (issue 38, item 8).

With default settings probes could be started and cancelled without limit, and the USD budget
was skipped when the price map had no price for the judge or writer model. Now a key may
start ``JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR`` probes a clock hour (cancelled ones count),
and an unknown price is counted at ``JUDGE_PROBE_USD_PER_MODEL_CALL_UNKNOWN`` (images at
``..._PER_IMAGE_UNKNOWN``), so the USD budget always applies. The fake judge model has no price.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.test_probes_api import SMALL, fakes, service_env

__all__ = ["fakes"]

LIMITS = {
    "JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR": "2",
    "JUDGE_PROBE_MAX_RUNNING_PER_KEY": "4",
    "JUDGE_PROBE_BUDGET_USD": "2",  # SMALL plans 105 unpriced calls: $1.05 at $0.01 a call
}


@pytest.fixture(scope="module")
def service(module_tmp: Path, fakes) -> Iterator[LiveService]:
    with live_service({**service_env(*fakes, module_tmp), **LIMITS}, module_tmp / "d") as svc:
        yield svc


def _not_near_an_hour_boundary() -> None:
    if time.time() % 3600 > 3600 - 30:
        time.sleep(3600 - time.time() % 3600 + 0.5)


def test_unknown_prices_count_and_starts_are_bounded_per_hour(service: LiveService) -> None:
    _not_near_an_hour_boundary()
    with service.client() as client:
        bigger = {"topic": "t", "backend": "card", **SMALL, "inputs": 4, "images": 2}
        err = assert_error(client.post("/v1/probes", json=bigger), 422, "(body)")
        assert err["code"] == "over_budget" and "$3.45" in err["message"]
        for n in range(2):  # start and cancel at once, twice: both count
            r = client.post("/v1/probes", json={"topic": f"t{n}", "backend": "card", **SMALL})
            assert r.status_code == 202, r.text
            assert r.json()["plan"]["plan"]["usd"] == 1.05
            assert client.delete(f"/v1/probes/{r.json()['id']}").status_code == 200
        r = client.post("/v1/probes", json={"topic": "t3", "backend": "card", **SMALL})
        err = assert_error(r, 429, None)
        assert err["code"] == "too_many_probe_starts"
        assert "JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR" in err["message"]
        assert 0 < int(r.headers["retry-after"]) <= 3600
