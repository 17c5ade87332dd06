"""A made-up set in the TIFA v1.0 layout, for trying ``judge meta-eval --scores`` without
downloading anything: every number here is invented (by a seeded simulation), none is TIFA's.

Five generators with the names TIFA uses draw each text; two "annotators" rate each image
1–5 (``human_scores``, ``human_avg``); ``human_annotations_with_scores.json`` carries two
published-metric columns as TIFA's file does (``clipscore_vitb32``, ``tifa_mplug-large``, with
made-up values); ``my_metric.csv`` is an extra metric of your own, in the long shape
(``id,metric,score``). The images are 8×8 squares of one colour: the adapter needs the files,
a ``--scores-only`` run never opens them.

    python examples/compare_metrics/make_example.py OUT_DIR [--texts N]

writes ``OUT_DIR/tifa-mini/`` (the set) and ``OUT_DIR/my_metric.csv``. The shipped copy beside
this script was made with ``--texts 8`` (40 images).
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

from PIL import Image

GENERATORS = {  # name → made-up mean quality
    "mini_dalle": -1.0,
    "vq_diffusion": -0.6,
    "stable_diffusion_v1_1": 0.0,
    "stable_diffusion_v1_5": 0.35,
    "stable_diffusion_v2_1": 0.8,
}
SUBJECTS = ("a red car", "two cats on a sofa", "a fox reading a newspaper", "a lighthouse at dusk",
            "three apples in a bowl", "a man riding a blue bicycle", "a castle made of ice",
            "a dog wearing sunglasses")  # fmt: skip
SOURCES = ("coco", "drawbench", "partiprompt", "paintskill")


def _rating(x: float) -> int:
    return max(1, min(5, round(x)))


def make(out: Path, texts: int = 8, seed: int = 0) -> Path:
    """Write the set and the extra metric's scores under ``out``; return the set's folder."""
    rng = random.Random(seed)
    folder = out / "tifa-mini"
    folder.mkdir(parents=True, exist_ok=True)
    plain, scored, mine = {}, {}, ["id,metric,score"]
    for t in range(texts):
        text_id = f"{SOURCES[t % len(SOURCES)]}_{100 + t}"
        text = SUBJECTS[t % len(SUBJECTS)] + ("" if t < len(SUBJECTS) else f", view {t}")
        difficulty = rng.gauss(0, 0.5)
        for g, (model, quality) in enumerate(GENERATORS.items()):
            key = f"{text_id}_{model}"
            latent = 3.1 + quality + difficulty + rng.gauss(0, 0.6)
            ratings = [_rating(latent + rng.gauss(0, 0.5)) for _ in range(2)]
            entry = {
                "text_id": text_id,
                "image_path": f"{key}.jpg",
                "text": text,
                "human_scores": ratings,
                "human_avg": sum(ratings) / 2,
            }
            plain[key] = entry
            yes = sum(rng.random() < 1 / (1 + math.exp(-(latent - 3 + rng.gauss(0, 0.9))))
                      for _ in range(4))  # fmt: skip
            scored[key] = {
                **entry,
                "clipscore_vitb32": round(27 + 0.8 * latent + rng.gauss(0, 1.6), 4),
                "tifa_mplug-large": yes / 4,
            }
            own = 1 / (1 + math.exp(-(latent - 3 + rng.gauss(0, 0.45))))
            mine.append(f"{key},my_metric,{own:.4f}")
            colour = (40 * g + 20, (37 * t) % 256, 128)
            Image.new("RGB", (8, 8), colour).save(folder / f"{key}.jpg", "JPEG")
    (folder / "human_annotations.json").write_text(json.dumps(plain, indent=2) + "\n")
    (folder / "human_annotations_with_scores.json").write_text(json.dumps(scored, indent=2) + "\n")
    (out / "my_metric.csv").write_text("\n".join(mine) + "\n")
    return folder


def main() -> None:
    """Command line: ``make_example.py OUT_DIR [--texts N] [--seed S]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--texts", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    folder = make(args.out, args.texts, args.seed)
    print(f"wrote {folder} and {args.out / 'my_metric.csv'}")


if __name__ == "__main__":
    main()
