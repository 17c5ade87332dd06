"""The face evaluation set's pixels and geometry: packaged photos and the transforms on them.

Every image of the set is a *recipe*, a list of operations applied in order, starting from a
photograph that ships in an installed package (scikit-image, matplotlib, scikit-learn,
insightface; see ``benchmarks/data/faces/photos.json``, whose face boxes were drawn by eye).
Each operation changes the pixels and moves the labelled faces with them, so the labels of a
transformed image follow by construction: a rotation moves a face's centre with the image
and adds to its ``rotation``; a scale scales its box; a paste carries the faces of the pasted
region along. Boxes are ``[left, top, right, bottom]``; a rotated face keeps its width and
height around its moved centre.

Example:
    >>> image, faces, ignore = render([{"op": "photo", "name": "astronaut"}, {"op": "mirror"}])
    >>> image.size, faces[0]["person"], faces[0]["box"][0] > 200
    ((512, 512), 'collins', True)
"""

from __future__ import annotations

import io
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageFilter

from skills.metrics.packaged import packaged_file

PHOTOS_FILE = Path(__file__).parent / "data" / "faces" / "photos.json"
FILL = (118, 118, 118)  # grey for the corners a rotation uncovers
Faces = list[dict[str, Any]]


_ROOTS = {
    "skimage": ("skimage", "data"),
    "matplotlib": ("matplotlib", "mpl-data/sample_data"),
    "sklearn": ("sklearn", "datasets/images"),
    "insightface": ("insightface", "data/images"),
}


@cache
def photos() -> dict[str, dict[str, Any]]:
    """The labelled base photos (name → source, faces, ignore), from ``photos.json``."""
    return json.loads(PHOTOS_FILE.read_text())["photos"]


@cache
def _photo_pixels(name: str) -> Image.Image:
    spec = photos()[name]
    package, file = spec["source"].split(":")
    root, sub = _ROOTS[package]
    install = f"pip install {root}, as pinned in requirements.lock"
    image = Image.open(packaged_file(root, f"{sub}/{file}", install))
    if image.mode == "1":
        image = image.convert("L")
    image = image.convert("RGB")
    return image.crop(tuple(spec["crop"])) if "crop" in spec else image


def photo(name: str) -> tuple[Image.Image, Faces, list[list[float]]]:
    """A base photo as RGB with copies of its face labels and ignore boxes."""
    spec = photos()[name]
    faces = [
        {"person": f["person"], "box": list(map(float, f["box"])), "rotation": 0.0}
        for f in spec["faces"]
    ]
    return _photo_pixels(name).copy(), faces, [list(map(float, b)) for b in spec.get("ignore", [])]


