"""The one way a workflow gets a judgment: a :class:`JudgeClient`.

Three implementations behind one interface — ``await client.score(submission, base_dir,
options)`` returns the Result JSON (DESIGN.md §7) or raises :class:`JudgeCallError` with the
reason:

- :class:`LocalJudge` — the engine in this process (one gateway and cache for the run);
- :class:`LocalJudge` with ``batch=ProviderBatch(...)`` — the same, its model calls sent through
  the provider's batch API; an item whose calls wait for a batch raises
  :class:`~judge.llm.batch.deferral.ItemWaiting` and is judged again on a later pass;
- :class:`ServiceJudge` — ``POST {url}/v1/score`` of a running service, local images inlined as
  data URLs, ``JUDGE_SERVICE_KEY`` as bearer key, retries with backoff on 429/502/503/504.

Meta-evaluation, studies and probing all call it; :func:`make_client` picks one.

Example::

    client = make_client(settings)                                # in-process
    client = make_client(settings, url="http://127.0.0.1:8000")   # the service
    result = await client.score(submission, base_dir=folder, options={"retrieval": "none"})
    await client.aclose()
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from pathlib import Path
from typing import Any, Protocol

import httpx

from judge.config import JudgeSettings
from judge.errors import JudgeError
from judge.llm.batch.deferral import ProviderBatch
from judge.modes.score.options import ScoreOptions

RETRY_STATUSES = (429, 502, 503, 504)


class JudgeCallError(RuntimeError):
    """A judgment that could not be made; the message is the reason recorded."""


class JudgeClient(Protocol):
    """Turns a submission (and per-call options) into a Result dict."""

    async def score(
        self,
        submission: dict[str, Any],
        base_dir: Path | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]: ...  # pragma: no cover

    async def aclose(self) -> None: ...  # pragma: no cover


def make_client(
    settings: JudgeSettings | None = None,
    *,
    url: str | None = None,
    options: dict[str, Any] | None = None,
    batch: ProviderBatch | None = None,
) -> JudgeClient:
    """The service at ``url`` when given, else the engine in this process (through
    ``batch`` when given). ``options`` are defaults every call sends."""
    if url:
        if batch is not None:
            raise ValueError("provider batches apply to the in-process judge; drop the URL")
        return ServiceJudge(url, options=options)
    return LocalJudge(settings, options=options, batch=batch)


class LocalJudge:
    """:class:`judge.engine.Judge` in this process."""

    def __init__(
        self,
        settings: JudgeSettings | None = None,
        *,
        options: dict[str, Any] | None = None,
        batch: ProviderBatch | None = None,
        judge: Any = None,
    ):
        from judge.engine import Judge  # the engine's imports are paid only when used

        self.batch = batch
        self.judge = judge or Judge(settings, deferrer=batch)
        self.options = dict(options or {})

    async def score(
        self,
        submission: dict[str, Any],
        base_dir: Path | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        extra = {**self.options, **(options or {})}

        async def call() -> Any:
            return await self.judge.ascore(submission, base_dir=base_dir, **extra)

        try:
            result = await (self.batch.settle(call) if self.batch is not None else call())
        except JudgeError as exc:
            raise JudgeCallError(str(exc)) from None
        return result.model_dump(mode="json", exclude_none=True)

    async def aclose(self) -> None:
        """Nothing to release: the engine lives as long as the process."""


def data_url(path: Path) -> str:
    """A local image file as a data URL (the service never reads local paths)."""
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode()


def inline(ref: str | None, base_dir: Path | None) -> str | None:
    """``ref`` unchanged when it is a URL, else the local file it names as a data URL."""
    if not ref or ref.startswith(("data:", "https://", "http://")):
        return ref
    path = Path(ref)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    try:
        return data_url(path)
    except OSError as exc:
        raise JudgeCallError(f"cannot read image {path} ({exc.strerror})") from None


class ServiceJudge:
    """``POST {url}/v1/score`` with local images inlined; only the options a service client
    may set (:class:`~judge.modes.score.options.ScoreOptions`) are sent."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        options: dict[str, Any] | None = None,
        retries: int = 3,
        timeout_s: float = 600.0,
    ):
        self.url = url.rstrip("/")
        self.options = _allowed(options or {})
        key = api_key or os.environ.get("JUDGE_SERVICE_KEY")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.retries = retries
        self.timeout = httpx.Timeout(timeout_s)
        self._client: httpx.AsyncClient | None = None

    def body(
        self, submission: dict[str, Any], base_dir: Path | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        """The request body: the submission with its images inlined, and the options."""
        sub = dict(submission)
        if isinstance(sub.get("task"), dict):
            sub["task"] = dict(sub["task"])
            if sub["task"].get("target_image"):
                sub["task"]["target_image"] = inline(sub["task"]["target_image"], base_dir)
        sub["images"] = [inline(ref, base_dir) for ref in sub.get("images", [])]
        return {"submission": sub, "options": {**self.options, **_allowed(options)}}

    async def score(
        self,
        submission: dict[str, Any],
        base_dir: Path | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        body = await asyncio.to_thread(self.body, submission, base_dir, options or {})
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout, headers=self.headers)
        for attempt in range(self.retries + 1):
            try:
                resp = await self._client.post(f"{self.url}/v1/score", json=body)
            except httpx.TransportError as exc:
                if attempt == self.retries:
                    raise JudgeCallError(f"service at {self.url} unreachable ({exc})") from None
                await asyncio.sleep(min(2**attempt, 8))
                continue
            if resp.status_code in RETRY_STATUSES and attempt < self.retries:
                await asyncio.sleep(min(2**attempt, 8))
                continue
            if resp.status_code != 200:
                raise JudgeCallError(f"service answered {resp.status_code}: {resp.text[:300]}")
            return resp.json()
        raise JudgeCallError("unreachable")  # pragma: no cover

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _allowed(options: dict[str, Any]) -> dict[str, Any]:
    fields = set(ScoreOptions.model_fields)
    return {k: v for k, v in options.items() if k in fields}
