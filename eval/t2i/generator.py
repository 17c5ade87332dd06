"""``ImageGenerator``: one per process; n images for a prompt from any configured backend.

Dispatch: ``builtin/…`` models are drawn locally (:mod:`eval.t2i.builtin`, off the
event loop), everything else goes through litellm (:mod:`eval.t2i.litellm_backend`).
Each backend id has its own concurrency cap (``BackendSpec.concurrency`` provider calls in
flight at once, per event loop). The answer is always a :class:`Generation`; provider trouble
never raises.

Example:
    >>> import asyncio
    >>> spec = BackendSpec(id="demo", model="builtin/renderer", size="64x64")
    >>> g = asyncio.run(ImageGenerator().generate(spec, "a red cube", 2, seed=7))
    >>> g.status, len(g.images), g.usage["calls"]
    ('ok', 2, 0)
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Iterable

from eval.t2i import warmup
from eval.t2i.adaptive_gate import AdaptiveGate
from eval.t2i.builtin import RENDERERS, parse_size
from eval.t2i.generation import Generation, usage
from eval.t2i.litellm_backend import CallContext, ChunkResult, generate_litellm
from eval.t2i.spec import BackendSpec
from judge.config import JudgeSettings
from judge.io.pixel_budget import PixelBudget
from registry import PluginError

MAX_IMAGES = 64
"""Most images one :meth:`ImageGenerator.generate` call may ask for."""
_NO_IMAGE_ORDER = ("refused", "blocked", "failed", "empty")


class GatedImageCaller:
    """What every image caller shares: settings, the pixel budget, the HTTP clients and one
    adaptive limit per spec id on calls in flight (per event loop:
    :mod:`eval.t2i.adaptive_gate`, at most the spec's ``concurrency``, lower while the
    provider throttles). :class:`ImageGenerator` and the edit workflow's ``ImageEditor``
    build on it.

    ``settings`` gives the decode limits (``image_max_bytes``, ``image_max_pixels``) and the
    retry backoff (``backoff_base_s``, ``backoff_max_s``); ``pixel_budget`` bounds the pixels
    all concurrent calls may hold decoded at once (default: 8 images at the limit).
    """

    def __init__(
        self, settings: JudgeSettings | None = None, *, pixel_budget: PixelBudget | None = None
    ) -> None:
        self.settings = settings or JudgeSettings()
        budget = pixel_budget or PixelBudget(self.settings.image_max_pixels * 8)
        self._ctx = CallContext(self.settings, budget)
        self._gates: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[str, int], AdaptiveGate]
        ] = weakref.WeakKeyDictionary()

    def warm(self, specs: Iterable[BackendSpec]) -> None:
        """Start importing the providers' image code in the background (never blocks)."""
        warmup.start([s.model for s in specs if not s.is_builtin])

    async def aclose(self) -> None:
        """Close the HTTP clients this event loop opened (optional; e.g. at shutdown)."""
        await self._ctx.aclose()

    def _gate(self, spec: BackendSpec) -> AdaptiveGate:
        per_loop = self._gates.setdefault(asyncio.get_running_loop(), {})
        key = (spec.id, spec.concurrency)
        if key not in per_loop:
            per_loop[key] = AdaptiveGate(spec.id, spec.concurrency)
        return per_loop[key]

    def limit_of(self, spec: BackendSpec) -> float:
        """The current calls-in-flight limit of ``spec`` on this event loop (its
        ``concurrency`` until the provider has throttled it)."""
        return self._gate(spec).limit.limit


class ImageGenerator(GatedImageCaller):
    """Generates images for :class:`BackendSpec` backends with caps, retries and usage
    (``settings`` and ``pixel_budget`` as for :class:`GatedImageCaller`)."""

    async def generate(
        self, spec: BackendSpec, prompt: str, n: int, *, seed: int | None = None
    ) -> Generation:
        """``n`` images for ``prompt`` from ``spec`` (``seed`` overrides ``spec.seed``)."""
        start = time.perf_counter()
        if not isinstance(n, int) or not 1 <= n <= MAX_IMAGES:
            return Generation.failed(f"n must be an integer from 1 to {MAX_IMAGES}, got {n!r}")
        if not isinstance(prompt, str) or not prompt.strip():
            return Generation.failed("the prompt is empty; there is nothing to generate")
        seed = spec.seed if seed is None else seed
        if spec.is_builtin:
            return await self._builtin(spec, prompt, n, seed or 0, start)
        await warmup.ready((spec.model,))  # provider imports happen off the event loop
        chunks = await generate_litellm(
            spec, prompt, n, seed=seed, gate=self._gate(spec), ctx=self._ctx
        )
        return combine(chunks, n, time.perf_counter() - start)

    async def _builtin(
        self, spec: BackendSpec, prompt: str, n: int, seed: int, start: float
    ) -> Generation:
        try:
            render = RENDERERS.get(spec.model)
        except PluginError as exc:
            return Generation.failed(str(exc))
        size = parse_size(spec.size)
        async with self._gate(spec):
            images = await asyncio.to_thread(
                lambda: [render(prompt, seed, k, size) for k in range(n)]
            )
        return Generation(status="ok", images=images, usage=usage(0, 0.0, _since(start)))


def _since(start: float) -> float:
    return time.perf_counter() - start


def combine(chunks: list[ChunkResult], n: int, latency_s: float) -> Generation:
    """One :class:`Generation` from the calls that served a request."""
    calls = sum(c.calls for c in chunks)
    cost = sum(c.cost for c in chunks)
    images = [img for c in chunks for img in c.images][:n]
    revised = next((c.revised_prompt for c in chunks if c.revised_prompt), None)
    use = usage(calls, cost, latency_s)
    if images:
        notes = [c.reason for c in chunks if c.reason]
        if len(images) < n:
            notes.insert(0, f"{len(images)} of {n} images")
        reason = "; ".join(notes) or None
        return Generation(
            status="ok", reason=reason, images=images, revised_prompt=revised, usage=use
        )
    worst = min(chunks, key=lambda c: _rank(c.status))
    status = worst.status if worst.status in _NO_IMAGE_ORDER else "failed"
    reason = worst.reason or status
    return Generation(status=status, reason=reason, revised_prompt=revised, usage=use)


def _rank(status: str) -> int:
    """Which status speaks for a request without images: a refusal first, emptiness last."""
    return _NO_IMAGE_ORDER.index(status) if status in _NO_IMAGE_ORDER else len(_NO_IMAGE_ORDER)
