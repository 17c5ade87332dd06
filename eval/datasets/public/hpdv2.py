"""``hpdv2``: the HPD v2 test split's human rankings, judged pairwise in the compare mode.

The layout is the one the HPSv2 repository documents for its test data
(``zhwang/HPDv2`` on Hugging Face: ``test.json`` and the ``test/`` image folder)::

    test.json        [{"prompt": "...", "image_path": ["00001.jpg", ...],
                       "rank": [1, 2, ...],              # averaged human rank, 1 = best
                       "raw_annotations": [{"rank": [...], "user_hash": "..."}]}, ...]
    test/00001.jpg   the images named in image_path

Every pair of images of one prompt becomes one ``compare`` item (criterion ``preference``,
images in the order of ``image_path``); its label is 1.0 when the first image ranks better,
0.0 when the second does and 0.5 when the averaged ranks tie. The HPS v2 paper scores a
ranking model by the share of image pairs it does not invert, averaged over prompts, a pair
the humans tie counting as agreement whatever the model says; the report does the same, and
counts a pair the judge calls a tie (its two orders disagreed) as half agreement.

Example::

    items = HPDv2().load(Path("HPDv2"))
    items[0].id      # '0:0-1'
    items[0].labels  # {'preference': 1.0}
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from eval.datasets.base import EvalItem
from eval.datasets.public.base import JsonPath, PublicSet, expect, load_json
from eval.datasets.public.items import compare_submission
from eval.datasets.votes import VotesDataset
from eval.kit.stats import mean_ci

CRITERION = "preference"


class HPDv2(PublicSet, name="hpdv2"):
    """Adapter for the HPD v2 test split (see the module docstring for the layout)."""

    def load(self, data: Path) -> list[EvalItem]:
        """One compare item per pair of images of a prompt."""
        self.check_files(data)
        path = self.labels_path(data)
        entries = expect(load_json(path), list, JsonPath(path), "a list of prompts")
        items: list[EvalItem] = []
        for n, entry in enumerate(entries):
            at = JsonPath(path) / n
            fields = ("prompt", "image_path", "rank")
            at.fields(entry, fields, 'an object with "prompt", "image_path" and "rank"')
            prompt = expect(entry["prompt"], str, at / "prompt", "the prompt text")
            images = expect(entry["image_path"], list, at / "image_path", "a list of file names")
            ranks = expect(entry["rank"], list, at / "rank", "a list of ranks")
            if len(ranks) != len(images):
                raise (at / "rank").error(
                    f"{len(ranks)} ranks for {len(images)} images in image_path"
                )
            files = []
            for k, (name, rank) in enumerate(zip(images, ranks, strict=True)):
                expect(name, str, at / "image_path" / k, "an image file name")
                expect(rank, (int, float), at / "rank" / k, "a rank (a number)")
                ref = name if Path(name).is_absolute() else f"test/{name}"
                image = self.data_path(data, ref, at / "image_path" / k)
                if not image.is_file():
                    raise (at / "image_path" / k).error(f"image test/{name} not found")
                files.append(str(image))
            pid = str(n)
            for i, j in combinations(range(len(files)), 2):
                label = 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5
                cid = f"{pid}:{i}-{j}"
                items.append(
                    EvalItem(
                        id=cid,
                        submission=compare_submission(
                            cid, prompt, (files[i], f"image{i}"), (files[j], f"image{j}"), CRITERION
                        ),
                        base_dir=data,
                        labels={CRITERION: label},
                        group=pid,
                        key={"id": cid, "prompt_id": pid},
                    )
                )
        return items

    prediction_extra = staticmethod(VotesDataset.prediction_extra)  # the winner per criterion

    def extra_report(
        self, data: Path, items: list[EvalItem], predictions: list[dict], n_boot: int, seed: int
    ) -> dict[str, Any]:
        """``preferences``: the ranking accuracy (pairs not inverted, mean over prompts) with
        a bootstrap interval over prompts, the pairs scored and the judge's tie rate."""
        return {"preferences": ranking_accuracy(items, predictions, n_boot=n_boot, seed=seed)}


def pair_agreement(judge: float, human: float) -> float:
    """1 when the judge orders the pair as the humans (or the humans tie), 0.5 for a judge
    tie on a pair the humans ordered, 0 for an inversion."""
    if human == 0.5 or judge == human:
        return 1.0
    return 0.5 if judge == 0.5 else 0.0


def ranking_accuracy(
    items: list[EvalItem], predictions: list[dict], *, n_boot: int, seed: int
) -> dict[str, Any]:
    """HPS v2's ranking accuracy of the judge's pairwise answers, per prompt then averaged."""
    preds = {p["id"]: p for p in predictions}
    per_prompt: dict[str, list[float]] = {}
    ties = scored = 0
    for item in items:
        value = ((preds.get(item.id) or {}).get("scores") or {}).get(CRITERION)
        if value is None:
            continue
        scored += 1
        ties += value == 0.5
        per_prompt.setdefault(item.group or item.id, []).append(
            pair_agreement(value, item.labels[CRITERION])
        )
    means = np.array([np.mean(v) for v in per_prompt.values()], dtype=float)
    return {
        "ranking_accuracy": float(means.mean()) if len(means) else None,
        "ci95": mean_ci(means, n_boot=n_boot, seed=seed) or [None, None],
        "n": scored,
        "n_total": len(items),
        "prompts": len(means),
        "judge_tie_rate": ties / scored if scored else None,
    }
