"""Probing fixtures: the project's fake provider on loopback scripted as LLM + judge
(:mod:`tests.fakes.probing_script`), and a fake renderer standing for the model under test."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from PIL import Image

from eval.kit.journal import Journal
from eval.probing.context import ProbeContext
from eval.probing.labelling import Labeller
from eval.probing.params import ProbeParams
from eval.probing.storage import MemoryImages
from eval.probing.writer import ProbeWriter
from judge.config import JudgeSettings
from judge.engine import Judge
from judge.llm.usage import UsageMeter
from tests.fakes.probing_script import ProbeScript
from tests.fakes.provider import FakeProvider


@dataclass
class Rendered:
    status: str
    reason: str | None
    images: list[bytes]


@dataclass
class FakeRenderer:
    """A fake model under test: deterministic PNGs per (prompt, index); can refuse prompts."""

    refuse: str | None = None
    calls: list[str] = field(default_factory=list)

    async def __call__(self, prompt: str, n: int) -> Rendered:
        self.calls.append(prompt)
        if self.refuse and self.refuse in prompt:
            return Rendered("refused", "content policy (fake)", [])
        out = []
        for k in range(n):
            seed = hashlib.sha256(f"{prompt}|{k}".encode()).digest()
            buf = io.BytesIO()
            Image.new("RGB", (8, 8), tuple(seed[:3])).save(buf, "PNG")
            out.append(buf.getvalue())
        return Rendered("ok", None, out)


@pytest.fixture(scope="session")
def probe_fake() -> Iterator[FakeProvider]:
    with FakeProvider(latency=0.0) as fp:
        yield fp


@pytest.fixture
def script(probe_fake: FakeProvider) -> Iterator[ProbeScript]:
    probe_fake.reset()
    s = ProbeScript()
    s.install(probe_fake.responder)
    yield s
    probe_fake.reset()


@pytest.fixture
def make_ctx(probe_fake: FakeProvider, script: ProbeScript) -> Callable[..., ProbeContext]:
    """A probe context wired to the scripted fake (safety off: fewer judge calls)."""

    def factory(journal=None, renderer=None, overrides=None, **params) -> ProbeContext:
        settings = JudgeSettings(
            model="openai/fake-judge",
            api_base=probe_fake.base_url,
            api_key="k",
            timeout_s=60,  # a hang guard, not a speed check
            backoff_base_s=0.001,
            backoff_max_s=0.01,
            safety=False,
        )
        judge = Judge(settings)
        p = ProbeParams(topic=params.pop("topic", "animals"), backend="fake", **params)
        ctx = ProbeContext(
            p,
            ProbeWriter(judge.gateway.client("openai/fake-judge", UsageMeter())),
            renderer or FakeRenderer(),
            Labeller(judge, pass_share=p.pass_share),
            journal if journal is not None else Journal(),
            MemoryImages(),
        )
        if overrides is not None:
            ctx.overrides = overrides
        return ctx

    return factory


@pytest.fixture
def env(probe_fake: FakeProvider, script: ProbeScript, monkeypatch: pytest.MonkeyPatch) -> str:
    """The probe CLI's environment: fast retries, no safety gate, no service backends; the
    scripted fake's URL."""
    monkeypatch.setenv("JUDGE_BACKOFF_BASE_S", "0.001")
    monkeypatch.setenv("JUDGE_BACKOFF_MAX_S", "0.01")
    monkeypatch.setenv("JUDGE_SAFETY", "false")
    monkeypatch.delenv("JUDGE_BACKENDS", raising=False)
    return probe_fake.base_url
