"""Fake model providers for offline tests and benchmarks (real HTTP on loopback).

The OpenAI-compatible :class:`FakeProvider` and fakes of three other wire formats —
:class:`AnthropicFake` (Messages API), :class:`GeminiFake` (generateContent) and
:class:`OllamaFake` (``/api/chat``, ``/api/generate``) — share the scripting, fault injection and
records (:mod:`tests.fakes.provider.base`); each checks that requests really are in its format and
decodes the images it receives.

In-process (tests)::

    from tests.fakes.provider import FakeProvider

    with FakeProvider(latency=0.01) as provider:
        provider.on("rate the image", {"score": 4})      # scripted reply by substring
        provider.fail_next(["429", "truncated"])          # next two calls fail
        provider.gate.group(10)                           # hold calls until 10 wait together
        await litellm.acompletion(model="openai/fake", api_base=provider.base_url,
                                  api_key="x", messages=[...])

Separate process (benchmarks)::

    from tests.fakes.provider import spawn_fake_provider, stop_process

    proc, base_url = spawn_fake_provider(latency=0.5)
    ...
    stop_process(proc)

    proc, base_url = spawn_fake_provider(api="anthropic")  # any name of FAKES

Or from a shell: ``python -m tests.fakes.provider --latency 0.5`` (prints ``READY <base_url>``;
``--api anthropic|gemini|ollama`` for another wire format).
"""

from tests.fakes.provider.anthropic import AnthropicFake
from tests.fakes.provider.base import LoopbackFake, WireCall
from tests.fakes.provider.faults import FAULT_KINDS, FaultInjector
from tests.fakes.provider.gemini import GeminiFake
from tests.fakes.provider.ollama import OllamaFake
from tests.fakes.provider.process import FakeProviderStartError, spawn_fake_provider, stop_process
from tests.fakes.provider.registry import FAKES, fake_class
from tests.fakes.provider.responder import Responder, ScriptRule, default_answer
from tests.fakes.provider.server import FakeProvider

__all__ = [
    "FAKES",
    "FAULT_KINDS",
    "AnthropicFake",
    "FakeProvider",
    "FakeProviderStartError",
    "FaultInjector",
    "GeminiFake",
    "LoopbackFake",
    "OllamaFake",
    "Responder",
    "ScriptRule",
    "WireCall",
    "default_answer",
    "fake_class",
    "spawn_fake_provider",
    "stop_process",
]
