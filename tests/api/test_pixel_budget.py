"""The decoded-pixel ledger of a request and the process budget, on real decodes; the
settings that switch them (and the local backend opt-in) as the service reads them."""

from __future__ import annotations

import base64
import io
import threading
import time

import pytest
from PIL import Image

from api.core.settings import ServiceSettings
from api.judging.models import ScoreOptions
from api.judging.policy import check_overrides
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import decode_image
from judge.io.pixel_budget import DecodeBusy, PixelBudget, pixel_ledger


def png(side: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGBA", (side, side), "red").save(buf, "PNG")
    return buf.getvalue()


def test_a_request_over_its_pixel_sum_is_refused_naming_the_image() -> None:
    raw = png(100)  # 10 000 pixels
    with pixel_ledger(25_000):
        decode_image(raw, field="images[0]")
        decode_image(raw, field="images[1]")
        with pytest.raises(InputError) as info:
            decode_image(raw, field="images[2]")
    assert info.value.field == "images[2]"
    for _ in range(3):  # no ledger (the CLI): the per-image limit only
        decode_image(raw, field="images[0]", settings=JudgeSettings())


def test_requests_wait_for_the_process_budget_and_give_up_with_decode_busy() -> None:
    budget = PixelBudget(15_000)
    raw = png(100)
    holding, done = threading.Event(), threading.Event()

    def holder() -> None:
        with pixel_ledger(20_000, budget, wait_s=5):
            decode_image(raw, field="images[0]")
            holding.set()
            done.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    holding.wait(10)
    assert budget.free == 5_000
    with pixel_ledger(20_000, budget, wait_s=0.2), pytest.raises(DecodeBusy):
        decode_image(raw, field="images[0]")
    started = time.monotonic()
    threading.Timer(0.3, done.set).start()
    with pixel_ledger(20_000, budget, wait_s=5):  # waits for the holder to finish
        decode_image(raw, field="images[0]")
        assert time.monotonic() - started >= 0.25
    t.join()
    assert budget.free == 15_000


def test_the_budget_settings_are_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGE_SERVE_MAX_REQUEST_PIXELS", "1000")
    monkeypatch.setenv("JUDGE_SERVE_DECODE_BUDGET_PIXELS", "5000")
    monkeypatch.setenv("JUDGE_SERVE_DECODE_WAIT_S", "2.5")
    s = ServiceSettings()
    assert (s.max_request_pixels, s.decode_budget_pixels, s.decode_wait_s) == (1000, 5000, 2.5)


def test_the_local_backend_is_an_operator_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a service with a judge model (tests/api/test_local_backend_rule.py has the rest)."""
    local, engine = ScoreOptions(backend="local").overrides(), JudgeSettings(model="openai/m")
    with pytest.raises(InputError) as info:
        check_overrides(local, ServiceSettings(), engine)
    assert info.value.field == "options.backend"
    monkeypatch.setenv("JUDGE_SERVE_ALLOW_LOCAL_BACKEND", "true")
    check_overrides(local, ServiceSettings(), engine)  # allowed: no error


def test_data_urls_are_charged_like_any_image() -> None:
    url = "data:image/png;base64," + base64.b64encode(png(50)).decode()
    from judge.io.images import load_pil

    with pixel_ledger(2_000), pytest.raises(InputError, match="pixels in total"):
        load_pil(url, field="images[0]")
