"""The provider side of a batch, through litellm's files and batches API: build the JSONL
input, upload it, create the batch, poll it, download and read its output and error files.

Providers: whatever litellm's batch API serves — ``openai`` (and OpenAI-compatible servers by
``api_base``: ``hosted_vllm``, ``litellm_proxy``), ``azure``, ``vertex_ai``, ``bedrock`` (the last
two need their cloud storage configured as litellm documents).

Example::

    target = BatchTarget.of("openai/gpt-4o", settings)
    line = request_line("k1", target, messages, fmt, {"temperature": 0.0})
    file_id = await target.upload(b"...jsonl...", "judge-batch.jsonl")
    batch = await target.create(file_id, {"judge_local_id": "lb_1"})
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import litellm
from litellm.cost_calculator import batch_cost_calculator

from judge.config import JudgeSettings
from judge.errors import ConfigError
from judge.llm.retry import backoff_delay, describe, is_transient

ENDPOINT = "/v1/chat/completions"
BATCH_PROVIDERS = ("openai", "azure", "vertex_ai", "bedrock", "hosted_vllm", "litellm_proxy")
TERMINAL = ("completed", "expired", "failed", "cancelled")
#: HTTP statuses of a batch line worth sending again (everything else is the request's fault)
RETRYABLE_STATUS = {408, 409, 429}


class BatchApiError(ConfigError):
    """The provider's files or batches API refused a request (or stayed unreachable)."""


@dataclass(frozen=True)
class LineResult:
    """One line of a batch's output or error file."""

    custom_id: str
    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None
    retryable: bool = True


