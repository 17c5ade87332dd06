"""The OpenAI images endpoint of the fake provider: ``POST /v1/images/generations``.

Answers ``{"created", "data": [{"b64_json"} | {"url"}, ...]}`` with PNGs drawn from a hash of
the prompt, the request's ``seed`` (an extra body field, as local bridges accept) and the image
index: the same request gives the same bytes. ``response_format: "url"`` stores the images
and answers ``http://HOST:PORT/v1/_files/NAME.png`` links (served by ``GET``). Like the real
API it refuses a missing prompt, ``n`` outside 1..10 and ``n > 1`` for ``dall-e-3`` models, and
adds ``revised_prompt`` for ``dall-e-3``.

Faults (the shared :class:`~tests.fakes.provider.faults.FaultInjector`, drawn on arrival):
``429``/``5xx``/``401``/``403``/``404`` and ``timeout`` as for chat; ``refusal`` → HTTP 400
``content_policy_violation``; ``blocked`` → HTTP 400 ``moderation_blocked``; ``empty`` → no
images; ``corrupt`` → base64 of bytes that are no image; ``oversized`` → a PNG whose header
declares 30000×30000 pixels; ``garbage``/``truncated`` → a 200 body that is not (whole) JSON.

Example::

    with FakeProvider() as fake:
        fake.fail_next(["refusal"])
        await litellm.aimage_generation(model="openai/fake-image", prompt="a cat", n=2,
                                        api_base=fake.base_url, api_key="x")  # raises, then ok
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import struct
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web
from PIL import Image, ImageDraw

from tests.fakes.provider.faults import error_json
from tests.fakes.provider.wire import Body, ImageInfo, WireError

if TYPE_CHECKING:
    from tests.fakes.provider.base import LoopbackFake

    _Base = LoopbackFake
else:
    _Base = object

_SIZE = re.compile(r"^(\d{1,4})x(\d{1,4})$")
_MAX_FILES = 256
REFUSAL_MESSAGE = (
    "Your request was rejected as a result of our safety system. Your prompt may contain text "
    "that is not allowed by our safety system. (injected by fake provider)"
)
BLOCKED_MESSAGE = (
    "Your request was rejected by the safety system: the generated image was flagged by "
    "moderation. (injected by fake provider)"
)


def parse_generation(request: web.Request, body: Body) -> tuple[Body, list[ImageInfo]]:
    """Check an images request as the real API would; the canonical body keeps its fields."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise WireError("model is required")
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise WireError("prompt is required (a non-empty string)")
    n = body.get("n", 1)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 10:
        raise WireError(f"n must be an integer from 1 to 10, got {n!r}")
    if model.startswith("dall-e-3") and n != 1:
        raise WireError("You must provide n=1 for this model.")
    size = body.get("size") or "256x256"
    match = _SIZE.match(str(size)) if size != "auto" else _SIZE.match("256x256")
    if match is None or not all(16 <= int(v) <= 4096 for v in match.groups()):
        raise WireError(f"size must be WIDTHxHEIGHT with sides 16..4096, got {size!r}")
    fmt = body.get("response_format") or "b64_json"
    if fmt not in ("b64_json", "url"):
        raise WireError(f"response_format must be 'b64_json' or 'url', got {fmt!r}")
    seed = body.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise WireError(f"seed must be an integer, got {seed!r}")
    width, height = (int(v) for v in match.groups())
    canonical = {
        "model": model,
        "prompt": prompt,
        "n": n,
        "size": (width, height),
        "response_format": fmt,
        "seed": seed,
    }
    return canonical, []


def fake_png(prompt: str, seed: int, index: int, size: tuple[int, int]) -> bytes:
    """A deterministic PNG for one image of a request."""
    digest = hashlib.sha256(f"{seed}|{index}|{prompt}".encode()).digest()
    img = Image.new("RGB", size, tuple(digest[:3]))
    w, h = size
    ImageDraw.Draw(img).rectangle((w // 4, h // 4, w * 3 // 4, h * 3 // 4), fill=tuple(digest[3:6]))
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def oversized_png(width: int = 30000, height: int = 30000) -> bytes:
    """A tiny PNG whose header declares ``width × height`` pixels (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


class ImagesMixin(_Base):
    """Adds the images endpoint and the ``/v1/_files`` store to the OpenAI-compatible fake."""

    _files: OrderedDict[str, bytes]

    def _add_image_routes(self, app: web.Application) -> None:
        self._files = OrderedDict()
        app.router.add_post(
            "/v1/images/generations",
            self._endpoint(parse_generation, _no_render, answer=self._answer_images),
        )
        app.router.add_get("/v1/_files/{name}", self._serve_file)

    def _content_error(self, message: str, code: str) -> web.Response:
        return web.json_response(error_json(message, "invalid_request_error", code), status=400)

    async def _answer_images(self, canonical: Body, body: Body) -> web.StreamResponse:
        def draw(k: int) -> bytes:
            return fake_png(canonical["prompt"], canonical["seed"], k, canonical["size"])

        return await self.images_answer(canonical, draw)

    async def images_answer(
        self, canonical: Body, draw: Callable[[int], bytes]
    ) -> web.StreamResponse:
        """The answer of an image endpoint (generations, edits): the drawn ``n`` images, or
        the fault the injector drew for this call, after the latency."""
        fault, error = await self._fault_and_delay()
        if error is not None:
            return error
        if fault == "refusal":
            return self._content_error(REFUSAL_MESSAGE, "content_policy_violation")
        if fault == "blocked":
            return self._content_error(BLOCKED_MESSAGE, "moderation_blocked")
        if fault == "garbage":
            return web.Response(text="<html>upstream said no</html>", content_type="text/html")
        n = canonical["n"]
        if fault == "empty":
            images: list[bytes] = []
        elif fault == "corrupt":
            images = [b"this is not an image " * 4] * n
        elif fault == "oversized":
            images = [oversized_png()] * n
        else:
            images = [draw(k) for k in range(n)]
        data = [self._item(img, canonical) for img in images]
        answer: dict[str, Any] = {"created": int(time.time()), "data": data}
        if fault == "truncated":
            text = json.dumps(answer)
            return web.Response(text=text[: len(text) // 2], content_type="application/json")
        return web.json_response(answer)

    def _item(self, png: bytes, canonical: Body) -> dict[str, Any]:
        item: dict[str, Any] = {}
        if canonical["response_format"] == "url":
            name = f"img-{self.next_id()}.png"
            self._files[name] = png
            while len(self._files) > _MAX_FILES:
                self._files.popitem(last=False)
            item["url"] = f"http://{self.host}:{self.port}/v1/_files/{name}"
        else:
            item["b64_json"] = base64.b64encode(png).decode()
        if canonical["model"].startswith("dall-e-3"):
            item["revised_prompt"] = f"{canonical['prompt']} (revised by the fake provider)"
        return item

    async def _serve_file(self, request: web.Request) -> web.Response:
        png = self._files.get(request.match_info["name"])
        if png is None:
            return self._error(404, "not_found_error", "no such file")
        return web.Response(body=png, content_type="image/png")


def _no_render(canonical: Body, body: Body, content: str, finish: str) -> Body:
    raise AssertionError("the images endpoint answers through _answer_images")  # pragma: no cover
