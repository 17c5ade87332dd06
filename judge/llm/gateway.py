"""The LLM gateway: litellm calls with structured output, retries, re-asks, an adaptive
concurrency limit per route (:mod:`judge.llm.adaptive`), a response cache and usage accounting.

Example:
    >>> from judge.config import JudgeSettings
    >>> gw = LLMGateway(JudgeSettings(model="openai/gpt-4o"))
    >>> client = gw.client("openai/gpt-4o", UsageMeter())
    >>> client.model
    'openai/gpt-4o'
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from judge.config import JudgeSettings
from judge.llm import litellm_settings, mock, warmup
from judge.llm.adaptive import LimitBoard
from judge.llm.cache import InMemoryCache, ResponseCache, cache_key
from judge.llm.direct import DirectRoute, DirectRoutes
from judge.llm.parsing import ReplyError, parse_reply
from judge.llm.ratelimit_headers import headers_of
from judge.llm.reply import Reply, from_litellm
from judge.llm.retry import (
    backoff_delay,
    describe,
    fatal_cause,
    fatal_message,
    is_transient,
    route_label,
    say_once,
    throttle_cause,
    transient_cause,
)
from judge.llm.usage import UsageMeter
from skills.rendering import data_block
from skills.types import ModelCallError

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger("judge.llm")
# litellm is imported on first need, with the judge's switches (quiet errors; prompts and
# images out of its logging): the warm-up does it on its thread before the first call


def reask_message(err: ReplyError) -> str:
    """Ask again; the validation problems (they may quote the reply) stay in a data block."""
    return (
        "Your reply could not be used; the problems found are listed in the data block "
        f"below.\n{data_block('VALIDATION PROBLEMS', str(err))}\nReply again with only a JSON "
        "object that matches the requested schema."
    )


@lru_cache(maxsize=512)
def response_format(schema: type[BaseModel]) -> dict:
    """The OpenAI-style ``json_schema`` response format for a pydantic model (built once
    per schema class; callers must not mutate it)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
    }


class Deferrer(Protocol):
    """What provider-batch mode supplies (see :mod:`judge.llm.batch.deferral`)."""

    async def take(
        self, model: str, messages: list[dict], fmt: dict, params: dict[str, Any], meter: UsageMeter
    ) -> tuple[str | None, str]: ...  # pragma: no cover - protocol

    def answered_direct(
        self, key: str, text: str, usage: tuple[int, int], cost: float
    ) -> None: ...  # pragma: no cover - protocol


