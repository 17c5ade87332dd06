"""Shared helpers for the local-backend tests: rendered text, data URLs, an offline guard."""

from __future__ import annotations

import base64
import io
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

JUDGE_ENV = ("JUDGE_MODEL", "JUDGE_PANEL", "JUDGE_BACKEND", "JUDGE_API_BASE", "JUDGE_API_KEY")


def render_text(lines: list[str], size: tuple[int, int] = (900, 400)) -> Image.Image:
    """Black text in a large, clear font on a white background, one line per entry."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=72)
    y = 60
    for line in lines:
        draw.text((60, y), line, fill="black", font=font)
        y += 130
    return img


def data_url(img: Image.Image) -> str:
    """A PNG data URL of ``img``."""
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """No judge model configured: ``auto`` must resolve to the local backend."""
    for var in JUDGE_ENV:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fail any outbound connection or LLM call; yields the attempts that were made."""
    attempts: list[str] = []

    def refuse_connect(self: socket.socket, address: object) -> None:
        attempts.append(f"connect {address!r}")
        raise OSError("network disabled in local-backend tests")

    def refuse_create(address: object, *args: object, **kwargs: object) -> socket.socket:
        attempts.append(f"create_connection {address!r}")
        raise OSError("network disabled in local-backend tests")

    async def refuse_llm(*args: object, **kwargs: object) -> None:
        attempts.append("litellm.acompletion")
        raise AssertionError("the local backend must not call a judge model")

    import litellm

    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    monkeypatch.setattr(socket, "create_connection", refuse_create)
    monkeypatch.setattr(litellm, "acompletion", refuse_llm)
    yield attempts


@pytest.fixture
def predictor_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The local predictor with its default settings and a private cache folder (returned)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(cache))
    for var in ("JUDGE_LOCAL_MEMBERS", "JUDGE_LOCAL_WEIGHTS", "JUDGE_LOCAL_SELECTION"):
        monkeypatch.delenv(var, raising=False)
    return cache
