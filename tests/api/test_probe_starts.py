"""Probe starts and unknown prices (issue 38, item 8).

With default settings probes could be started and cancelled without limit, and the USD budget
was skipped when the price map had no price for the judge or writer model. Now a key may
start ``JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR`` probes a clock hour (cancelled ones count),
and an unknown price is counted at ``JUDGE_PROBE_USD_PER_MODEL_CALL_UNKNOWN`` (images at
``..._PER_IMAGE_UNKNOWN``), so the USD budget always applies. The fake judge model has no price.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.test_probes_api import SMALL, fakes, service_env
from tests.fakes.clock import FakeClock

__all__ = ["fakes"]

LIMITS = {
    "JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR": "2",
    "JUDGE_PROBE_MAX_RUNNING_PER_KEY": "4",
    "JUDGE_PROBE_BUDGET_USD": "2",  # SMALL plans 105 unpriced calls: $1.05 at $0.01 a call
}


@pytest.fixture(scope="module")
def clock() -> FakeClock:
    """The service's clock, ten minutes into an hour: the starts are counted per clock hour."""
    return FakeClock.at(hour_second=600)


@pytest.fixture(scope="module")
def service(module_tmp: Path, fakes, clock: FakeClock) -> Iterator[LiveService]:
    env = {**service_env(*fakes, module_tmp), **LIMITS}
    with live_service(env, module_tmp / "d", clock=clock) as svc:
        yield svc


def _start_and_cancel(client: httpx.Client, topic: str) -> None:
    r = client.post("/v1/probes", json={"topic": topic, "backend": "card", **SMALL})
    assert r.status_code == 202, r.text
    assert r.json()["plan"]["plan"]["usd"] == 1.05
    assert client.delete(f"/v1/probes/{r.json()['id']}").status_code == 200


def test_unknown_prices_count_and_starts_are_bounded_per_hour(
    service: LiveService, clock: FakeClock
) -> None:
    with service.client() as client:
        bigger = {"topic": "t", "backend": "card", **SMALL, "inputs": 4, "images": 2}
        err = assert_error(client.post("/v1/probes", json=bigger), 422, "(body)")
        assert err["code"] == "over_budget" and "$3.45" in err["message"]
        for n in range(2):  # start and cancel at once, twice: both count
            _start_and_cancel(client, f"t{n}")
        clock.advance(3000 - 1)  # the last second of the hour
        r = client.post("/v1/probes", json={"topic": "t3", "backend": "card", **SMALL})
        err = assert_error(r, 429, None)
        assert err["code"] == "too_many_probe_starts"
        assert "JUDGE_PROBE_MAX_STARTS_PER_KEY_PER_HOUR" in err["message"]
        assert r.headers["retry-after"] == "1"
        clock.advance(1)  # the next hour: a new allowance
        _start_and_cancel(client, "t4")
