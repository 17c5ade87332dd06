"""Image generation through litellm: keys, n split into calls, seeds, retries, decoding.

One :func:`generate_litellm` call asks ``spec.model`` for ``n`` images. A provider that caps
images per call (``spec.max_n``, or a known cap such as dall-e-3's 1) gets several calls,
run concurrently under the backend's concurrency cap; each call is retried with backoff on
transient errors (:mod:`judge.llm.retry`), with litellm's and the OpenAI SDK's own retries
turned off so that every attempt is counted once. The seed is sent where the provider takes
one (``seed + first image index`` for each call, so split calls differ) — everywhere except
OpenAI's and Azure's hosted image APIs, which reject it.

Example::

    spec = BackendSpec(id="local", model="openai/sdxl", api_base="http://127.0.0.1:7860/v1")
    outcome = await generate_litellm(spec, "a red cube", 4, seed=1, gate=sem, ctx=ctx)
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import litellm
import openai

from eval.t2i.adaptive_gate import AdaptiveGate
from eval.t2i.decode import convert_items, item_field
from eval.t2i.generation import Status
from eval.t2i.outcomes import classify
from eval.t2i.spec import BackendSpec
from judge.config import JudgeSettings
from judge.io.pixel_budget import DecodeBusy, PixelBudget
from judge.llm.retry import backoff_delay, is_transient, say_once, transient_cause

log = logging.getLogger("judge.llm")
litellm.suppress_debug_info = True

KNOWN_MAX_N = {"dall-e-3": 1, "imagen": 4, "stability": 1, "titan-image": 5}
"""Images per call for models whose provider caps ``n`` (matched as a substring of the model)."""
DEFAULT_MAX_N = 10
Gate = AdaptiveGate | asyncio.Semaphore
"""What holds an image model's calls in flight: its adaptive limit, or a plain semaphore."""
NO_SEED_PROVIDERS = ("openai", "azure")
"""Hosted APIs that reject a ``seed`` (sent anyway when the backend has its own api_base)."""


class _NoRetryOpenAI(openai.AsyncOpenAI):
    """An OpenAI client whose retry count stays 0 (litellm sets it to 2 on every call)."""

    @property
    def max_retries(self) -> int:
        return 0

    @max_retries.setter
    def max_retries(self, value: int) -> None:
        pass


@dataclass
class CallContext:
    """What the calls of one generator share: limits, budget, OpenAI clients per loop."""

    settings: JudgeSettings
    budget: PixelBudget | None
    clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, Any]] = field(
        default_factory=weakref.WeakKeyDictionary
    )

    async def aclose(self) -> None:
        """Close the OpenAI clients of the running event loop."""
        per_loop = self.clients.pop(asyncio.get_running_loop(), {})
        for client in per_loop.values():
            await client.close()

    async def openai_client(self, api_base: str | None, api_key: str) -> _NoRetryOpenAI:
        """This loop's client for an endpoint and key (built off the loop: loading the TLS
        certificates takes a fifth of a second)."""
        per_loop = self.clients.setdefault(asyncio.get_running_loop(), {})
        key = (api_base, api_key)
        if key not in per_loop:
            client = await asyncio.to_thread(
                _NoRetryOpenAI, api_key=api_key, base_url=api_base, max_retries=0
            )
            per_loop.setdefault(key, client)
        return per_loop[key]


@dataclass
class ChunkResult:
    """The outcome of one provider call (after retries)."""

    status: Status
    reason: str | None = None
    images: list[bytes] = field(default_factory=list)
    revised_prompt: str | None = None
    calls: int = 0
    cost: float = 0.0


def max_n(spec: BackendSpec) -> int:
    """Images per provider call for this backend."""
    if spec.max_n is not None:
        return spec.max_n
    name = spec.model.lower()
    return next((cap for key, cap in KNOWN_MAX_N.items() if key in name), DEFAULT_MAX_N)


def resolve_key(spec: BackendSpec) -> tuple[str | None, str | None]:
    """``(api_key, problem)``: the key to send (None = litellm's own environment look-up)."""
    if spec.api_key_env:
        value = os.environ.get(spec.api_key_env, "")
        if not value:
            return None, (
                f"backend {spec.id}: the environment variable {spec.api_key_env} (its "
                f"api_key_env) is not set; export it with the provider's key"
            )
        return value, None
    if spec.api_base:
        return "no-key", None
    try:
        env = litellm.validate_environment(model=spec.model)
    except Exception:
        return None, None
    missing = env.get("missing_keys") or []
    if missing:
        return None, (
            f"backend {spec.id} ({spec.model}) needs {', '.join(missing)} in the environment; "
            "set it, or name the variable holding the key with api_key_env"
        )
    return None, None


def call_kwargs(spec: BackendSpec, provider: str, n: int, seed: int | None) -> dict[str, Any]:
    """litellm keyword arguments of one call (without prompt, key and client)."""
    kw: dict[str, Any] = {"model": spec.model, "n": n, "timeout": spec.timeout_s}
    kw["drop_params"] = True
    if spec.size:
        kw["size"] = spec.size
    if spec.api_base:
        kw["api_base"] = spec.api_base
    if "dall-e" in spec.model and "response_format" not in spec.extra:
        kw["response_format"] = "b64_json"  # no download when the model can inline images
    if seed is not None and (spec.api_base or provider not in NO_SEED_PROVIDERS):
        kw["seed"] = seed
    kw.update(spec.extra)
    return kw


