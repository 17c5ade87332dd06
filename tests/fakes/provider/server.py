"""The fake OpenAI-compatible provider: an aiohttp server on loopback, in a background thread.

Endpoints:

- ``POST /v1/chat/completions`` — OpenAI chat-completions JSON; the content comes from the
  :class:`~tests.fakes.provider.responder.Responder` (scripted reply or schema-valid default),
  ``latency`` (± ``jitter``) seconds after the request arrived (``asyncio.sleep``, so
  concurrent calls overlap; the fake's own parsing and image decoding count within it).
  ``stream: true``, bodies that are not a JSON object with ``messages`` and ``data:`` image
  URLs that do not decode to an image get HTTP 400.
  A call asking ``logprobs: true`` gets ``choices[0].logprobs`` (answer tokens at
  :attr:`FakeProvider.answer_probability`, or as scripted in
  :attr:`FakeProvider.token_probabilities`; :mod:`tests.fakes.provider.logprobs`) unless
  :attr:`FakeProvider.serve_logprobs` is false, as with a provider that offers none.
- ``GET /v1/models`` — one model, ``fake``.
- ``/v1/files`` and ``/v1/batches`` — the OpenAI batch API, answered by the same responder
  (:mod:`tests.fakes.provider.batches`; steer it through :attr:`FakeProvider.batches`).
- ``POST /v1/images/generations`` — OpenAI images (``b64_json`` or ``url``), deterministic PNGs
  and image faults (refusal, blocked, empty, corrupt, oversized):
  :mod:`tests.fakes.provider.images`.
- ``POST /v1/images/edits`` — OpenAI image edits (multipart form: image, optional mask,
  prompt), a known transformation of the source, the same faults:
  :mod:`tests.fakes.provider.edits`.
- ``GET /_admin/stats``, ``POST /_admin/config``, ``POST /_admin/reset`` — for a provider that
  runs in another process (see :mod:`tests.fakes.provider.process`).

Lifecycle, scripting, faults and records are shared with the other provider dialects
(:mod:`tests.fakes.provider.base`).

Example::

    with FakeProvider(latency=0.05) as provider:
        provider.on("checklist", {"items": []}, times=1)
        provider.fail_next(["429"])
        resp = await litellm.acompletion(model="openai/fake", api_base=provider.base_url,
                                         api_key="x", messages=[...])
        assert provider.calls == 1 and provider.fault_counts == {"429": 1}
"""

from __future__ import annotations

import time
from functools import cached_property
from typing import Any, ClassVar

from aiohttp import web

from tests.fakes.provider.base import LoopbackFake
from tests.fakes.provider.batches import BatchDesk
from tests.fakes.provider.edits import EditsMixin
from tests.fakes.provider.faults import error_json
from tests.fakes.provider.images import ImagesMixin
from tests.fakes.provider.logprobs import logprobs_content
from tests.fakes.provider.responder import messages_text
from tests.fakes.provider.wire import Body, ImageInfo, WireError, decode_data_url, tokens


class FakeProvider(EditsMixin, ImagesMixin, LoopbackFake):
    """OpenAI-compatible fake on loopback; records requests, scripts replies, injects faults."""

    api: ClassVar[str] = "openai"
    base_path: ClassVar[str] = "/v1"
    #: answer ``logprobs: true`` with log-probabilities (false: a provider that gives none)
    serve_logprobs: bool = True
    #: the probability of an answer token (``true``, ``first``, ``4``, ...) not scripted below
    answer_probability: float = 0.9
    #: scripted probabilities of answer tokens, e.g. ``{"true": 0.6}``
    token_probabilities: dict[str, float] = {}  # noqa: RUF012 - replaced, never mutated

    def _add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._endpoint(self._parse, self._render))
        app.router.add_get("/v1/models", self._models)
        self._add_image_routes(app)
        self._add_edit_routes(app)
        self.batches.add_routes(app)

    @cached_property
    def batches(self) -> BatchDesk:
        """The files and batches desk (settings, injected line faults, counters)."""
        return BatchDesk(self)

    def reset(self) -> None:
        """Forget calls, scripts and faults, the batch desk's files and batches, and any
        change to the log-probabilities served."""
        super().reset()
        self.batches.reset()
        for name in ("serve_logprobs", "answer_probability", "token_probabilities"):
            self.__dict__.pop(name, None)  # back to the class's default

    def _error(self, status: int, kind: str, message: str) -> web.Response:
        return web.json_response(error_json(message, kind), status=status)

    @staticmethod
    def _parse(request: web.Request, body: Body) -> tuple[Body, list[ImageInfo]]:
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise WireError("request body must be a JSON object with a 'messages' list")
        if body.get("stream"):
            raise WireError("stream=true is not supported by the fake provider")
        images: list[ImageInfo] = []
        for i, message in enumerate(messages):
            parts = message.get("content") if isinstance(message, dict) else None
            for j, part in enumerate(parts if isinstance(parts, list) else []):
                if not isinstance(part, dict) or part.get("type") != "image_url":
                    continue
                url = (part.get("image_url") or {}).get("url", "")
                if isinstance(url, str) and url.startswith("data:"):
                    images.append(decode_data_url(url, where=f"messages[{i}].content[{j}]"))
        return body, images

    def _render(self, canonical: Body, body: Body, content: str, finish: str) -> dict[str, Any]:
        images = sum(
            1
            for m in body["messages"]
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for p in m["content"]
            if isinstance(p, dict) and p.get("type") == "image_url"
        )
        prompt, completion = tokens(messages_text(body)) + 85 * images, tokens(content)
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": finish,
        }
        if body.get("logprobs") and self.serve_logprobs:
            top = int(body.get("top_logprobs") or 1)
            probs, default = self.token_probabilities, self.answer_probability
            choice["logprobs"] = {"content": logprobs_content(content, probs, default, top)}
        return {
            "id": f"chatcmpl-fake-{self.next_id()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "fake")),
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": "fake", "object": "model", "created": 0, "owned_by": "fake-provider"}
        return web.json_response({"object": "list", "data": [model]})