class LLMGateway:
    """Shared by every request of a process: one cache, one adaptive limit per route."""

    def __init__(
        self,
        settings: JudgeSettings,
        cache: ResponseCache | None = None,
        deferrer: Deferrer | None = None,
    ):
        if cache is not None and not callable(getattr(cache, "get", None)):
            raise TypeError(
                f"cache must be a ResponseCache (async get/set), not {type(cache).__name__}; "
                "to turn caching off use the setting cache=False"
            )
        self.settings = settings
        self.cache: ResponseCache | None = None
        if settings.cache:
            self.cache = cache if cache is not None else InMemoryCache()
        #: calls in flight per model and endpoint, following the provider up to the
        #: configured ``llm_concurrency`` (the ceiling; None: up to 1024)
        self.limits = LimitBoard(settings.llm_concurrency)
        #: provider-batch mode (:class:`judge.llm.batch.ProviderBatch`): calls are recorded for
        #: a batch instead of sent, and answered from it on a later pass; fixed at construction
        self.deferrer = deferrer
        #: calls to an OpenAI-compatible endpoint sent as litellm would, without its per-call
        #: CPU (:mod:`judge.llm.direct`; ``llm_transport="litellm"`` turns it off)
        self.direct = DirectRoutes()

    def client(
        self, model: str, meter: UsageMeter, settings: JudgeSettings | None = None
    ) -> BoundClient:
        """A :class:`skills.types.ModelClient` for one model, accounting into ``meter``.

        ``settings`` carries the request's call options (endpoint, key, timeouts); the
        gateway's own settings are the default.
        """
        return BoundClient(self, model, meter, settings or self.settings)

    @staticmethod
    def _params(s: JudgeSettings, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        params = {"temperature": s.temperature, "max_tokens": s.max_tokens}
        return {**params, **extra} if extra else params

    async def _send(
        self,
        model: str,
        messages: list[dict],
        fmt: dict,
        meter: UsageMeter,
        s: JudgeSettings,
        extra: dict[str, Any] | None = None,
    ) -> Reply:
        """One provider round trip (or, in provider-batch mode, its stored batch answer)."""
        if self.deferrer is None:
            return await self._call(model, messages, fmt, meter, s, extra)
        text, key = await self.deferrer.take(model, messages, fmt, self._params(s, extra), meter)
        if text is not None:
            return Reply(text, 0, 0, 0.0)
        before = (meter.prompt_tokens, meter.completion_tokens, meter.cost_usd)
        # a failed line, sent directly
        reply = await self._call(model, messages, fmt, meter, s, extra)
        usage = (meter.prompt_tokens - before[0], meter.completion_tokens - before[1])
        self.deferrer.answered_direct(key, reply.text, usage, meter.cost_usd - before[2])
        return reply

    async def _call(
        self,
        model: str,
        messages: list[dict],
        fmt: dict,
        meter: UsageMeter,
        s: JudgeSettings,
        extra: dict[str, Any] | None = None,
    ) -> Reply:
        """One provider round trip with retries on transient errors. ``extra`` call
        parameters (a sample's temperature and seed, ``logprobs``) join the settings' own."""
        params = self._params(s, extra)
        kwargs: dict[str, Any] = dict(params, timeout=s.timeout_s, max_retries=0)
        target = model
        if mock.is_mock(model):  # answered in process: no server, no key (judge.llm.mock)
            kwargs.update(mock.litellm_kwargs(messages, fmt, mock.sample_of(params)))
            target = kwargs.pop("model")
        elif s.api_base:
            kwargs["api_base"] = s.api_base
            kwargs["api_key"] = s.api_key.get_secret_value() if s.api_key else "no-key"
        elif s.api_key:
            kwargs["api_key"] = s.api_key.get_secret_value()
        await warmup.ready((model,))  # provider imports happen off the event loop
        # None: litellm's (log-probabilities are read from litellm's reply only)
        direct = (
            None if "logprobs" in kwargs else await self.direct.route(model, kwargs, messages, s)
        )
        last: BaseException | None = None
        for attempt in range(s.max_retries + 1):
            if attempt:
                meter.retries += 1
                await asyncio.sleep(
                    backoff_delay(attempt - 1, base=s.backoff_base_s, cap=s.backoff_max_s)
                )
            limit = self.limits.get(route_label(model, s.api_base))
            ticket = await limit.acquire()
            try:
                async with asyncio.timeout(s.timeout_s + 5):  # no task per call, as wait_for made
                    reply = await self._round_trip(direct, target, model, messages, fmt, kwargs, s)
            except Exception as exc:  # provider errors arrive as many classes
                limit.release(ticket, throttle=throttle_cause(exc), headers=headers_of(exc))
                last = exc
                if not is_transient(exc):
                    meter.failed_calls += 1
                    raise self._fatal(exc, model, s) from exc
                cause = transient_cause(exc, s.timeout_s)
                say_once(
                    ("retry", model, cause),
                    f"judge model {model}: {cause}; retrying with backoff "
                    f"(up to {s.max_retries} retries per call)",
                )
                log.debug("transient error from %s (attempt %d): %s", model, attempt, exc)
                continue
            except BaseException:  # cancelled: the slot goes back, nothing learnt
                limit.release(ticket)
                raise
            limit.release(ticket, ok=True, headers=reply.headers)
            meter.record_call(reply.prompt_tokens, reply.completion_tokens, reply.cost)
            return reply
        meter.failed_calls += 1
        raise ModelCallError(
            f"gave up after {s.max_retries + 1} attempts: {describe(last) if last else '?'}"
        )

    @staticmethod
    async def _round_trip(
        direct: DirectRoute | None,
        target: str,
        model: str,
        messages: list[dict],
        fmt: dict,
        kwargs: dict[str, Any],
        s: JudgeSettings,
    ) -> Reply:
        """One attempt: on the direct route when the call has one, else through litellm."""
        if direct is not None:
            return await direct.send(messages, fmt, s.timeout_s)
        resp = await litellm_settings.load().acompletion(
            model=target, messages=messages, response_format=fmt, drop_params=True, **kwargs
        )
        return from_litellm(model, resp)

    @staticmethod
    def _fatal(exc: Exception, model: str, s: JudgeSettings) -> ModelCallError:
        """The error for a call that is not retried; said once per cause on the log."""
        cause = fatal_cause(exc)
        if cause is None:
            say_once(("fatal", model, type(exc).__name__), f"judge model {model}: {describe(exc)}")
            return ModelCallError(describe(exc))
        message = fatal_message(cause, model, s.api_base)
        say_once(("fatal", model, cause), message)
        return ModelCallError(f"{message} [{type(exc).__name__}]")

    async def structured(
        self,
        model: str,
        messages: list[dict],
        schema: type[T],
        *,
        tag: str,
        meter: UsageMeter,
        settings: JudgeSettings | None = None,
        extra: dict[str, Any] | None = None,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> T:
        """Ask ``model`` for an answer matching ``schema``; re-ask on unparsable output.

        ``extra`` call parameters join the settings' (and the cache key); ``on_reply`` sees
        the reply whose answer is returned (its log-probabilities among others). A call that
        asks for ``logprobs`` is never answered from the cache, which keeps answers only."""
        s = settings or self.settings
        fmt = response_format(schema)
        use_cache = self.cache is not None and s.cache and not (extra and "logprobs" in extra)
        params = self._params(s, extra)
        key = cache_key(model, messages, fmt, params, tag) if use_cache else None
        # in provider-batch mode the journal is the cache: every pass replays the item's calls
        # from it, so the final pass's usage holds all of them at the batch price
        if key is not None and self.cache is not None and self.deferrer is None:
            hit = await self.cache.get(key)
            if hit is not None:
                try:
                    answer = parse_reply(hit, schema)
                except ReplyError:
                    pass  # a stale or foreign entry: ask again and overwrite it
                else:
                    meter.cache_hits += 1
                    return answer
        convo = list(messages)
        for reask in range(s.max_reasks + 1):
            reply = await self._send(model, convo, fmt, meter, s, extra)
            text = reply.text
            try:
                answer = parse_reply(text, schema)
            except ReplyError as err:
                if reask == s.max_reasks:
                    meter.failed_calls += 1
                    raise ModelCallError(
                        f"no valid answer after {reask + 1} replies: {err}"
                    ) from None
                meter.reasks += 1
                convo = [
                    *messages,
                    {"role": "assistant", "content": text[:4000]},
                    {"role": "user", "content": reask_message(err)},
                ]
                continue
            if key is not None and self.cache is not None:
                await self.cache.set(key, answer.model_dump_json())
            if on_reply is not None:
                on_reply(reply)
            return answer
        raise AssertionError("unreachable")  # pragma: no cover


class BoundClient:
    """A gateway bound to one model and one request's usage meter (and, for confidence
    estimates, extra call parameters and a listener of replies)."""

    def __init__(
        self,
        gateway: LLMGateway,
        model: str,
        meter: UsageMeter,
        settings: JudgeSettings,
        extra: dict[str, Any] | None = None,
        on_reply: Callable[[Reply], None] | None = None,
    ):
        self.gateway = gateway
        self.model = model
        self.meter = meter
        self.settings = settings
        self.extra = extra
        self.on_reply = on_reply

    def with_call_options(
        self,
        extra: dict[str, Any] | None = None,
        on_reply: Callable[[Reply], None] | None = None,
    ) -> BoundClient:
        """The same client with extra call parameters and a reply listener."""
        return BoundClient(self.gateway, self.model, self.meter, self.settings, extra, on_reply)

    async def structured(self, messages: list[dict], schema: type[T], *, tag: str) -> T:
        """See :meth:`LLMGateway.structured`."""
        return await self.gateway.structured(
            self.model,
            messages,
            schema,
            tag=tag,
            meter=self.meter,
            settings=self.settings,
            extra=self.extra,
            on_reply=self.on_reply,
        )
