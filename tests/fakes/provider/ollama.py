"""A fake of Ollama's chat and generate APIs on loopback.

Reach it through litellm with ``api_base=fake.base_url`` (``http://HOST:PORT``) and either
``model="ollama_chat/<name>"`` (``POST /api/chat``: the conversation as messages, each with its
own ``images``) or ``model="ollama/<name>"`` (``POST /api/generate``: litellm flattens the
conversation into one ``prompt`` and sends every image in the top-level ``images``). What it
checks, as the real server would:

- ``model`` and ``stream: false`` (Ollama streams by default; the fake answers whole replies
  only, so a request that leaves ``stream`` out is refused);
- ``/api/chat``: ``messages`` with roles ``system``/``user``/``assistant``/``tool`` and string
  ``content`` (an OpenAI list of parts is refused, as Ollama cannot unmarshal it);
  ``/api/generate``: a string ``prompt``;
- ``images``: a list of plain base64 strings that decode to real images;
- ``format``: ``"json"`` or a JSON Schema object (structured output); with ``"json"`` the
  answer follows a schema stated in the prompt, if any.

Errors are ``{"error": "<message>"}`` with the HTTP status (429 for the injected rate limit,
as an Ollama behind a rate-limiting proxy or Ollama's cloud answers).

Example::

    with OllamaFake() as fake:
        await litellm.acompletion(model="ollama_chat/llava", api_base=fake.base_url,
                                  messages=[...], response_format=fmt)
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from aiohttp import web

from tests.fakes.provider.base import LoopbackFake
from tests.fakes.provider.responder import messages_text
from tests.fakes.provider.wire import (
    Body,
    ImageInfo,
    WireError,
    count_images,
    decode_image,
    image_part,
    schema_format,
    schema_stated_in_prompt,
    text_part,
    tokens,
)

_ROLES = ("system", "user", "assistant", "tool")


def _images(value: Any, where: str, images: list[ImageInfo]) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise WireError(f"{where}: images must be a list of base64 strings")
    found = [decode_image(b64, declared=None, where=f"{where}[{k}]") for k, b64 in enumerate(value)]
    images.extend(found)
    return [image_part(info) for info in found]


def _common(body: Body) -> None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise WireError("model is required")
    if body.get("stream") is not False:
        raise WireError("stream must be false: the fake answers whole replies only")
    fmt = body.get("format")
    if fmt is not None and fmt not in ("", "json") and not isinstance(fmt, dict):
        raise WireError(f'format must be "json" or a JSON schema object, got {fmt!r}')


def _response_format(body: Body, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    fmt = body.get("format")
    if isinstance(fmt, dict):
        return schema_format(fmt)
    return schema_format(schema_stated_in_prompt(messages)) if fmt == "json" else None


class OllamaFake(LoopbackFake):
    """Ollama ``/api/chat`` and ``/api/generate`` fake; same scripting, faults and records."""

    api: ClassVar[str] = "ollama"
    base_path: ClassVar[str] = ""

    def _add_routes(self, app: web.Application) -> None:
        app.router.add_post("/api/chat", self._endpoint(self._parse_chat, self._render))
        app.router.add_post("/api/generate", self._endpoint(self._parse_generate, self._render))

    def _error(self, status: int, kind: str, message: str) -> web.Response:
        return web.json_response({"error": message}, status=status)

    @staticmethod
    def _parse_chat(request: web.Request, body: Body) -> tuple[Body, list[ImageInfo]]:
        _common(body)
        if not isinstance(body.get("messages"), list):
            raise WireError("messages is required (a list)")
        images: list[ImageInfo] = []
        messages = []
        for i, message in enumerate(body["messages"]):
            role = message.get("role") if isinstance(message, dict) else None
            if role not in _ROLES:
                raise WireError(f"messages[{i}].role: must be one of {list(_ROLES)}")
            content = message.get("content", "")
            if not isinstance(content, str):
                raise WireError(
                    f"json: cannot unmarshal {type(content).__name__} into Go struct field "
                    f"Message.messages.content of type string (messages[{i}])"
                )
            parts = [text_part(content), *_images(message.get("images"), f"messages[{i}]", images)]
            messages.append({"role": role, "content": parts})
        return {
            "model": body["model"],
            "messages": messages,
            "response_format": _response_format(body, messages),
        }, images

    @staticmethod
    def _parse_generate(request: web.Request, body: Body) -> tuple[Body, list[ImageInfo]]:
        _common(body)
        if not isinstance(body.get("prompt"), str):
            raise WireError("prompt is required (a string)")
        images: list[ImageInfo] = []
        messages = []
        if isinstance(body.get("system"), str):
            messages.append({"role": "system", "content": [text_part(body["system"])]})
        parts = [text_part(body["prompt"]), *_images(body.get("images"), "images", images)]
        messages.append({"role": "user", "content": parts})
        return {
            "model": body["model"],
            "messages": messages,
            "response_format": _response_format(body, messages),
        }, images

    def _render(self, canonical: Body, body: Body, content: str, finish: str) -> dict[str, Any]:
        images = count_images(canonical)
        answer: dict[str, Any] = {
            "model": body["model"],
            "created_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "done": True,
            "done_reason": "length" if finish == "length" else "stop",
            "total_duration": int(self.latency * 1e9),
            "load_duration": 0,
            "prompt_eval_count": tokens(messages_text(canonical)) + 576 * images,
            "prompt_eval_duration": 0,
            "eval_count": tokens(content),
            "eval_duration": 0,
        }
        if "messages" in body:
            answer["message"] = {"role": "assistant", "content": content}
        else:
            answer["response"] = content
            answer["context"] = []
        return answer
