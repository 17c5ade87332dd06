"""``ImageEditor``: one per process; n edits of a source image from any configured editor.

Dispatch: ``builtin/…`` editors run locally (:mod:`eval.i2i.builtin`, off the event loop),
everything else goes through litellm (:mod:`eval.i2i.litellm_editor`). Each editor id has its
own cap on calls in flight (``concurrency``, per event loop), as T2I backends do. The answer is
always a :class:`~eval.t2i.Generation` (status ``ok``/``refused``/``blocked``/``empty``/
``failed``, PNG images, usage with calls, cost and latency); provider trouble never raises.

Example:
    >>> import asyncio, io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (64, 64), "white").save(buf, "PNG")
    >>> spec = EditorSpec(id="demo", model="builtin/editor")
    >>> g = asyncio.run(ImageEditor().edit(spec, buf.getvalue(), "Make it red.", 2, seed=1))
    >>> g.status, len(g.images), g.usage["calls"]
    ('ok', 2, 0)
"""

from __future__ import annotations

import asyncio
import time

from eval.i2i.builtin import EDITORS
from eval.i2i.litellm_editor import edit_litellm
from eval.i2i.spec import EditorSpec
from eval.t2i import warmup
from eval.t2i.generation import Generation, usage
from eval.t2i.generator import MAX_IMAGES, GatedImageCaller, combine
from judge.errors import InputError
from judge.io.images import decode_image
from registry import PluginError


class ImageEditor(GatedImageCaller):
    """Edits images with :class:`EditorSpec` editors under caps, retries and usage.

    ``settings`` gives the decode limits and the retry backoff (as for
    :class:`~eval.t2i.ImageGenerator`); ``pixel_budget`` bounds the pixels all concurrent
    edits may hold decoded at once.
    """

    def _check(self, source: bytes, mask: bytes | None) -> str | None:
        """Why the inputs cannot be sent (an image the judge would not accept), else None."""
        try:
            decode_image(source, field="source_image", settings=self.settings)
            if mask is not None:
                decode_image(mask, field="mask", settings=self.settings)
        except InputError as exc:
            return f"{exc.field}: {exc.message}"
        return None

    async def edit(
        self,
        spec: EditorSpec,
        source: bytes,
        instruction: str,
        n: int,
        *,
        mask: bytes | None = None,
        seed: int | None = None,
    ) -> Generation:
        """``n`` edits of ``source`` (image bytes) following ``instruction``; ``mask`` (image
        bytes, transparent where the edit goes) is optional; ``seed`` overrides ``spec.seed``."""
        start = time.perf_counter()
        if not isinstance(n, int) or not 1 <= n <= MAX_IMAGES:
            return Generation.failed(f"n must be an integer from 1 to {MAX_IMAGES}, got {n!r}")
        if not isinstance(instruction, str) or not instruction.strip():
            return Generation.failed("the instruction is empty; there is nothing to edit")
        problem = await asyncio.to_thread(self._check, source, mask)
        if problem:
            return Generation.failed(problem)
        seed = spec.seed if seed is None else seed
        if spec.is_builtin:
            try:
                run = EDITORS.get(spec.model)
            except PluginError as exc:
                return Generation.failed(str(exc))
            async with self._gate(spec):
                images = await asyncio.to_thread(
                    lambda: [run(source, instruction, mask, seed or 0, k) for k in range(n)]
                )
            latency = time.perf_counter() - start
            return Generation(status="ok", images=images, usage=usage(0, 0.0, latency))
        await warmup.ready((spec.model,))
        chunks = await edit_litellm(
            spec, source, instruction, n, mask=mask, seed=seed, gate=self._gate(spec), ctx=self._ctx
        )
        return combine(chunks, n, time.perf_counter() - start)
