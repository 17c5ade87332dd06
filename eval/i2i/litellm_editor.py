"""Image edits through litellm (``litellm.aimage_edit``): keys, n split into calls, seeds,
retries, decoding, costs — the T2I backends' machinery (:mod:`eval.t2i.litellm_backend`) with
the edit request in place of the generation one.

One call sends the source image, the optional mask (OpenAI's convention: the transparent
area is the one to edit) and the instruction as ``multipart/form-data`` to
``{api_base}/images/edits`` (or to the provider litellm maps the model to). litellm's own
retries stay off (it retries only when asked); each attempt is counted once.

Example::

    spec = EditorSpec(id="local", model="openai/my-editor", api_base="http://127.0.0.1:7860/v1")
    chunks = await edit_litellm(spec, src_png, "Make the car blue.", 2, mask=None, seed=1,
                                gate=sem, ctx=ctx)
"""

from __future__ import annotations

from typing import Any

import litellm

from eval.i2i.spec import EditorSpec
from eval.t2i.litellm_backend import (
    NO_SEED_PROVIDERS,
    CallContext,
    ChunkResult,
    Gate,
    call_arguments,
    call_with_retries,
    max_n,
    split_calls,
)

EDIT_ENDPOINT = "POST /v1/images/edits"


def edit_kwargs(spec: EditorSpec, provider: str, n: int, seed: int | None) -> dict[str, Any]:
    """litellm keyword arguments of one edit call (without image, mask, prompt and key).

    Example:
        >>> s = EditorSpec(id="e", model="openai/x", api_base="http://127.0.0.1:1/v1", size="64x64")
        >>> sorted(edit_kwargs(s, "openai", 2, 7))
        ['api_base', 'model', 'n', 'seed', 'size', 'timeout']
    """
    kw: dict[str, Any] = {"model": spec.model, "n": n, "timeout": spec.timeout_s}
    if spec.size:
        kw["size"] = spec.size
    if spec.api_base:
        kw["api_base"] = spec.api_base
    if seed is not None and (spec.api_base or provider not in NO_SEED_PROVIDERS):
        kw["seed"] = seed
    kw.update(spec.extra)
    return kw


def _for_edits(chunk: ChunkResult) -> ChunkResult:
    """Point a 404's advice at the edit endpoint rather than the generation one."""
    if chunk.reason:
        chunk.reason = chunk.reason.replace("POST /v1/images/generations", EDIT_ENDPOINT)
    return chunk


async def _one_edit(
    spec: EditorSpec,
    source: bytes,
    instruction: str,
    mask: bytes | None,
    n: int,
    seed: int | None,
    gate: Gate,
    ctx: CallContext,
) -> ChunkResult:
    found = call_arguments(spec, lambda provider: edit_kwargs(spec, provider, n, seed))
    if isinstance(found, ChunkResult):
        return found
    kw = found[0]
    if mask is not None:
        kw["mask"] = mask

    def request() -> Any:
        return litellm.aimage_edit(image=source, prompt=instruction, **kw)

    return _for_edits(await call_with_retries(spec, gate, ctx, request, kind="edit"))


async def edit_litellm(
    spec: EditorSpec,
    source: bytes,
    instruction: str,
    n: int,
    *,
    mask: bytes | None,
    seed: int | None,
    gate: Gate,
    ctx: CallContext,
) -> list[ChunkResult]:
    """Ask for ``n`` edits in calls of at most :func:`~eval.t2i.litellm_backend.max_n`."""
    return await split_calls(
        n,
        max_n(spec),
        seed,
        lambda count, s: _one_edit(spec, source, instruction, mask, count, s, gate, ctx),
    )