@dataclass(frozen=True)
class BatchTarget:
    """Where one model's batches go: the litellm provider, the model name it knows, and
    the endpoint and key of the run's settings (the key is never written to disk)."""

    model: str
    provider: str
    provider_model: str
    api_base: str | None
    api_key: str | None
    retries: int = 3
    backoff_s: float = 1.0

    @classmethod
    def of(cls, model: str, settings: JudgeSettings) -> BatchTarget:
        """The target for ``model``; a ``ValueError`` when litellm has no batch API for it."""
        try:
            provider_model, provider, _, _ = litellm.get_llm_provider(model)
        except Exception as exc:  # litellm raises its own BadRequestError for unknown models
            raise ValueError(f"cannot tell the provider of model {model!r}: {exc}") from None
        if provider not in BATCH_PROVIDERS:
            raise ValueError(
                f"--provider-batch: model {model!r} is served by {provider!r}, which has no "
                f"batch API in litellm (batch providers: {', '.join(BATCH_PROVIDERS)}); run "
                "without --provider-batch"
            )
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return cls(
            model,
            provider,
            provider_model,
            settings.api_base,
            key,
            retries=settings.max_retries,
            backoff_s=settings.backoff_base_s,
        )

    async def _call(self, what: str, call: Callable[[], Awaitable[Any]]) -> Any:
        """One batch-API request, retried on transient errors; others raise
        :class:`BatchApiError` saying what to do."""
        for attempt in range(self.retries + 1):
            try:
                return await call()
            except Exception as exc:  # provider errors arrive as many classes
                if is_transient(exc) and attempt < self.retries:
                    await asyncio.sleep(backoff_delay(attempt, base=self.backoff_s, cap=30.0))
                    continue
                where = self.api_base or self.provider
                raise BatchApiError(
                    f"provider batch API ({where}, {what}): {describe(exc)}; check that the "
                    "provider offers batches for this model and key, or run without "
                    "--provider-batch"
                ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _kw(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"custom_llm_provider": self.provider}
        if self.api_base:
            kw["api_base"] = self.api_base
        if self.api_key or self.api_base:
            kw["api_key"] = self.api_key or "no-key"
        if self.provider not in ("openai", "hosted_vllm", "litellm_proxy", "azure"):
            kw["model"] = self.model  # vertex and bedrock transform the file per model
        return kw

    def body(self, messages: list[dict], fmt: dict, params: dict[str, Any]) -> dict[str, Any]:
        """The request body of one line (the provider's own model name)."""
        body: dict[str, Any] = {"model": self.provider_model, "messages": messages}
        if fmt:
            body["response_format"] = fmt
        body.update(self._mapped(tuple(sorted(params.items()))))
        return body

    @lru_cache(maxsize=64)  # noqa: B019 - a few targets per process, each with a few params
    def _mapped(self, params: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
        """The call options as the model takes them (litellm's mapping, as a direct call
        with ``drop_params`` does: e.g. ``max_completion_tokens`` and no temperature for
        OpenAI reasoning models)."""
        given = {k: v for k, v in params if v is not None}
        try:
            mapped = litellm.get_optional_params(
                model=self.provider_model,
                custom_llm_provider=self.provider,
                drop_params=True,
                **given,
            )
        except Exception:  # a provider litellm cannot map for: send the options as given
            return given
        return {k: v for k, v in mapped.items() if k not in ("stream", "extra_body")}

    async def upload(self, data: bytes, filename: str) -> str:
        """Upload a JSONL input file; returns its file id."""
        f = await self._call(
            "upload",
            lambda: litellm.acreate_file(file=(filename, data), purpose="batch", **self._kw()),
        )
        return str(f.id)

    async def create(self, file_id: str, metadata: dict[str, str]) -> Any:
        """Create the batch (24 h window); returns litellm's batch object."""
        return await self._call(
            "create batch",
            lambda: litellm.acreate_batch(
                completion_window="24h",
                endpoint=ENDPOINT,
                input_file_id=file_id,
                metadata=metadata,
                **self._kw(),
            ),
        )

    async def find(self, metadata_id: str) -> Any | None:
        """A batch created earlier with ``metadata["judge_local_id"] == metadata_id`` (after a
        crash between creating it and journaling its id), else None."""
        try:
            page = await litellm.alist_batches(limit=100, **self._kw())
        except Exception:  # listing is a best effort: not every provider offers it
            return None
        for batch in getattr(page, "data", None) or []:
            if (getattr(batch, "metadata", None) or {}).get("judge_local_id") == metadata_id:
                return batch
        return None

    async def retrieve(self, batch_id: str) -> Any:
        """The batch's current state."""
        return await self._call(
            f"retrieve {batch_id}",
            lambda: litellm.aretrieve_batch(batch_id=batch_id, **self._kw()),
        )

    async def download(self, file_id: str) -> bytes:
        """A file's bytes (an output or error file)."""
        content = await self._call(
            f"download {file_id}", lambda: litellm.afile_content(file_id=file_id, **self._kw())
        )
        return bytes(content.content)

    def costs(self, prompt_tokens: int, completion_tokens: int) -> tuple[float, float]:
        """(batch price, list price) of one answered line; 0 for models litellm cannot price."""
        try:
            usage = litellm.Usage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            )
            batch = sum(batch_cost_calculator(usage, self.model))
            listed = sum(
                litellm.cost_per_token(
                    model=self.model,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                )
            )
        except Exception:  # models missing from litellm's price map
            return 0.0, 0.0
        return float(batch), float(listed)


def request_line(custom_id: str, body: dict[str, Any]) -> str:
    """One JSONL line of a batch input file."""
    line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
    return json.dumps(line, ensure_ascii=False)


def read_lines(data: bytes) -> list[LineResult]:
    """The results of an output or error file (OpenAI's batch output format)."""
    out = []
    for raw in data.decode("utf-8").splitlines():
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except ValueError:
            continue  # a damaged line: its request stays unanswered and is sent again
        if isinstance(row, dict) and isinstance(row.get("custom_id"), str):
            out.append(_line(row))
    return out


def _line(row: dict[str, Any]) -> LineResult:
    cid = row["custom_id"]
    resp = row.get("response") or {}
    status = resp.get("status_code")
    body = resp.get("body") or {}
    if status == 200 and not row.get("error"):
        try:
            text = body["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            return LineResult(cid, None, error="batch line has no message content")
        usage = body.get("usage") or {}
        return LineResult(
            cid,
            text,
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )
    err = row.get("error") or (body.get("error") if isinstance(body, dict) else None) or {}
    code = err.get("code") or err.get("type") or "error"
    message = f"batch line {code}" + (f" (HTTP {status})" if status else "")
    if err.get("message"):
        message += f": {err['message']}"
    retryable = status is None or status in RETRYABLE_STATUS or status >= 500
    return LineResult(cid, None, error=message[:500], retryable=retryable)
