"""``judge.Client``: the service from your own script, sync or async.

It speaks HTTP only (no engine imports): ``score`` and ``compare`` one item, ``submit`` a
batch, ``wait`` for it with a progress bar, ``results`` streams the finished items in input
order. Local image paths are sent inline as ``data:`` URLs. The transport underneath
(:mod:`judge.transport`, shared with the workflows' admin client) retries 429 and
502/503/504 answers and dropped connections with exponential backoff (``Retry-After``
honoured); any other error answer raises :class:`ServiceError` with the service's code,
field and message.

Example::

    import judge

    with judge.Client("http://127.0.0.1:8080", key="k1") as client:
        result = client.score("a red cube", ["a.png"], checklist=["The cube is red."])
        same = client.score({"task": {...}, "prompt": "...", "images": ["a.png"]})
        batch = client.submit(submissions)
        client.wait(batch)
        for line in client.results(batch):
            print(line["index"], line.get("result", {}).get("status"))

``judge.AsyncClient`` has the same methods as coroutines (``results`` is an async iterator).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.client_forms import (
    COMPARE_FIELDS,
    EDIT_FIELDS,
    SCORE_FIELDS,
    compare_request,
    edit_request,
    merged_options,
    score_request,
    split_fields,
)
from judge.client_settings import ClientSettings
from judge.errors import InputError
from judge.io.data_urls import file_data_url
from judge.transport import (
    RETRY_STATUSES,
    AsyncTransport,
    ServiceError,
    Transport,
    raise_for,
)

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["RETRY_STATUSES", "AsyncClient", "Client", "ServiceError", "data_url", "inline",
           "inline_request", "score_result"]


def data_url(path: Path) -> str:
    """A local image file as a data URL (the service never reads local paths)."""
    return file_data_url(path)


def inline(ref: str | None, base_dir: Path | None, field: str = "image") -> str | None:
    """``ref`` unchanged when it is a URL, else the local file it names as a data URL."""
    if not ref or ref.startswith(("data:", "https://", "http://")):
        return ref
    path = Path(ref)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    try:
        return data_url(path)
    except OSError as exc:
        raise InputError(field, f"cannot read image {path} ({exc.strerror})") from None


def inline_request(item: dict[str, Any], base_dir: Path | None = None) -> dict[str, Any]:
    """A submission, edit or comparison with every local image inlined (a copy)."""
    out = dict(item)
    if isinstance(out.get("task"), dict) and out["task"].get("target_image"):
        out["task"] = {**out["task"], "target_image": inline(
            out["task"]["target_image"], base_dir, "task.target_image")}
    if isinstance(out.get("images"), list):
        out["images"] = [inline(r, base_dir, f"images[{i}]") for i, r in enumerate(out["images"])]
    if out.get("source_image"):
        out["source_image"] = inline(out["source_image"], base_dir, "source_image")
    for side in ("a", "b"):
        if isinstance(out.get(side), dict) and out[side].get("image"):
            out[side] = {**out[side], "image": inline(out[side]["image"], base_dir, side)}
    return out


def service_key() -> str | None:
    """``$JUDGE_SERVICE_KEY`` (read through the client's settings), or None."""
    secret = ClientSettings().key
    return secret.get_secret_value() if secret is not None else None


class _Bodies:
    """The request bodies both clients send."""

    @staticmethod
    def wrap(item: dict[str, Any], key: str, options: dict[str, Any] | None,
             base_dir: Path | None) -> dict[str, Any]:
        body = inline_request(item, base_dir)
        if not options:
            return body
        if body.get("mode") == "edit":  # the wrapped edit form
            return {"mode": "edit", "edit": body, "options": options}
        return {key: body, "options": options}

    @staticmethod
    def batch_body(items: Iterable[dict[str, Any]], options: dict[str, Any] | None,
                   base_dir: Path | None) -> dict[str, Any]:
        return {"items": [inline_request(i, base_dir) for i in items], "options": options or {}}


RESULT_MODELS = {
    "edit": ("judge.modes.edit.result", "EditResult"),
    "compare": ("judge.modes.compare.result", "ComparisonResult"),
    "edit_compare": ("judge.modes.edit_compare.result", "EditComparisonResult"),
}
"""Mode name -> (module, class) of its result model; any other reply is a score ``Result``.
Imported when a reply needs it, so the client stays light to import."""


def score_result(data: dict[str, Any]) -> Any:
    """The typed result of ``POST /v1/score``'s JSON: an ``EditResult`` for an edit (``"mode":
    "edit"``), a ``ComparisonResult`` for a comparison (``"mode": "compare"``), an
    ``EditComparisonResult`` for two edits compared (``"mode": "edit_compare"``), else a
    :class:`~judge.domain.result.Result`.

    Example:
        >>> score_result({"submission_id": "s1", "status": "partial"}).status
        'partial'
        >>> type(score_result({"submission_id": "e1", "mode": "edit", "status": "scored"})).__name__
        'EditResult'
    """
    found = RESULT_MODELS.get(str(data.get("mode")))
    if found is None:
        from judge.domain.result import Result

        return Result.model_validate(data)
    module, name = found
    return getattr(importlib.import_module(module), name).model_validate(data)


def _comparison_result(data: dict[str, Any]) -> Any:
    """A ``POST /v1/compare`` reply: two images compared, or two edits (``edit_compare``)."""
    return score_result({**data, "mode": data.get("mode") or "compare"})


class Client(_Bodies, Transport):
    """The service, blocking calls. ``key`` defaults to ``$JUDGE_SERVICE_KEY``."""

    def __init__(self, url: str, key: str | None = None, **policy: Any):
        super().__init__(url, key or service_key(), **policy)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def score(self, submission: dict[str, Any] | str, images: Any = (), *,
              options: dict[str, Any] | None = None, base_dir: Path | None = None,
              **fields_and_settings: Any) -> Any:
        """Score one submission (or an edit, with ``"mode": "edit"``); returns its Result.

        The same forms as :func:`judge.score`: ``score("a prompt", [image],
        checklist=[...], skills=[...])`` (images as paths, URLs, bytes or PIL images; the
        fields ``checklist``, ``brief``, ``category``, ``target_image``, ``task_id``, ``id``)
        or a submission dict. Other keyword settings go to the service as options.
        """
        fields, settings = split_fields(fields_and_settings, SCORE_FIELDS)
        body = self.wrap(score_request(submission, images, fields), "submission",
                         merged_options(options, settings), base_dir)
        return score_result(self.request("POST", "/v1/score", json=body).json())

    def compare(self, comparison: dict[str, Any] | str, image_a: Any = None,
                image_b: Any = None, *, options: dict[str, Any] | None = None,
                base_dir: Path | None = None, **fields_and_settings: Any) -> Any:
        """Judge one comparison; returns its ComparisonResult. The same forms as
        :func:`judge.compare` (``compare("a prompt", image_a, image_b, criteria=[...])``) or
        a comparison dict."""
        fields, settings = split_fields(fields_and_settings, COMPARE_FIELDS)
        body = self.wrap(compare_request(comparison, image_a, image_b, fields), "comparison",
                         merged_options(options, settings), base_dir)
        return _comparison_result(self.request("POST", "/v1/compare", json=body).json())

    def edit(self, instruction: dict[str, Any] | str, source_image: Any = None,
             images: Any = None, *, options: dict[str, Any] | None = None,
             base_dir: Path | None = None, **fields_and_settings: Any) -> Any:
        """Judge one image edit; returns its EditResult. The same forms as
        :func:`judge.edit` (``edit("Make it yellow.", source, [edited])``) or an edit dict."""
        fields, settings = split_fields(fields_and_settings, EDIT_FIELDS)
        data = edit_request(instruction, source_image, images, fields)
        body = self.wrap(data, "submission", merged_options(options, settings), base_dir)
        return score_result(self.request("POST", "/v1/score", json=body).json())

    def submit(self, items: Iterable[dict[str, Any]], *, options: dict[str, Any] | None = None,
               base_dir: Path | None = None) -> str:
        """Queue a batch of requests (any mode); returns the batch id."""
        body = self.batch_body(items, options, base_dir)
        return self.request("POST", "/v1/batches", json=body).json()["id"]

    def status(self, batch_id: str) -> dict[str, Any]:
        """``{"id", "status", "total", "done", "failed", "progress", ...}``."""
        return self.request("GET", f"/v1/batches/{batch_id}").json()

    def wait(self, batch_id: str, *, poll_s: float = 1.0, progress: bool = True) -> dict[str, Any]:
        """Poll until every item finished (a progress bar on stderr); returns the status."""
        bar = _Bar(progress)
        while True:
            info = self.status(batch_id)
            bar.update(info)
            if info["status"] in ("done", "deleted"):
                bar.close()
                return info
            time.sleep(poll_s)

    def results(self, batch_id: str, *, wait: bool = False) -> Iterator[dict[str, Any]]:
        """The finished items in input order, one ``{"index", "result" | "error"}`` each, as
        they stream in (``wait=True``: until the last item)."""
        params = {"wait": "true"} if wait else {}
        url = f"{self.url}/v1/batches/{batch_id}/results"
        with self.http.stream("GET", url, params=params, timeout=None) as resp:
            if resp.status_code >= 400:
                resp.read()
                raise_for(resp)
            for line in resp.iter_lines():
                if line.strip():
                    yield json.loads(line)

    def delete(self, batch_id: str) -> None:
        """Drop a batch, its results and its pending items."""
        self.request("DELETE", f"/v1/batches/{batch_id}")


class AsyncClient(_Bodies, AsyncTransport):
    """The service, as coroutines (same methods as :class:`Client`)."""

    def __init__(self, url: str, key: str | None = None, **policy: Any):
        super().__init__(url, key or service_key(), **policy)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def score_json(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /v1/score`` with a ready body; the Result as JSON."""
        return (await self.request("POST", "/v1/score", json=body)).json()

    async def score(self, submission: dict[str, Any] | str, images: Any = (), *,
                    options: dict[str, Any] | None = None, base_dir: Path | None = None,
                    **fields_and_settings: Any) -> Any:
        """Score one submission (or an edit); returns its Result (forms as
        :meth:`Client.score`)."""
        fields, settings = split_fields(fields_and_settings, SCORE_FIELDS)
        data = await asyncio.to_thread(score_request, submission, images, fields)
        body = await asyncio.to_thread(self.wrap, data, "submission",
                                       merged_options(options, settings), base_dir)
        return score_result(await self.score_json(body))

    async def compare(self, comparison: dict[str, Any] | str, image_a: Any = None,
                      image_b: Any = None, *, options: dict[str, Any] | None = None,
                      base_dir: Path | None = None, **fields_and_settings: Any) -> Any:
        """Judge one comparison; returns its ComparisonResult (forms as
        :meth:`Client.compare`)."""
        fields, settings = split_fields(fields_and_settings, COMPARE_FIELDS)
        data = await asyncio.to_thread(compare_request, comparison, image_a, image_b, fields)
        body = await asyncio.to_thread(self.wrap, data, "comparison",
                                       merged_options(options, settings), base_dir)
        return _comparison_result((await self.request("POST", "/v1/compare", json=body)).json())

    async def edit(self, instruction: dict[str, Any] | str, source_image: Any = None,
                   images: Any = None, *, options: dict[str, Any] | None = None,
                   base_dir: Path | None = None, **fields_and_settings: Any) -> Any:
        """Judge one image edit; returns its EditResult (forms as :meth:`Client.edit`)."""
        fields, settings = split_fields(fields_and_settings, EDIT_FIELDS)
        data = await asyncio.to_thread(edit_request, instruction, source_image, images, fields)
        body = await asyncio.to_thread(self.wrap, data, "submission",
                                       merged_options(options, settings), base_dir)
        return score_result(await self.score_json(body))

    async def submit(self, items: Iterable[dict[str, Any]], *,
                     options: dict[str, Any] | None = None, base_dir: Path | None = None) -> str:
        """Queue a batch of requests (any mode); returns the batch id."""
        body = await asyncio.to_thread(self.batch_body, list(items), options, base_dir)
        return (await self.request("POST", "/v1/batches", json=body)).json()["id"]

    async def status(self, batch_id: str) -> dict[str, Any]:
        """``{"id", "status", "total", "done", "failed", "progress", ...}``."""
        return (await self.request("GET", f"/v1/batches/{batch_id}")).json()

    async def wait(self, batch_id: str, *, poll_s: float = 1.0,
                   progress: bool = True) -> dict[str, Any]:
        """Poll until every item finished (a progress bar on stderr); returns the status."""
        bar = _Bar(progress)
        while True:
            info = await self.status(batch_id)
            bar.update(info)
            if info["status"] in ("done", "deleted"):
                bar.close()
                return info
            await asyncio.sleep(poll_s)

    async def results(self, batch_id: str, *, wait: bool = False) -> AsyncIterator[dict[str, Any]]:
        """The finished items in input order, as they stream in."""
        params = {"wait": "true"} if wait else {}
        url = f"{self.url}/v1/batches/{batch_id}/results"
        async with self.http.stream("GET", url, params=params, timeout=None) as resp:
            if resp.status_code >= 400:
                await resp.aread()
                raise_for(resp)
            async for line in resp.aiter_lines():
                if line.strip():
                    yield json.loads(line)

    async def delete(self, batch_id: str) -> None:
        """Drop a batch, its results and its pending items."""
        await self.request("DELETE", f"/v1/batches/{batch_id}")


class _Bar:
    """A tqdm bar over a batch's finished items (nothing when disabled)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar: tqdm[Any] | None = None

    def update(self, info: dict[str, Any]) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=info["total"], desc=f"batch {info['id'][:8]}",
                            unit="item", file=sys.stderr)
        self.bar.n = info["done"] + info["failed"]
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
