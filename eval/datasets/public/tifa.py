"""``tifa``: TIFA v1.0's human faithfulness judgments, as the TIFA repository publishes them.

The files are those of ``human_annotations/`` in the TIFA repository (Yushi-Hu/tifa), with the
800 images of the linked archive::

    human_annotations.json               {"coco_669925_mini_dalle": {"text_id": "coco_669925",
                                           "image_path": "coco_669925_mini_dalle.jpg",
                                           "text": "...", "human_scores": [5, 5],
                                           "human_avg": 5.0}, ...}
    human_annotations_with_scores.json   (optional) the same, plus each published metric's
                                         score per image ("clipscore_vitb32", ...)
    IMAGE.jpg (or images/IMAGE.jpg)      the images named by image_path

Each image is one item (prompt-and-image, the text as prompt and brief), scored by the
``avt_prompt_matching`` card against ``human_avg``; the individual ``human_scores`` feed the
human baseline. The generator is the key after the text id (``mini_dalle``,
``stable_diffusion_v1_5``, ...). When ``human_annotations_with_scores.json`` is present, every
published metric in it is correlated with the humans on the very items the judge scored: those
figures are recomputed from published per-image scores, not quoted.

Example::

    items = Tifa().load(Path("tifa/human_annotations"))
    items[0].slices   # {'model': 'mini_dalle', 'source': 'coco'}
"""

from __future__ import annotations

import math
from pathlib import Path

from eval.datasets.base import EvalItem
from eval.datasets.public.base import JsonPath, PublicSet, expect, load_json
from eval.datasets.public.items import image_submission

WITH_SCORES = "human_annotations_with_scores.json"
FIELDS = ("text_id", "image_path", "text", "human_scores")
NOT_METRICS = {*FIELDS, "human_avg"}


class Tifa(PublicSet, name="tifa"):
    """Adapter for TIFA v1.0's human judgments (see the module docstring for the layout)."""

    def load(self, data: Path) -> list[EvalItem]:
        """One item per key of ``human_annotations.json``."""
        self.check_files(data)
        path = self.labels_path(data)
        raw = expect(load_json(path), dict, JsonPath(path), "an object of image keys")
        items = []
        for key, entry in raw.items():
            at = JsonPath(path) / key
            at.fields(entry, FIELDS, "an object")
            text_id = expect(entry["text_id"], str, at / "text_id", "the text id")
            text = expect(entry["text"], str, at / "text", "the text input")
            name = expect(entry["image_path"], str, at / "image_path", "an image file name")
            scores = expect(entry["human_scores"], list, at / "human_scores", "a list of 1–5")
            if not scores:
                raise (at / "human_scores").error("no ratings")
            for k, r in enumerate(scores):
                expect(r, (int, float), at / "human_scores" / k, "a rating 1–5")
            image = self.find_image(data, name, at / "image_path")
            if image is None:
                raise (at / "image_path").error(f"image {name} not found (nor images/{name})")
            model = key[len(text_id) + 1 :] if key.startswith(text_id + "_") else "unknown"
            items.append(
                EvalItem(
                    id=key,
                    submission=image_submission(key, text_id, text, str(image), model),
                    base_dir=data,
                    labels={"faithfulness": sum(scores) / len(scores)},
                    ratings={"faithfulness": {f"r{k}": float(v) for k, v in enumerate(scores)}},
                    slices={"model": model, "source": text_id.split("_")[0]},
                    group=text_id,
                    key={"id": key, "text_id": text_id},
                )
            )
        return items

    def published_scores(self, data: Path) -> dict[str, dict[str, float]]:
        """Metric → image key → score, from ``human_annotations_with_scores.json`` (empty
        when the file is absent)."""
        path = data / WITH_SCORES
        if not path.is_file():
            return {}
        raw = expect(load_json(path), dict, JsonPath(path), "an object of image keys")
        out: dict[str, dict[str, float]] = {}
        for key, entry in raw.items():
            expect(entry, dict, JsonPath(path) / key, "an object")
            for metric, value in entry.items():
                if metric in NOT_METRICS:
                    continue
                at = JsonPath(path) / key / metric
                if isinstance(value, float) and not math.isfinite(value):
                    continue  # the metric gave no score for this image
                out.setdefault(metric, {})[key] = float(expect(value, (int, float), at, "a score"))
        return out
