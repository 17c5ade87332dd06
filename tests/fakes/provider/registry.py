"""Every fake provider dialect by name: ``openai``, ``anthropic``, ``gemini``, ``ollama``.

A new dialect subclasses :class:`~tests.fakes.provider.base.LoopbackFake` and registers here;
``python -m tests.fakes.provider --api NAME`` and :func:`spawn_fake_provider` find it by name.

Example::

    fake_class("gemini")().base_url  # after start(): http://127.0.0.1:PORT/v1beta
"""

from __future__ import annotations

from tests.fakes.provider.anthropic import AnthropicFake
from tests.fakes.provider.base import LoopbackFake
from tests.fakes.provider.gemini import GeminiFake
from tests.fakes.provider.ollama import OllamaFake
from tests.fakes.provider.server import FakeProvider

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
