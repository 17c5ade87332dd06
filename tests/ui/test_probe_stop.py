"""The probe page's stop button in real headless Chromium: a running probe is stopped from its
page, which then shows it cancelled with what it had measured (issue 22)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.api.conftest import LiveService
from tests.ui.probe_service import KEY, probe_service, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LiveService]:
    with probe_service(tmp_path) as svc:
        svc.fake_llm.latency = 0.3  # type: ignore[attr-defined]  # keep the probe running
        yield svc


@pytest.mark.timeout(480)
def test_the_stop_button_cancels_a_running_probe(service: LiveService, page: Page) -> None:
    base = service.base_url
    with service.client(headers={"Authorization": f"Bearer {KEY}"}) as api:
        body = {"topic": "cats", "backend": "card", "depth": 2, "topics": 2, "inputs": 2}
        probe_id = api.post("/v1/probes", json={**body, "images": 1}).json()["id"]
        deadline = time.monotonic() + 300  # a guard against hanging, not a speed check
        while api.get(f"/v1/probes/{probe_id}").json()["tree"] is None:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        sign_in(page, base, then=f"/ui/probes/{probe_id}")
        expect(page.get_by_test_id("probe-budget")).to_contain_text("of 4000 images")
        page.get_by_role("button", name="Stop this probe").click()
        expect(page).to_have_url(f"{base}/ui/probes/{probe_id}")
        expect(page.get_by_test_id("probe-status")).to_contain_text("cancelled")
        expect(page.get_by_role("button", name="Stop this probe")).to_have_count(0)
        assert page.get_by_test_id("tree").count() == 1  # what it measured is still shown
        assert api.get(f"/v1/probes/{probe_id}").json()["status"] == "cancelled"
