"""How the harness gets a Result for an item: the engine in-process, or a running service.

Example::

    scorer = InProcessScorer(Judge(model="openai/gpt-4o"))
    result = await scorer.score(item, {"retrieval": "none"})
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from pathlib import Path
from typing import Any, Protocol

import httpx

from eval.datasets.base import EvalItem
from judge.engine import Judge


class Scorer(Protocol):
    """Turns an item (and per-item options) into a Result dict."""

    async def score(
        self, item: EvalItem, overrides: dict[str, Any]
    ) -> dict: ...  # pragma: no cover


class InProcessScorer:
    """Scores with a :class:`judge.engine.Judge` in this process."""

    def __init__(self, judge: Judge):
        self.judge = judge

    async def score(self, item: EvalItem, overrides: dict[str, Any]) -> dict:
        result = await self.judge.ascore(item.submission, base_dir=item.base_dir, **overrides)
        return result.model_dump(mode="json", exclude_none=True)


def _data_url(path: Path) -> str:
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode()


class HttpScorer:
    """Scores through ``POST {url}/v1/score``; local image paths are sent as data URLs."""

    def __init__(
        self, url: str, api_key: str | None = None, timeout_s: float = 600.0, retries: int = 3
    ):
        self.url = url.rstrip("/")
        key = api_key or os.environ.get("JUDGE_SERVICE_KEY")
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.timeout = httpx.Timeout(timeout_s)
        self.retries = retries

    def _body(self, item: EvalItem, overrides: dict[str, Any]) -> dict:
        sub = dict(item.submission)
        images = []
        for ref in sub.get("images", []):
            is_url = ref.startswith(("data:", "http://", "https://"))
            images.append(ref if is_url else _data_url(item.base_dir / ref))
        sub["images"] = images
        return {"submission": sub, "options": overrides}

    async def score(self, item: EvalItem, overrides: dict[str, Any]) -> dict:
        body = self._body(item, overrides)
        async with httpx.AsyncClient(timeout=self.timeout, headers=self.headers) as client:
            for attempt in range(self.retries + 1):
                try:
                    resp = await client.post(f"{self.url}/v1/score", json=body)
                except httpx.TransportError:
                    if attempt == self.retries:
                        raise
                    await asyncio.sleep(2**attempt)
                    continue
                if resp.status_code >= 500 and attempt < self.retries:
                    await asyncio.sleep(2**attempt)
                    continue
                if resp.status_code != 200:
                    raise RuntimeError(f"service answered {resp.status_code}: {resp.text[:300]}")
                return resp.json()
        raise RuntimeError("unreachable")  # pragma: no cover
