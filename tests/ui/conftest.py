"""Browser tests: the real service on loopback (real redis-server) and Debian's chromium
driven by Playwright for Python — never a downloaded browser (`make test` installs the
``chromium`` package when /usr/bin/chromium is missing).

Fixtures: ``ui_service`` (a live service per module, admin key ``admin``), ``admin``
(an httpx client with that key) and ``page`` (a fresh headless Chromium profile per test;
console errors and CSP violations are collected in ``page.console_errors``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, sync_playwright

from tests.api.conftest import LiveService, live_service

CHROMIUM = Path(os.environ.get("UI_TEST_CHROMIUM", "/usr/bin/chromium"))
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ADMIN_KEY = "admin"


@pytest.fixture(scope="module")
def ui_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    data = tmp_path_factory.mktemp("ui-service")
    env = {"JUDGE_SERVE_ADMIN_KEYS": ADMIN_KEY, "JUDGE_SERVE_API_KEYS": "reader"}
    with live_service(env, data) as svc:
        yield svc


@pytest.fixture
def admin(ui_service: LiveService) -> Iterator[httpx.Client]:
    with ui_service.client(headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as c:
        yield c


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    """A page in a new headless Chromium with an empty profile (its own user-data-dir)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: browser tests need Debian's chromium "
            "(`make chromium`, i.e. apt-get install -y chromium)"
        )
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
        )
        try:
            pg = context.pages[0] if context.pages else context.new_page()
            pg.set_default_timeout(15_000)
            errors: list[str] = []
            pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.console_errors = errors  # type: ignore[attr-defined]
            yield pg
        finally:
            context.close()
