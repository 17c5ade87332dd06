"""A fake of Google's Gemini ``generateContent`` API on loopback.

Reach it through litellm with ``model="gemini/<name>"`` and ``api_base=fake.base_url``
(``http://HOST:PORT/v1beta``; litellm appends ``/models/<name>:generateContent``). What it
checks, as the real API would:

- an API key (``x-goog-api-key`` header or ``?key=``; else 403 ``PERMISSION_DENIED``);
- body: ``contents`` (roles ``user``/``model``, non-empty ``parts`` of ``text`` or
  ``inline_data``/``inlineData`` ``{mime_type, data}``), optional ``system_instruction``,
  ``generationConfig``, ``safetySettings``, ``tools``, ``toolConfig``; any other field, or a
  part with another key (an OpenAI ``image_url`` part, say), is refused as "Unknown name";
- inline images must decode to an image of the declared type;
- structured output: ``response_mime_type: application/json`` with ``response_json_schema``
  (JSON Schema; litellm sends it for Gemini 2.0+ model names) or ``response_schema`` (OpenAPI
  subset, upper-case types); a schema without the JSON mime type is refused. With the JSON mime
  type and no schema, the answer follows a schema stated in the prompt (litellm writes one
  there for model names it does not know to support ``response_schema``).

Errors use Google's shape ``{"error": {"code", "message", "status"}}``: 429
``RESOURCE_EXHAUSTED``, 500 ``INTERNAL``, 503 ``UNAVAILABLE``.

Example::

    with GeminiFake() as fake:
        fake.fail_next(["429"])
        await litellm.acompletion(model="gemini/gemini-2.5-flash", api_base=fake.base_url,
                                  api_key="x", messages=[...], response_format=fmt)
"""

from __future__ import annotations

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

_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_TOP_LEVEL = {
    "contents",
    "system_instruction",
    "systemInstruction",
    "generationConfig",
    "generation_config",
    "safetySettings",
    "safety_settings",
    "tools",
    "toolConfig",
    "tool_config",
    "cachedContent",
    "cached_content",
    "labels",
}
_PART_KEYS = {"text", "inline_data", "inlineData", "thought", "thoughtSignature"}


def _get(obj: dict[str, Any], snake: str) -> Any:
    """A field by its snake_case or camelCase name (the API accepts both)."""
    head, *rest = snake.split("_")
    camel = head + "".join(w.title() for w in rest)
    return obj.get(snake, obj.get(camel))


def _lower_types(schema: Any) -> Any:
    """An OpenAPI-style ``response_schema`` (``"type": "OBJECT"``) as plain JSON Schema."""
    if isinstance(schema, dict):
        out = {k: _lower_types(v) for k, v in schema.items()}
        if isinstance(out.get("type"), str):
            out["type"] = out["type"].lower()
        return out
    if isinstance(schema, list):
        return [_lower_types(v) for v in schema]
    return schema


def _parts(content: Any, where: str, images: list[ImageInfo]) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list) or not parts:
        raise WireError(f"{where}.parts: must be a non-empty list")
    out = []
    for j, part in enumerate(parts):
        unknown = set(part) - _PART_KEYS if isinstance(part, dict) else {"(not an object)"}
        if unknown:
            name = sorted(unknown)[0]
            raise WireError(
                f'Invalid JSON payload received. Unknown name "{name}" at '
                f"'{where}.parts[{j}]': Cannot find field."
            )
        inline = _get(part, "inline_data")
        if inline is not None:
            declared = _get(inline, "mime_type") if isinstance(inline, dict) else None
            data = inline.get("data") if isinstance(inline, dict) else None
            info = decode_image(data, declared=declared, where=f"{where}.parts[{j}].inline_data")
            images.append(info)
            out.append(image_part(info))
        elif isinstance(part.get("text"), str):
            out.append(text_part(part["text"]))
    return out


class GeminiFake(LoopbackFake):
    """Gemini generateContent fake; same scripting, faults and records as the OpenAI one."""

    api: ClassVar[str] = "gemini"
    base_path: ClassVar[str] = "/v1beta"

    def _add_routes(self, app: web.Application) -> None:
        app.router.add_post(
            r"/v1beta/models/{model:[^/:]+}:generateContent",
            self._endpoint(self._parse, self._render),
        )

    def _error(self, status: int, kind: str, message: str) -> web.Response:
        fallback = "INTERNAL" if status >= 500 else "UNKNOWN"
        body = {
            "error": {"code": status, "message": message, "status": _STATUS.get(status, fallback)}
        }
        return web.json_response(body, status=status)

    @staticmethod
    def _parse(request: web.Request, body: Body) -> tuple[Body, list[ImageInfo]]:
        if not (request.headers.get("x-goog-api-key") or request.query.get("key")):
            raise WireError("Method doesn't allow unregistered callers (no API key)", 403)
        unknown = sorted(set(body) - _TOP_LEVEL)
        if unknown:
            raise WireError(
                f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.'
            )
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            raise WireError("contents is not specified (a non-empty list is required)")
        images: list[ImageInfo] = []
        messages: list[dict[str, Any]] = []
        system = _get(body, "system_instruction")
        if system is not None:
            parts = _parts(system, "system_instruction", images)
            messages.append({"role": "system", "content": parts})
        for i, content in enumerate(contents):
            role = content.get("role", "user") if isinstance(content, dict) else None
            if role not in ("user", "model"):
                raise WireError(f"contents[{i}].role: Please use a valid role: user, model")
            parts = _parts(content, f"contents[{i}]", images)
            messages.append({"role": "assistant" if role == "model" else "user", "content": parts})
        config = _get(body, "generation_config") or {}
        mime = _get(config, "response_mime_type")
        json_schema = _get(config, "response_json_schema")
        openapi_schema = _get(config, "response_schema")
        schema = json_schema if json_schema is not None else _lower_types(openapi_schema)
        if schema is not None and mime != "application/json":
            raise WireError("response_mime_type must be application/json to use a response schema")
        if schema is None and mime == "application/json":
            schema = schema_stated_in_prompt(messages)
        return {
            "model": request.match_info["model"],
            "messages": messages,
            "response_format": schema_format(schema),
        }, images

    def _render(self, canonical: Body, body: Body, content: str, finish: str) -> dict[str, Any]:
        images = count_images(canonical)
        prompt, completion = tokens(messages_text(canonical)) + 258 * images, tokens(content)
        return {
            "candidates": [
                {
                    "content": {"parts": [{"text": content}], "role": "model"},
                    "finishReason": "MAX_TOKENS" if finish == "length" else "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": completion,
                "totalTokenCount": prompt + completion,
            },
            "modelVersion": canonical["model"],
            "responseId": f"fake-{self.next_id()}",
        }