def _move(box: list[float], warp: np.ndarray, scale: float = 1.0) -> list[float]:
    """``box`` with its centre mapped by the 2x3 affine ``warp`` and its size times ``scale``."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    nx, ny = warp @ np.array([cx, cy, 1.0])
    hw, hh = (box[2] - box[0]) * scale / 2, (box[3] - box[1]) * scale / 2
    return [float(nx - hw), float(ny - hh), float(nx + hw), float(ny + hh)]


def _rotation(size: tuple[int, int], degrees: float, scale: float = 1.0):
    """Affine warp turning an image of ``size`` by ``degrees`` (anticlockwise), expanded."""
    w, h = size
    warp = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, scale)
    cos, sin = abs(warp[0, 0]), abs(warp[0, 1])
    nw, nh = math.ceil(w * cos + h * sin), math.ceil(w * sin + h * cos)
    warp[:, 2] += np.array([nw / 2 - w / 2, nh / 2 - h / 2])
    return warp, (nw, nh)


def _rotate(image: Image.Image, faces: Faces, ignore: list, degrees: float, scale: float = 1.0):
    warp, size = _rotation(image.size, degrees, scale)
    out = cv2.warpAffine(np.asarray(image), warp, size, flags=cv2.INTER_LINEAR, borderValue=FILL)
    for f in faces:
        f["box"], f["rotation"] = _move(f["box"], warp, scale), f["rotation"] + degrees
    return Image.fromarray(out), faces, [_move(b, warp, scale) for b in ignore]


def _paste(canvas: Image.Image, faces: Faces, ignore: list, op: dict[str, Any]):
    patch, inner, inner_ignore = photo(op["photo"])
    left, top, right, bottom = op["region"]
    patch = patch.crop((left, top, right, bottom)).convert("RGBA")
    shift = np.array([[1.0, 0, -left], [0, 1.0, -top]])
    inner = [f for f in inner if _inside(f["box"], op["region"])]
    inner_ignore = [b for b in inner_ignore if _inside(b, op["region"])]
    warp, size = _rotation(patch.size, op.get("rotate", 0.0), op["scale"])
    pixels = cv2.warpAffine(
        np.asarray(patch),
        warp,
        size,
        flags=cv2.INTER_AREA if op["scale"] < 1 else cv2.INTER_LINEAR,
        borderValue=(0, 0, 0, 0),
    )
    at = (round(op["at"][0] - size[0] / 2), round(op["at"][1] - size[1] / 2))
    canvas.paste(Image.fromarray(pixels), at, Image.fromarray(pixels[..., 3]))
    place = np.array([[1.0, 0, at[0]], [0, 1.0, at[1]]])
    full = place @ np.vstack([warp, [0, 0, 1]]) @ np.vstack([shift, [0, 0, 1]])
    for f in inner:
        f["box"] = _move(f["box"], full, op["scale"])
        f["rotation"] += op.get("rotate", 0.0)
    return canvas, faces + inner, ignore + [_move(b, full, op["scale"]) for b in inner_ignore]


def _inside(box: list[float], region: list[float]) -> bool:
    return (
        box[0] >= region[0] and box[1] >= region[1] and box[2] <= region[2] and box[3] <= region[3]
    )


def _canvas(op: dict[str, Any]) -> Image.Image:
    """A background photo scaled to cover ``size`` and centre-cropped to it."""
    image = _photo_pixels(op["photo"])
    w, h = op["size"]
    k = max(w / image.width, h / image.height)
    image = image.resize(
        (math.ceil(image.width * k), math.ceil(image.height * k)), Image.Resampling.BICUBIC
    )
    x, y = (image.width - w) // 2, (image.height - h) // 2
    return image.crop((x, y, x + w, y + h))


def _jpeg(image: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def _colour(image: Image.Image, op: dict[str, Any]) -> Image.Image:
    kind = op["op"]
    if kind == "hue":
        hsv = np.asarray(image.convert("HSV")).copy()
        hsv[..., 0] = (hsv[..., 0].astype(int) + op["steps"]) % 256
        return Image.fromarray(hsv, "HSV").convert("RGB")
    if kind == "tint":
        a = np.asarray(image, np.float32) * np.array([1.08, 1.0, 0.75]) + np.array([12, 8, 0])
        return Image.fromarray(a.clip(0, 255).astype(np.uint8))
    if kind == "gray":
        return image.convert("L").convert("RGB")
    if kind == "dim":
        return Image.fromarray((np.asarray(image, np.float32) * op["factor"]).astype(np.uint8))
    if kind == "jpeg":
        return _jpeg(image, op["quality"])
    if kind == "blur":
        return image.filter(ImageFilter.GaussianBlur(op["radius"]))
    raise ValueError(f"unknown operation {kind!r} in a face-set recipe")


def apply(state: tuple[Image.Image, Faces, list], op: dict[str, Any]):
    """One recipe operation on ``(image, faces, ignore)``."""
    image, faces, ignore = state
    kind = op["op"]
    if kind == "rotate":
        return _rotate(image, faces, ignore, op["degrees"])
    if kind == "scale":
        size = (round(image.width * op["factor"]), round(image.height * op["factor"]))
        k = np.array([[op["factor"], 0, 0], [0, op["factor"], 0]])
        resample = Image.Resampling.BOX if op["factor"] < 1 else Image.Resampling.BICUBIC
        for f in faces:
            f["box"] = [v * op["factor"] for v in f["box"]]
        return image.resize(size, resample), faces, [_move(b, k, op["factor"]) for b in ignore]
    if kind == "crop":
        left, top = op["box"][0], op["box"][1]
        for f in faces:
            if not _inside(f["box"], op["box"]):
                raise ValueError(f"crop {op['box']} cuts the face of {f['person']}")
            f["box"] = [
                f["box"][0] - left,
                f["box"][1] - top,
                f["box"][2] - left,
                f["box"][3] - top,
            ]
        kept = [[b[0] - left, b[1] - top, b[2] - left, b[3] - top] for b in ignore]
        return image.crop(tuple(op["box"])), faces, kept
    if kind == "mirror":
        for f in faces:
            f["box"] = [
                image.width - f["box"][2],
                f["box"][1],
                image.width - f["box"][0],
                f["box"][3],
            ]
        flipped = [[image.width - b[2], b[1], image.width - b[0], b[3]] for b in ignore]
        return image.transpose(Image.Transpose.FLIP_LEFT_RIGHT), faces, flipped
    if kind == "paste":
        return _paste(image, faces, ignore, op)
    return _colour(image, op), faces, ignore


def render(recipe: list[dict[str, Any]]) -> tuple[Image.Image, Faces, list[list[float]]]:
    """The image a recipe makes, its faces (person, box, rotation) and ignore boxes."""
    first = recipe[0]
    if first["op"] == "photo":
        state = photo(first["name"])
    elif first["op"] == "canvas":
        state = (_canvas(first), [], [])
    else:
        raise ValueError("a face-set recipe starts with a 'photo' or 'canvas' operation")
    for op in recipe[1:]:
        state = apply(state, op)
    return state
