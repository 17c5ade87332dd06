"""Every fake provider dialect by name: ``openai``, ``anthropic``, ``gemini``, ``ollama``.

A new dialect subclasses :class:`~judge.fake_provider.base.LoopbackFake` and registers here;
``python -m judge.fake_provider --api NAME`` and :func:`spawn_fake_provider` find it by name.

Example::

    fake_class("gemini")().base_url  # after start(): http://127.0.0.1:PORT/v1beta
"""

from __future__ import annotations

from judge.fake_provider.anthropic import AnthropicFake
from judge.fake_provider.base import LoopbackFake
from judge.fake_provider.gemini import GeminiFake
from judge.fake_provider.ollama import OllamaFake
from judge.fake_provider.server import FakeProvider

FAKES: dict[str, type[LoopbackFake]] = {
    cls.api: cls for cls in (FakeProvider, AnthropicFake, GeminiFake, OllamaFake)
}
"""Fake provider classes by API name."""


def fake_class(api: str) -> type[LoopbackFake]:
    """The fake for ``api``; a ``ValueError`` names the available ones on a typo."""
    try:
        return FAKES[api]
    except KeyError:
        known = ", ".join(FAKES)
        raise ValueError(f"unknown fake provider API {api!r}; available: {known}") from None
