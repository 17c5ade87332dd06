"""The OpenAI image-edit endpoint of the fake provider: ``POST /v1/images/edits``.

Takes ``multipart/form-data`` as the real API (and litellm's ``aimage_edit``) sends it:
``model``, ``prompt``, ``image`` or ``image[]`` (one or more files), an optional ``mask``
file, ``n``, ``size``, ``response_format``, ``seed``. Answers ``{"created", "data":
[{"b64_json"} | {"url"}, ...]}`` whose images are a **known transformation** of the first
source image — :func:`fake_edit`: its colours inverted (inside the mask's transparent area when
a mask is sent, else everywhere), then image ``k`` shifted ``k`` grey levels — so a test can
check the edit it got back is the one it asked for. ``size`` resizes the result.

Faults and latency are those of the images endpoint (the shared fault injector: ``429``,
``5xx``, ``timeout``, ``refusal``, ``blocked``, ``empty``, ``corrupt``, ``oversized``,
``garbage``, ``truncated``); a missing image or prompt, an image that does not decode, or a
mask of another size than the image is an HTTP 400 as from the real API.

The recorded body (``provider.requests``) holds the text fields, and for each file its name,
byte count and SHA-256 (``image``: a list, ``mask``: one or null).

Example::

    with FakeProvider() as fake:
        resp = await litellm.aimage_edit(model="openai/fake-editor", image=png, prompt="invert",
                                         api_base=fake.base_url, api_key="x")
        assert fake.requests[-1]["prompt"] == "invert"
"""

from __future__ import annotations

import hashlib
import io
from typing import TYPE_CHECKING, Any

from aiohttp import web
from PIL import Image, ImageChops, ImageOps, UnidentifiedImageError

from tests.fakes.provider.wire import Body, ImageInfo, WireError

if TYPE_CHECKING:
    from tests.fakes.provider.images import ImagesMixin

    _Base = ImagesMixin
else:
    _Base = object

MAX_FORM_BYTES = 64 * 1024 * 1024


def _open(data: bytes, what: str) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise WireError(f"{what} is not an image the endpoint can read ({exc})") from None
    return img


def fake_edit(source: bytes, mask: bytes | None, index: int, size: tuple[int, int] | None) -> bytes:
    """The fake's edit: colours inverted (in the mask's transparent area, else everywhere),
    then ``index`` grey levels added; resized to ``size`` when given. PNG bytes."""
    img = _open(source, "image").convert("RGB")
    inverted = ImageOps.invert(img)
    if mask is not None:
        m = _open(mask, "mask")
        alpha = m.getchannel("A") if "A" in m.getbands() else m.convert("L")
        inverted = Image.composite(img, inverted, alpha.point(lambda v: 255 if v > 127 else 0))
    if index:
        inverted = ImageChops.add(inverted, Image.new("RGB", img.size, (index,) * 3))
    if size is not None and size != inverted.size:
        inverted = inverted.resize(size)
    buf = io.BytesIO()
    inverted.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


async def read_form(request: web.Request) -> dict[str, Any]:
    """The multipart form as a dict: text fields as strings, files as ``(name, bytes)``
    (``image``/``image[]`` gathered in a list under ``image``)."""
    if not request.content_type.startswith("multipart/"):
        raise WireError("an image edit is sent as multipart/form-data")
    form: dict[str, Any] = {"image": []}
    total = 0
    reader = await request.multipart()
    async for part in reader:
        data = bytes(await part.read())  # type: ignore[union-attr]
        total += len(data)
        if total > MAX_FORM_BYTES:
            raise WireError("the form is larger than the endpoint takes")
        name = part.name or ""
        if part.filename is not None:  # type: ignore[union-attr]
            if name in ("image", "image[]"):
                form["image"].append((part.filename, data))  # type: ignore[union-attr]
            else:
                form[name] = (part.filename, data)  # type: ignore[union-attr]
        else:
            form[name] = data.decode("utf-8", "replace")
    return form


def _file_record(item: tuple[str, bytes]) -> dict[str, Any]:
    name, data = item
    return {"filename": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def parse_edit(request: web.Request, form: Body) -> tuple[Body, list[ImageInfo]]:
    """Check an edit form as the real API would; the canonical body keeps the files."""
    model = form.get("model")
    if not isinstance(model, str) or not model:
        raise WireError("model is required")
    prompt = form.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise WireError("prompt is required (a non-empty string)")
    images = form.get("image") or []
    if not images:
        raise WireError("image is required (a file field 'image' or 'image[]')")
    try:
        n = int(form.get("n", 1))
        seed = int(form.get("seed", 0))
    except ValueError:
        raise WireError("n and seed must be integers") from None
    if not 1 <= n <= 10:
        raise WireError(f"n must be an integer from 1 to 10, got {n}")
    size = None
    if form.get("size") not in (None, "", "auto"):
        w, _, h = str(form["size"]).partition("x")
        if not (w.isdigit() and h.isdigit() and 16 <= int(w) <= 4096 and 16 <= int(h) <= 4096):
            raise WireError(f"size must be WIDTHxHEIGHT with sides 16..4096, got {form['size']!r}")
        size = (int(w), int(h))
    fmt = form.get("response_format") or "b64_json"
    if fmt not in ("b64_json", "url"):
        raise WireError(f"response_format must be 'b64_json' or 'url', got {fmt!r}")
    source = images[0][1]
    mask = form["mask"][1] if isinstance(form.get("mask"), tuple) else None
    src = _open(source, "image")
    if mask is not None and _open(mask, "mask").size != src.size:
        raise WireError("mask must be the same size as the image")
    canonical = {"model": model, "prompt": prompt, "n": n, "size": size, "seed": seed,
                 "response_format": fmt, "source": source, "mask": mask}  # fmt: skip
    record = {k: v for k, v in form.items() if isinstance(v, str)}
    record["image"] = [_file_record(i) for i in images]
    record["mask"] = _file_record(form["mask"]) if mask is not None else None
    form.clear()
    form.update(record)  # what `provider.requests` shows: no raw bytes
    return canonical, []


class EditsMixin(_Base):
    """Adds ``POST /v1/images/edits`` to the OpenAI-compatible fake."""

    def _add_edit_routes(self, app: web.Application) -> None:
        handler = self._endpoint(parse_edit, _no_render, answer=self._answer_edit, read=read_form)
        app.router.add_post("/v1/images/edits", handler)

    async def _answer_edit(self, canonical: Body, body: Body) -> web.StreamResponse:
        def draw(k: int) -> bytes:
            return fake_edit(canonical["source"], canonical["mask"], k, canonical["size"])

        return await self.images_answer(canonical, draw)


def _no_render(canonical: Body, body: Body, content: str, finish: str) -> Body:
    raise AssertionError("the edits endpoint answers through _answer_edit")  # pragma: no cover
