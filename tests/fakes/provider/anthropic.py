"""A fake of Anthropic's Messages API (``POST /v1/messages``) on loopback.

Reach it through litellm with ``model="anthropic/<name>"`` and ``api_base=fake.base_url``
(``http://HOST:PORT``; litellm appends ``/v1/messages``). What it checks, as the real API would:

- headers ``x-api-key`` (401 ``authentication_error`` without) and ``anthropic-version``;
- body: ``model``, ``max_tokens`` (int ≥ 1), ``messages`` with roles ``user``/``assistant``
  only (the system prompt is the top-level ``system``), content a string or a list of ``text``,
  ``image``, ``tool_use``, ``tool_result`` blocks; image blocks carry
  ``{"type": "base64", "media_type", "data"}`` and must decode to an image of that type;
- structured output, both ways litellm asks for it: a forced tool (``tools`` +
  ``tool_choice: {"type": "tool", "name": ...}``, litellm's ``json_tool_call``, used for models
  litellm does not know to support native structured output) — answered with a ``tool_use``
  block whose ``input`` is the JSON answer; or ``output_format: {"type": "json_schema"}``
  (needs the ``anthropic-beta: structured-outputs-…`` header) — answered with a text block;
- ``stream: true`` is refused (the fake answers whole messages only).

Errors use Anthropic's shape ``{"type": "error", "error": {"type", "message"}}``: 429
``rate_limit_error``, 529 ``overloaded_error``, 500/503 ``api_error``.

Example::

    with AnthropicFake() as fake:
        fake.fail_next(["529"])
        await litellm.acompletion(model="anthropic/fake-claude", api_base=fake.base_url,
                                  api_key="x", messages=[...], response_format=fmt)
"""

from __future__ import annotations

import json
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
    text_part,
    tokens,
)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_BLOCKS = ("text", "image", "tool_use", "tool_result")


def _system_text(system: Any) -> str:
    if system is None or isinstance(system, str):
        return system or ""
    if isinstance(system, list) and all(
        isinstance(b, dict) and b.get("type") == "text" for b in system
    ):
        return "\n".join(str(b.get("text", "")) for b in system)
    raise WireError("system: must be a string or a list of text blocks")


def _block(block: Any, where: str, images: list[ImageInfo]) -> dict[str, Any]:
    """One content block → a canonical part (images decoded and checked)."""
    kind = block.get("type") if isinstance(block, dict) else None
    if kind not in _BLOCKS:
        raise WireError(f"{where}.type: Input tag {kind!r} does not match any of {list(_BLOCKS)}")
    if kind == "text":
        if not isinstance(block.get("text"), str):
            raise WireError(f"{where}.text: Field required")
        return text_part(block["text"])
    if kind == "image":
        source = block.get("source") or {}
        if source.get("type") != "base64":
            raise WireError(f"{where}.source.type: the fake takes base64 image sources only")
        if source.get("media_type") not in _MEDIA_TYPES:
            raise WireError(f"{where}.source.media_type: must be one of {list(_MEDIA_TYPES)}")
        info = decode_image(source.get("data"), declared=source["media_type"], where=where)
        images.append(info)
        return image_part(info)
    if kind == "tool_use":
        return text_part(json.dumps(block.get("input", {})))
    inner = block.get("content")
    return text_part(inner if isinstance(inner, str) else json.dumps(inner))


def _forced_tool(body: Body) -> dict[str, Any] | None:
    """The tool the request forces (``tool_choice`` ``tool``, or ``any`` with one tool)."""
    tools = body.get("tools")
    choice = body.get("tool_choice")
    if tools is None and choice is None:
        return None
    if not isinstance(tools, list) or not tools:
        raise WireError("tool_choice: given without tools")
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise WireError(f"tools.{i}.name: Field required")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise WireError(f"tools.{i}.input_schema.type: Input should be 'object'")
    if not isinstance(choice, dict):
        return None
    if choice.get("type") == "tool":
        named = [t for t in tools if t["name"] == choice.get("name")]
        if not named:
            raise WireError(f"tool_choice.name: no tool named {choice.get('name')!r}")
        return named[0]
    return tools[0] if choice.get("type") == "any" and len(tools) == 1 else None


class AnthropicFake(LoopbackFake):
    """Anthropic Messages API fake; same scripting, faults and records as the OpenAI one."""

    api: ClassVar[str] = "anthropic"
    base_path: ClassVar[str] = ""

    def _add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._endpoint(self._parse, self._render))

    def _error(self, status: int, kind: str, message: str) -> web.Response:
        error_type = _ERROR_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": error_type, "message": message}}
        return web.json_response(body, status=status)

    @staticmethod
    def _parse(request: web.Request, body: Body) -> tuple[Body, list[ImageInfo]]:
        if not request.headers.get("x-api-key"):
            raise WireError("x-api-key header is required", status=401)
        if not request.headers.get("anthropic-version"):
            raise WireError("anthropic-version: header is required")
        if "messages" not in body or not isinstance(body["messages"], list) or not body["messages"]:
            raise WireError("messages: Field required (a non-empty list)")
        if not isinstance(body.get("model"), str):
            raise WireError("model: Field required")
        max_tokens = body.get("max_tokens")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise WireError("max_tokens: Field required (an integer >= 1)")
        if body.get("stream"):
            raise WireError("stream: the fake answers whole messages only (stream=false)")
        images: list[ImageInfo] = []
        system = _system_text(body.get("system"))
        canonical = [{"role": "system", "content": [text_part(system)]}] if system else []
        for i, message in enumerate(body["messages"]):
            role = message.get("role") if isinstance(message, dict) else None
            if role not in ("user", "assistant"):
                raise WireError(
                    f"messages.{i}.role: Input should be 'user' or 'assistant' (got {role!r}); "
                    "the system prompt goes in the top-level 'system' field"
                )
            content = message.get("content")
            if isinstance(content, str):
                parts = [text_part(content)]
            elif isinstance(content, list) and content:
                parts = [
                    _block(b, f"messages.{i}.content.{j}", images) for j, b in enumerate(content)
                ]
            else:
                raise WireError(f"messages.{i}.content: a string or a non-empty list of blocks")
            canonical.append({"role": role, "content": parts})
        tool = _forced_tool(body)
        schema = tool["input_schema"] if tool else None
        output_format = body.get("output_format")
        if output_format is not None:
            beta = request.headers.get("anthropic-beta", "")
            if "structured-outputs" not in beta:
                raise WireError("output_format: needs the anthropic-beta structured-outputs header")
            if not isinstance(output_format, dict) or output_format.get("type") != "json_schema":
                raise WireError("output_format.type: Input should be 'json_schema'")
            schema = schema or output_format.get("schema")
        return {
            "model": body["model"],
            "messages": canonical,
            "response_format": schema_format(schema, tool["name"] if tool else "output_format"),
        }, images

    def _render(self, canonical: Body, body: Body, content: str, finish: str) -> dict[str, Any]:
        tool = _forced_tool(body)
        answer: Any = None
        if tool is not None and finish == "stop":
            try:
                answer = json.loads(content)
            except ValueError:
                answer = None
        if isinstance(answer, dict):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_fake_{self.next_id()}",
                "name": tool["name"] if tool else "",
                "input": answer,
            }
            stop = "tool_use"
        else:  # a model that runs out of tokens or ignores the tool answers in text
            block = {"type": "text", "text": content}
            stop = "max_tokens" if finish == "length" else "end_turn"
        images = count_images(canonical)
        return {
            "id": f"msg_fake_{self.next_id()}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": tokens(messages_text(canonical)) + 85 * images,
                "output_tokens": tokens(content),
            },
        }