def call_arguments(
    spec: BackendSpec, kwargs_for: Callable[[str], dict[str, Any]]
) -> tuple[dict[str, Any], str | None, str] | ChunkResult:
    """``(litellm keyword arguments with the key, api key or None, provider)`` of one of
    ``spec``'s calls (``kwargs_for(provider)`` builds the arguments), or the failure that stops
    it before any request (a missing key, a model litellm cannot place)."""
    api_key, problem = resolve_key(spec)
    if problem:
        return ChunkResult("failed", problem)
    try:
        _, provider, _, _ = litellm.get_llm_provider(model=spec.model, api_base=spec.api_base)
    except Exception as exc:
        return ChunkResult(*classify(exc, spec.id, spec.model))
    kw = kwargs_for(provider)
    if api_key is not None:
        kw["api_key"] = api_key
    return kw, api_key, provider


async def split_calls(
    n: int, cap: int, seed: int | None, call: Callable[[int, int | None], Awaitable[ChunkResult]]
) -> list[ChunkResult]:
    """``n`` images in calls of at most ``cap``: ``call(count, seed)`` for each, the seed
    advanced by the images before it; gathered in order."""
    calls = []
    for start in range(0, n, cap):
        call_seed = None if seed is None else seed + start
        calls.append(call(min(cap, n - start), call_seed))
    return list(await asyncio.gather(*calls))


async def _prepare(
    spec: BackendSpec, n: int, seed: int | None, ctx: CallContext
) -> dict[str, Any] | ChunkResult:
    """The litellm arguments of one call, or the failure that stops it before any request."""
    found = call_arguments(spec, lambda provider: call_kwargs(spec, provider, n, seed))
    if isinstance(found, ChunkResult):
        return found
    kw, api_key, provider = found
    if provider == "openai" or (spec.api_base and provider in litellm.openai_compatible_providers):
        key = api_key or os.environ.get("OPENAI_API_KEY", "no-key")
        kw["client"] = await ctx.openai_client(spec.api_base, key)
    return kw


async def _one_call(
    spec: BackendSpec,
    prompt: str,
    n: int,
    seed: int | None,
    gate: Gate,
    ctx: CallContext,
) -> ChunkResult:
    """One provider call for ``n`` images, retried on transient errors."""
    kw = await _prepare(spec, n, seed, ctx)
    if isinstance(kw, ChunkResult):
        return kw
    return await call_with_retries(
        spec, gate, ctx, lambda: litellm.aimage_generation(prompt=prompt, **kw)
    )


async def call_with_retries(
    spec: BackendSpec,
    gate: Gate,
    ctx: CallContext,
    request: Callable[[], Awaitable[Any]],
    *,
    kind: str = "t2i",
) -> ChunkResult:
    """``request()`` (one litellm image call) under ``gate``, retried with backoff on
    transient errors, its images decoded and vetted; every attempt is counted in ``calls``.
    ``kind`` keys the once-per-process retry notice (``"t2i"``, ``"edit"``)."""
    result = ChunkResult("failed")
    s = ctx.settings
    for attempt in range(spec.max_retries + 1):
        if attempt:
            delay = backoff_delay(attempt - 1, base=s.backoff_base_s, cap=s.backoff_max_s)
            await asyncio.sleep(delay)
        result.calls += 1
        try:
            async with gate:
                resp = await asyncio.wait_for(request(), timeout=spec.timeout_s + 5)
        except Exception as exc:
            if not is_transient(exc):
                result.status, result.reason = classify(exc, spec.id, spec.model)
                return result
            cause = transient_cause(exc, spec.timeout_s)
            if attempt < spec.max_retries:
                message = f"backend {spec.id}: {cause}; retrying with backoff"
                say_once((f"{kind}-retry", spec.id, cause), message)
                continue
            result.reason = (
                f"backend {spec.id} ({spec.model}): {cause}; gave up after {attempt + 1} attempts"
            )
            return result
        return await _finish(result, resp, spec, ctx)
    raise AssertionError("unreachable")  # pragma: no cover - the loop always returns


async def _finish(
    result: ChunkResult, resp: Any, spec: BackendSpec, ctx: CallContext
) -> ChunkResult:
    hidden = getattr(resp, "_hidden_params", None) or {}
    result.cost = float(hidden.get("response_cost") or 0.0)
    items = list(getattr(resp, "data", None) or [])
    if not items:
        result.status, result.reason = "empty", f"backend {spec.id}: the answer had no images"
        return result
    revised = item_field(items[0], "revised_prompt")
    result.revised_prompt = revised if isinstance(revised, str) else None
    try:
        images, problems = await asyncio.to_thread(
            convert_items,
            items,
            settings=ctx.settings,
            budget=ctx.budget,
            allow_private=spec.allow_private_urls,
        )
    except DecodeBusy as exc:
        result.status, result.reason = "failed", f"backend {spec.id}: {exc}"
        return result
    result.images = images
    if images:
        result.status = "ok"
        result.reason = "; ".join(problems) or None
    else:
        result.status = "failed"
        result.reason = f"backend {spec.id}: no usable image: " + "; ".join(problems)
    return result


async def generate_litellm(
    spec: BackendSpec,
    prompt: str,
    n: int,
    *,
    seed: int | None,
    gate: Gate,
    ctx: CallContext,
) -> list[ChunkResult]:
    """Ask for ``n`` images in calls of at most :func:`max_n`; one result per call."""
    return await split_calls(
        n, max_n(spec), seed, lambda count, s: _one_call(spec, prompt, count, s, gate, ctx)
    )
