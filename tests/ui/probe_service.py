"""A live service for the probe and results pages: keys, the scripted fake LLM/judge of
:mod:`tests.fakes.probing_script`, server-configured T2I backends and a study runs directory."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
from playwright.sync_api import Page, expect

from tests.api.conftest import LiveService, live_service
from tests.fakes.probing_script import ProbeScript
from tests.fakes.provider import FakeProvider

KEY = "reader"
OTHER_KEY = "someone-else"


@contextmanager
def probe_service(tmp: Path, runs: Path | None = None) -> Iterator[LiveService]:
    """The service with ``card`` (built-in renderer) and ``refuser`` (refuses every prompt)
    configured as models under test;
    ``svc.fake_llm`` is the fake LLM/judge (its ``latency`` can be raised)."""
    backends = tmp / "backends.toml"
    with FakeProvider() as llm, FakeProvider() as images:
        ProbeScript().install(llm.responder)
        images.set_fault_rate(1.0, ["refusal"])  # "refuser" refuses every prompt
        backends.write_text(
            '[[backends]]\nid = "card"\nmodel = "builtin/renderer"\n\n'
            f'[[backends]]\nid = "refuser"\nmodel = "openai/fake-image"\n'
            f'api_base = "{images.base_url}"\napi_key_env = "PROBE_UI_IMAGE_KEY"\nmax_retries = 0\n'
        )
        env = {
            "JUDGE_MODEL": "openai/fake-judge",
            "JUDGE_API_BASE": llm.base_url,
            "JUDGE_API_KEY": "test-key",
            "JUDGE_BACKOFF_BASE_S": "0.001",
            "JUDGE_TIMEOUT_S": "60",  # a hang guard, not a speed check
            "JUDGE_SAFETY": "false",
            "JUDGE_BACKENDS": str(backends),
            "JUDGE_SERVE_API_KEYS": f"{KEY},{OTHER_KEY}",
            "JUDGE_SERVE_ADMIN_KEYS": "admin",
            "PROBE_UI_IMAGE_KEY": "k",
            "JUDGE_SERVE_INLINE_WORKERS": "1",  # probes run as jobs: here on the inline worker
        }
        if runs is not None:
            env["JUDGE_SERVE_STUDY_RUNS"] = str(runs)
        # the backend's key variable is read when an image is generated, not only at start-up
        os.environ["PROBE_UI_IMAGE_KEY"] = "k"
        try:
            with live_service(env, tmp / "data") as svc:
                svc.fake_llm = llm  # type: ignore[attr-defined]  # tests may slow it down
                yield svc
        finally:
            os.environ.pop("PROBE_UI_IMAGE_KEY", None)


def wait_done(client: httpx.Client, probe_id: str, timeout: float = 120) -> dict:
    """Poll ``GET /v1/probes/{id}`` until the probe is no longer running."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/v1/probes/{probe_id}").json()
        if body["status"] != "running" or time.monotonic() > deadline:
            return body
        time.sleep(0.3)


def sign_in(page: Page, base: str, key: str = KEY, then: str = "/ui/probes/") -> None:
    """Give the browser a key through the sign-in form (by keyboard)."""
    page.goto(f"{base}{then}")
    expect(page).to_have_url(f"{base}/ui/key?next={quote(then)}")
    page.get_by_label("API key").fill(key)
    page.get_by_label("API key").press("Enter")
    expect(page).to_have_url(f"{base}{then}")


def tab_to(page: Page, selector: str, limit: int = 120) -> None:
    """Press Tab until the element matching ``selector`` has the focus (keyboard only)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} never got the focus after {limit} Tabs")
