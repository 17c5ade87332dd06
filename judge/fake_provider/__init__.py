"""A fake OpenAI-compatible provider for offline tests and benchmarks (real HTTP on loopback).

In-process (tests)::

    from judge.fake_provider import FakeProvider

    with FakeProvider(latency=0.01) as provider:
        provider.on("rate the image", {"score": 4})      # scripted reply by substring
        provider.fail_next(["429", "truncated"])          # next two calls fail
        await litellm.acompletion(model="openai/fake", api_base=provider.base_url,
                                  api_key="x", messages=[...])

Separate process (benchmarks)::

    from judge.fake_provider import spawn_fake_provider, stop_process

    proc, base_url = spawn_fake_provider(latency=0.5)
    ...
    stop_process(proc)

Or from a shell: ``python -m judge.fake_provider --latency 0.5`` (prints ``READY <base_url>``).
"""

from judge.fake_provider.faults import FAULT_KINDS, FaultInjector
from judge.fake_provider.process import FakeProviderStartError, spawn_fake_provider, stop_process
from judge.fake_provider.responder import Responder, ScriptRule, default_answer
from judge.fake_provider.server import FakeProvider

__all__ = [
    "FAULT_KINDS",
    "FakeProvider",
    "FakeProviderStartError",
    "FaultInjector",
    "Responder",
    "ScriptRule",
    "default_answer",
    "spawn_fake_provider",
    "stop_process",
]
