"""Speed of the face finder: median seconds per 1024² image (detection + descriptors).

The images are 1024×1024 renders of packaged photos: the astronaut (one face), the group of
six, a composite of several faces on a face-free background, and a face-free photo, built
with the evaluation set's recipes (:mod:`benchmarks.faces_set`). After one warm-up call
(model loads, reported as ``warmup_seconds``) each image is timed ``--repeats`` times;
the report gives each image's median and the median over all timings, in wall-clock and
process CPU seconds. The bar is about 1 s per 1024² image on 2 cores.

Usage::

    python -m benchmarks.faces --repeats 5 --torch-threads 2 --out faces-bench.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks.faces_set import render
from skills.metrics.faces import find_faces

SIDE = 1024
TARGET_SECONDS = 1.0


def bench_images() -> dict[str, np.ndarray]:
    """The benchmark's 1024² images as uint8 RGB arrays."""
    from benchmarks.faces_set import photos

    recipes: dict[str, list[dict[str, Any]]] = {}
    for name, photo_name in (("one_face", "astronaut"), ("six_faces", "friends")):
        first, _, _ = render([{"op": "photo", "name": photo_name}])
        scale = round(SIDE / max(first.size), 4)
        paste = {
            "op": "paste",
            "photo": photo_name,
            "region": [0, 0, first.width, first.height],
            "scale": scale,
            "at": [SIDE / 2, SIDE / 2],
        }
        recipes[name] = [{"op": "canvas", "photo": "brick", "size": [SIDE, SIDE]}, paste]
    recipes["composite"] = [{"op": "canvas", "photo": "china", "size": [SIDE, SIDE]}]
    for k, (name, face) in enumerate((("hopper", 120), ("camera", 70), ("hanks", 90))):
        box = photos()[name]["faces"][0]["box"]
        region = [max(0, box[0] - 20), max(0, box[1] - 20), box[2] + 20, box[3] + 20]
        scale = round(face / (box[2] - box[0]), 4)
        at = [200 + 300 * k, 300 + 200 * k]
        recipes["composite"].append(
            {"op": "paste", "photo": name, "region": region, "scale": scale, "at": at}
        )
    recipes["face_free"] = [{"op": "canvas", "photo": "flower", "size": [SIDE, SIDE]}]
    return {k: np.asarray(render(r)[0]) for k, r in recipes.items()}


def run(repeats: int = 5) -> dict[str, Any]:
    """Time :func:`find_faces` on each benchmark image; medians in seconds."""
    images = bench_images()
    start = time.perf_counter()
    find_faces(images["one_face"])
    warmup = time.perf_counter() - start
    per_image: dict[str, Any] = {}
    walls: list[float] = []
    for name, rgb in images.items():
        wall, cpu, faces = [], [], 0
        for _ in range(repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            faces = len(find_faces(rgb))
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
        walls += wall
        per_image[name] = {
            "faces": faces,
            "median_seconds": round(statistics.median(wall), 3),
            "median_cpu_seconds": round(statistics.median(cpu), 3),
        }
    return {
        "side": SIDE,
        "repeats": repeats,
        "warmup_seconds": round(warmup, 3),
        "images": per_image,
        "median_seconds": round(statistics.median(walls), 3),
        "target_seconds": TARGET_SECONDS,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.faces", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--torch-threads", type=int, default=2, help="torch intra-op threads")
    parser.add_argument("--out", help="also write the report as JSON here")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    import torch

    torch.set_num_threads(args.torch_threads)
    report = run(args.repeats)
    report["torch_threads"] = args.torch_threads
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
