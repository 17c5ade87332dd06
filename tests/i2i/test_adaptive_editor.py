"""Editors (and T2I backends: the same gate) under a provider's rate limit: the fake
provider's ``/v1/images/edits`` refuses calls beyond ``RATE`` a second with HTTP 429 and a
``retry-after``; the editor's calls-in-flight limit comes down from its ``concurrency``
instead of hammering, waits the named time, and every edit is made in the end. Checks are on
counts, never on wall-clock bounds."""

from __future__ import annotations

import asyncio
import io

from PIL import Image

from eval.i2i import EditorSpec, ImageEditor
from eval.t2i import BackendSpec, ImageGenerator
from judge.config import JudgeSettings
from tests.fakes.provider import FakeProvider

RATE = 10.0  # calls a second the provider takes
LATENCY = 0.1  # seconds a call: it sustains about RATE * LATENCY = 1 call in flight
CEILING = 16  # the editor's concurrency: far more than the provider takes
EDITS = 24
FAST = JudgeSettings(backoff_base_s=0.01, backoff_max_s=0.1)


def png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 30, 30)).save(buf, "PNG")
    return buf.getvalue()


async def _edit_all(editor: ImageEditor, spec: EditorSpec) -> tuple[list, float]:
    gens = await asyncio.gather(
        *(editor.edit(spec, png(), f"Invert {i}.", 1) for i in range(EDITS))
    )
    return gens, editor.limit_of(spec)


def test_an_editor_backs_off_on_429_with_retry_after_and_every_edit_is_made() -> None:
    with FakeProvider(latency=LATENCY, rate_limit=RATE) as fake:
        spec = EditorSpec(id="fake", model="openai/fake-editor", api_base=fake.base_url,
                          concurrency=CEILING, max_retries=20, timeout_s=10)  # fmt: skip
        gens, limit = asyncio.run(_edit_all(ImageEditor(FAST), spec))
        refused, answered = fake.rate_limit.refused, fake.calls
    assert [g.status for g in gens] == ["ok"] * EDITS  # refused calls were retried
    assert answered == EDITS and refused > 0  # the provider's limit was reached
    assert limit < CEILING / 2  # the limit came down from the ceiling and stayed down
    # every attempt of a refused call is counted; a fixed cap of 16 kept ~16 calls hammering
    assert sum(g.usage["calls"] for g in gens) == EDITS + refused


def test_t2i_backends_share_the_adaptive_limit() -> None:
    with FakeProvider(latency=LATENCY, rate_limit=RATE) as fake:
        spec = BackendSpec(id="fake", model="openai/fake-image", api_base=fake.base_url,
                           concurrency=CEILING, max_retries=20, timeout_s=10)  # fmt: skip

        async def run() -> tuple[list, float]:
            gen = ImageGenerator(FAST)
            got = await asyncio.gather(
                *(gen.generate(spec, f"a cube {i}", 1) for i in range(EDITS))
            )
            return got, gen.limit_of(spec)

        gens, limit = asyncio.run(run())
        refused = fake.rate_limit.refused
    assert [g.status for g in gens] == ["ok"] * EDITS and refused > 0
    assert limit < CEILING / 2
