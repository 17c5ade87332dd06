"""How the runner gets a judgment: one function, in-process or through the service.

:func:`make_judge_call` returns an async callable ``(submission, base_dir) -> Result JSON``;
the runner knows nothing else about judging, so another implementation (for instance a
provider-batch one) can replace it. A judgment that cannot be made raises
:class:`JudgeCallError` with the reason; the runner records the item as ``judge_failed``.

Example::

    call = make_judge_call(settings)                           # judge.engine.Judge here
    call = make_judge_call(settings, url="http://127.0.0.1:8000")  # POST /v1/score
    result = await call(submission, base_dir)
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from judge.config import JudgeSettings
from judge.errors import JudgeError
from judge.modes.score.options import ScoreOptions

JudgeCall = Callable[[dict[str, Any], Path], Awaitable[dict[str, Any]]]


class JudgeCallError(RuntimeError):
    """A judgment that could not be made; the message is the reason recorded."""


def make_judge_call(
    settings: JudgeSettings, *, url: str | None = None, options: dict[str, Any] | None = None
) -> JudgeCall:
    """The judge the runner uses: the service at ``url`` when given, else in-process."""
    if url:
        return ServiceJudge(url, options or {})
    return InProcessJudge(settings)


class InProcessJudge:
    """:class:`judge.engine.Judge` in this process (one gateway, one cache for the run)."""

    def __init__(self, settings: JudgeSettings):
        from judge.engine import Judge

        self.judge = Judge(settings)

    async def __call__(self, submission: dict[str, Any], base_dir: Path) -> dict[str, Any]:
        try:
            result = await self.judge.ascore(submission, base_dir=base_dir)
        except JudgeError as exc:
            raise JudgeCallError(str(exc)) from None
        return result.model_dump(mode="json", exclude_none=True)


def data_url(path: Path) -> str:
    """A local image file as a data URL (the service never reads local paths)."""
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode()


def _inline(ref: str | None, base_dir: Path) -> str | None:
    if not ref or ref.startswith(("data:", "https://", "http://")):
        return ref
    path = Path(ref) if Path(ref).is_absolute() else base_dir / ref
    try:
        return data_url(path)
    except OSError as exc:
        raise JudgeCallError(f"cannot read image {path} ({exc.strerror})") from None


class ServiceJudge:
    """``POST {url}/v1/score`` with images inlined; ``JUDGE_SERVICE_KEY`` as bearer key.

    The service judges with its own model and memories; ``options`` are the study's judge
    options that a request may set (selection rule, batching, retrieval, …).
    """

    def __init__(self, url: str, options: dict[str, Any], retries: int = 3, timeout_s: float = 600):
        self.url = url.rstrip("/")
        allowed = set(ScoreOptions.model_fields)
        self.options = {k: v for k, v in options.items() if k in allowed}
        key = os.environ.get("JUDGE_SERVICE_KEY")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.retries = retries
        self.timeout = httpx.Timeout(timeout_s)
        self._client: httpx.AsyncClient | None = None

    def _body(self, submission: dict[str, Any], base_dir: Path) -> dict[str, Any]:
        sub = dict(submission)
        sub["task"] = dict(sub["task"])
        sub["task"]["target_image"] = _inline(sub["task"].get("target_image"), base_dir)
        sub["images"] = [_inline(ref, base_dir) for ref in sub.get("images", [])]
        return {"submission": sub, "options": self.options}

    async def __call__(self, submission: dict[str, Any], base_dir: Path) -> dict[str, Any]:
        body = await asyncio.to_thread(self._body, submission, base_dir)
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
            if resp.status_code in (429, 502, 503, 504) and attempt < self.retries:
                await asyncio.sleep(min(2**attempt, 8))
                continue
            if resp.status_code != 200:
                raise JudgeCallError(f"service answered {resp.status_code}: {resp.text[:300]}")
            return resp.json()
        raise JudgeCallError("unreachable")  # pragma: no cover

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
