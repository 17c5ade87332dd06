"""Warm the image-generation path off the event loop (as :mod:`judge.llm.warmup` does for chat).

The first ``litellm.aimage_generation`` of a process imports litellm's and the OpenAI SDK's
image modules; done on the event loop that stalls every call in flight for seconds. Here one
dry call per provider runs on the shared warm-up thread, against a closed loopback port (nothing
leaves the machine, no key is sent), and :func:`ready` lets the first real call wait for it
without blocking the loop.

Example::

    start(["openai/dall-e-3"])          # returns at once
    await ready(["openai/dall-e-3"])    # before the first call; instant once warm
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib

import litellm

from judge.llm import warmup

IMPORTS = ("openai.resources.images", "openai.types.images_response")


def _warm(model: str, provider: str) -> None:
    for name in IMPORTS:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    if provider not in warmup.DRY_CALL_PROVIDERS:
        return
    from eval.t2i.litellm_backend import _NoRetryOpenAI

    base = f"http://127.0.0.1:{warmup._closed_port()}/v1"

    async def dry() -> None:
        client = _NoRetryOpenAI(api_key="warm-up", base_url=base, max_retries=0)
        with contextlib.suppress(Exception):  # refused, as intended: the modules are loaded
            await litellm.aimage_generation(
                model=model, prompt="warm-up", n=1, api_base=base, api_key="warm-up",
                client=client, timeout=5, drop_params=True,
            )  # fmt: skip
        await client.close()

    asyncio.run(dry())


_IMAGES = warmup.OncePerProvider(_warm, "image warm-up")
start = _IMAGES.start
ready = _IMAGES.ready
