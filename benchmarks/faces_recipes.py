"""The face evaluation set's recipes and their labels (written once to ``labels.jsonl``).

Three groups, all from packaged photos (:mod:`benchmarks.faces_set`):

* ``people``: each photo with faces (astronaut, Grace Hopper, the cameraman, a group of six)
  rotated by ±15/30/45° (and ±60°, outside the bar), mirrored, recoloured, dimmed, JPEG'd,
  blurred, upscaled, downscaled until the smallest face is 44 px (and 28 px, outside the
  bar) and cropped;
* ``composites``: 2–5 faces of different people cut from those photos (and the packaged
  Tom Hanks crop) pasted at 44–230 px and turned up to ±40° on face-free backgrounds;
* ``face_free``: every face-free photo (including crops of the people photos below the
  faces) as is, rotated, mirrored and recoloured, JPEG'd and upscaled, and cropped.

The choices are drawn from a fixed seed, and the labels follow by construction, so
``labels.jsonl`` is made before any detector looks at the images.

Example:
    >>> [name for name, _, _ in _face_regions()].count("friends")
    6
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from benchmarks.faces_set import photos, render

LABELS_FILE = Path(__file__).parent / "data" / "faces" / "labels.jsonl"
PEOPLE = ("astronaut", "hopper", "camera", "friends")
BACKGROUNDS = (
    "china",
    "flower",
    "coffee",
    "brick",
    "grass",
    "gravel",
    "rocket",
    "moon",
    "motorcycle",
    "hubble",
)
SEED = 25


def _smallest_face(name: str) -> float:
    return min(
        min(f["box"][2] - f["box"][0], f["box"][3] - f["box"][1]) for f in photos()[name]["faces"]
    )


def _around_faces(name: str, margin: float) -> list[int]:
    """A crop of ``name`` holding all its faces with ``margin`` × face size around them."""
    spec = photos()[name]
    image, _, _ = render([{"op": "photo", "name": name}])
    boxes = [f["box"] for f in spec["faces"]]
    pad = margin * max(b[2] - b[0] for b in boxes)
    return [
        max(0, round(min(b[0] for b in boxes) - pad)),
        max(0, round(min(b[1] for b in boxes) - pad)),
        min(image.width, round(max(b[2] for b in boxes) + pad)),
        min(image.height, round(max(b[3] for b in boxes) + pad)),
    ]


def _people() -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for name in PEOPLE:
        start = {"op": "photo", "name": name}
        variants: dict[str, list[dict[str, Any]]] = {"orig": []}
        for deg in (-60, -45, -30, -15, 15, 30, 45, 60):
            variants[f"rot{deg:+d}"] = [{"op": "rotate", "degrees": deg}]
        variants["mirror"] = [{"op": "mirror"}]
        variants["mirror_rot20"] = [{"op": "mirror"}, {"op": "rotate", "degrees": 20}]
        variants["hue"] = [{"op": "hue", "steps": 85}]
        variants["tint"] = [{"op": "tint"}]
        variants["gray"] = [{"op": "gray"}]
        variants["dim"] = [{"op": "dim", "factor": 0.45}]
        variants["jpeg25"] = [{"op": "jpeg", "quality": 25}]
        variants["blur"] = [{"op": "blur", "radius": 1.5}]
        image, _, _ = render([start])
        variants["up1024"] = [{"op": "scale", "factor": round(1024 / max(image.size), 4)}]
        small = round(44 / _smallest_face(name), 4)
        variants["small44"] = [{"op": "scale", "factor": small}]
        variants["small44_rot25"] = [
            {"op": "scale", "factor": small},
            {"op": "rotate", "degrees": 25},
        ]
        variants["tiny28"] = [{"op": "scale", "factor": round(28 / _smallest_face(name), 4)}]
        crop = {"op": "crop", "box": _around_faces(name, 0.6)}
        variants["crop"] = [crop]
        variants["crop_rot-35_jpeg"] = [
            crop,
            {"op": "rotate", "degrees": -35},
            {"op": "jpeg", "quality": 50},
        ]
        out += [(f"people/{name}_{k}", [start, *ops]) for k, ops in variants.items()]
    return out


def _face_regions() -> list[tuple[str, list[int], float]]:
    """(photo, region, face width) for every labelled face, cut with a margin that stays
    clear of every other face and ignore box of its photo."""
    regions = []
    for name in (*PEOPLE, "hanks"):
        spec = photos()[name]
        image, _, _ = render([{"op": "photo", "name": name}])
        others = [f["box"] for f in spec["faces"]] + spec.get("ignore", [])
        for face in spec["faces"]:
            b, width = face["box"], face["box"][2] - face["box"][0]
            for margin in (0.5, 0.35, 0.2, 0.1, 0.0):
                m = margin * width
                region = [
                    max(0, round(b[0] - m)),
                    max(0, round(b[1] - m)),
                    min(image.width, round(b[2] + m)),
                    min(image.height, round(b[3] + m)),
                ]
                if not any(o is not b and _overlaps(o, region) for o in others):
                    regions.append((name, region, width))
                    break
    return regions


def _overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _composites(rng: random.Random) -> list[tuple[str, list[dict[str, Any]]]]:
    regions, out = _face_regions(), []
    for i in range(24):
        size = rng.choice([(1024, 768), (768, 1024), (1024, 1024), (800, 600)])
        ops: list[dict[str, Any]] = [
            {"op": "canvas", "photo": BACKGROUNDS[i % len(BACKGROUNDS)], "size": list(size)}
        ]
        placed: list[list[float]] = []
        for name, region, width in rng.sample(regions, rng.randint(2, 5)):
            face_px = rng.uniform(44, 230) if i < 21 else rng.uniform(26, 36)
            scale = round(face_px / width, 4)
            pw, ph = (region[2] - region[0]) * scale * 1.42, (region[3] - region[1]) * scale * 1.42
            for _ in range(60):
                cx, cy = (
                    rng.uniform(pw / 2, size[0] - pw / 2),
                    rng.uniform(ph / 2, size[1] - ph / 2),
                )
                spot = [cx - pw / 2, cy - ph / 2, cx + pw / 2, cy + ph / 2]
                if pw < size[0] and ph < size[1] and not any(_overlaps(spot, p) for p in placed):
                    placed.append(spot)
                    ops.append(
                        {
                            "op": "paste",
                            "photo": name,
                            "region": region,
                            "scale": scale,
                            "rotate": round(rng.uniform(-40, 40), 1),
                            "at": [round(cx, 1), round(cy, 1)],
                        }
                    )
                    break
        ops.append({"op": "jpeg", "quality": rng.choice([60, 80, 95])})
        out.append((f"composites/c{i:02d}", ops))
    return out


def _face_free() -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for name, spec in photos().items():
        if spec["faces"]:
            continue
        start = {"op": "photo", "name": name}
        image, _, _ = render([start])
        w, h = image.size
        variants = {
            "orig": [],
            "rot30": [{"op": "rotate", "degrees": 30}],
            "mirror_hue": [{"op": "mirror"}, {"op": "hue", "steps": 60}],
            "jpeg_up1024": [
                {"op": "jpeg", "quality": 30},
                {"op": "scale", "factor": round(1024 / max(w, h), 4)},
            ],
            "crop_zoom": [
                {"op": "crop", "box": [w // 5, h // 5, w - w // 5, h - h // 5]},
                {"op": "scale", "factor": 1.6},
            ],
        }
        out += [(f"face_free/{name}_{k}", [start, *ops]) for k, ops in variants.items()]
    return out


def make_entries() -> list[dict[str, Any]]:
    """Every image's recipe and labels (faces: person, box, size, rotation; ignore boxes)."""
    rng = random.Random(SEED)
    entries = []
    for image_id, recipe in _people() + _composites(rng) + _face_free():
        image, faces, ignore = render(recipe)
        entries.append(
            {
                "image": image_id,
                "group": image_id.split("/")[0],
                "size": list(image.size),
                "recipe": recipe,
                "faces": [
                    {
                        "person": f["person"],
                        "box": [round(v, 1) for v in f["box"]],
                        "size": round(max(f["box"][2] - f["box"][0], f["box"][3] - f["box"][1]), 1),
                        "rotation": round(f["rotation"], 1),
                    }
                    for f in faces
                ],
                "ignore": [[round(v, 1) for v in b] for b in ignore],
            }
        )
    return entries


def write_labels(path: Path = LABELS_FILE) -> int:
    """Write ``labels.jsonl`` (one image a line); returns the number of images."""
    entries = make_entries()
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
    return len(entries)


def read_labels(path: Path = LABELS_FILE) -> list[dict[str, Any]]:
    """The committed labels, one dict per image."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
