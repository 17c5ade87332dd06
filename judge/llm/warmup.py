"""Warm the model-call path in a background thread, so no call pays for it on the event loop.

litellm and the SDKs it drives import most of their provider code on the first call of a
process (the OpenAI SDK's resource and type modules alone take ~0.5–1 s). Done on the event
loop, that import stalls every call already in flight. :func:`start` runs one throw-away call
per provider in a background thread instead, on loopback only, so nothing leaves the machine
and no key is sent: an OpenAI-wire provider makes a whole round trip against a canned reply
(:mod:`judge.llm.warm_stub`), so the response side (the SDK's response models, litellm's
pricing and logging) is warm too; other providers call a closed port. :func:`submit` runs
other one-time preparation (the engine compiles its graph there). The gateway awaits
:func:`ready` before its first call of a provider, so imports never run on the event loop.

Example::

    start(["openai/gpt-4o"])            # returns at once
    await ready(["openai/gpt-4o"])      # before the first call; instant once warm
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib
import logging
import socket
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from judge.llm import litellm_settings
from judge.llm.warm_stub import serve_canned_completion

log = logging.getLogger("judge.llm")

#: providers whose calls honour ``api_base``: the dry call can go to a closed loopback port
DRY_CALL_PROVIDERS = frozenset(
    {"openai", "hosted_vllm", "openai_like", "ollama", "ollama_chat", "anthropic", "gemini",
     "lm_studio", "llamafile", "vllm", "custom_openai"}
)  # fmt: skip
#: providers that speak OpenAI's chat-completions wire: warmed by a whole round trip
ROUND_TRIP_PROVIDERS = frozenset(
    {"openai", "hosted_vllm", "openai_like", "lm_studio", "llamafile", "custom_openai"}
)
#: imports every call path needs, whatever the provider
COMMON_IMPORTS = (
    "openai.resources",
    "openai.types.chat",
    "langchain_core.tracers.langchain",
    "judge.llm.direct.replay",
    "judge.llm.direct.transport",
)
_SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "Warm",
        "schema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
            "additionalProperties": False,
        },
    },
}
#: a 1x1 PNG: the warm-up request carries an image part like the judge's calls
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4"
    "//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"
)
_MESSAGES = [
    {"role": "system", "content": "warm-up"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "warm-up"},
            {"type": "image_url", "image_url": {"url": PIXEL}},
        ],
    },
]

_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-warmup")


@lru_cache(maxsize=256)
def provider_of(model: str) -> str:
    """litellm's provider name for a model string (``"?"`` when it cannot tell)."""
    try:
        return litellm_settings.load().get_llm_provider(model)[1] or "?"
    except Exception:  # an unknown provider fails later, on the real call, with advice
        return "?"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _common() -> None:
    for name in COMMON_IMPORTS:
        with contextlib.suppress(ImportError):  # optional pieces of other versions
            importlib.import_module(name)


def _warm(model: str, provider: str) -> None:
    """Import what a call of ``provider`` needs; a dry call when it stays on loopback.

    An OpenAI-wire provider gets a whole round trip against a canned loopback reply
    (:mod:`judge.llm.warm_stub`); the others a call to a closed port (refused once the
    request is built, so their request-side code is loaded)."""
    _common()
    if provider not in DRY_CALL_PROVIDERS:
        return

    async def call(base: str) -> None:
        with contextlib.suppress(Exception):  # a refused dry call is the expected outcome
            await litellm_settings.load().acompletion(
                model=model,
                messages=_MESSAGES,
                response_format=_SCHEMA,
                api_base=base,
                api_key="warm-up",
                max_retries=0,
                timeout=5,
                drop_params=True,
            )

    async def dry() -> None:
        if provider in ROUND_TRIP_PROVIDERS:
            async with serve_canned_completion() as base:
                await call(base)
            return
        suffix = "" if "ollama" in provider else "/v1"
        await call(f"http://127.0.0.1:{_closed_port()}{suffix}")

    asyncio.run(dry())


class OncePerProvider:
    """Runs ``warm(model, provider)`` once per provider and process on the warm-up thread, and
    lets callers wait for it without blocking the loop; errors are logged, never raised
    (warming is an optimisation). The chat path and the image path each keep one.

    Example::

        images = OncePerProvider(warm_images, "image warm-up")
        images.start(["openai/dall-e-3"]); await images.ready(["openai/dall-e-3"])
    """

    def __init__(self, warm: Callable[[str, str], None], label: str):
        self._warm = warm
        self._label = label
        self._lock = threading.Lock()
        self._futures: dict[str, concurrent.futures.Future[None]] = {}  # by model
        self._providers: set[str] = set()  # warmed (or being warmed) on the warm-up thread
        self._ready: set[str] = set()  # models known warm: the callers' fast path

    def _run(self, model: str) -> None:
        """On the warm-up thread (one worker: runs one at a time): litellm is imported here,
        then each provider is warmed once."""
        try:
            provider = provider_of(model)
            if provider in self._providers:
                return
            self._providers.add(provider)
            self._warm(model, provider)
        except Exception as exc:  # warming is an optimisation, never a failure
            log.debug("%s of %s failed: %s", self._label, model, exc)

    def start(self, models: Iterable[str]) -> list[concurrent.futures.Future[None]]:
        """Begin warming each model's provider (once per provider); never blocks, imports
        nothing on the caller's thread."""
        futures = []
        with self._lock:
            for model in models:
                fut = self._futures.get(model)
                if fut is None:
                    fut = self._futures[model] = _POOL.submit(self._run, model)
                futures.append(fut)
        return futures

    async def ready(self, models: Iterable[str]) -> None:
        """Wait (without blocking the loop) until the providers of ``models`` are warm."""
        models = list(models)
        if all(m in self._ready for m in models):
            return
        await wait(self.start(models))
        self._ready.update(models)


def submit(fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
    """Run other one-time preparation on the warm-up thread (after the imports queued)."""
    return _POOL.submit(fn)


async def wait(futures: Iterable[concurrent.futures.Future[Any]]) -> None:
    """Await background futures without blocking the loop; their errors are ignored."""
    pending = [f for f in futures if not f.done()]
    if pending:
        await asyncio.gather(*(asyncio.wrap_future(f) for f in pending), return_exceptions=True)


_CHAT = OncePerProvider(_warm, "warm-up")
start = _CHAT.start
ready = _CHAT.ready
